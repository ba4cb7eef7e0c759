"""Rule score_model: validate one model's EM output files (one mode) into tidy tables, then
score them under both rule sets. An invalid file stops the job before anything is written."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import pandas as pd
from eibench.metrics import RULE_SETS
from eibench.metrics.score import model_summary, score_rule_sets
from eibench.release.ingest import ingest_em_outputs
from eibench.release.tidy import EM_TABLES, GOLD_TABLES
from eibench.report.invalid import invalid_answers
from eibench.runlog import rule_log
from eibench.tables import read_parquet, write_parquet

with rule_log(snakemake) as log:  # noqa: F821
    p, i, o = snakemake.params, snakemake.input, snakemake.output
    gold = {name: read_parquet(i[f"gold_{name}"], GOLD_TABLES[name]) for name in GOLD_TABLES}
    sources = [i.predictions] if isinstance(i.predictions, str) else list(i.predictions)
    ingest = ingest_em_outputs(sources, p.model, p.mode, set(gold["conversations"]["conversation_id"]), p.report_all)
    if ingest.n_off_position:
        log.warning(
            "model %s, mode %s: %d pairwise picks are keyed by something other than the comparison's "
            "position (%s); the scorer matches picks by position ('0', '1', ...), so these match no "
            "comparison (see docs/metrics.md)",
            p.model,
            p.mode,
            ingest.n_off_position,
            ", ".join(ingest.off_position_keys[:5]),
        )
    em = ingest.tables
    clamped = int(em["em_emotion_tags"]["intensity_clamped"].sum())
    if clamped:
        log.warning(
            "model %s, mode %s: %d of %d predicted intensities lay outside 1..7 after rounding and were clamped "
            "into it (em_emotion_tags.intensity_clamped; rule emotion_intensity_clamped): if the model answers on "
            "another scale, fix its prompt or rescale its answers to 1..7",
            p.model,
            p.mode,
            clamped,
            len(em["em_emotion_tags"]),
        )
    parts = {"turn": [], "conversation": [], "summary": [], "rule_counts": [], "missing": []}
    for rule_set, s in score_rule_sets(gold, em, RULE_SETS, p.va_matching, p.compat).items():
        summary = model_summary(s.turn, s.conversation, len(gold["conversations"]))
        summary.insert(0, "rule_set", rule_set)
        for name, df in (
            ("turn", s.turn),
            ("conversation", s.conversation),
            ("summary", summary),
            ("rule_counts", s.rule_counts),
            ("missing", s.missing),
        ):
            parts[name].append(df)
    parts["invalid"] = [invalid_answers(em)]
    # Everything is computed before the first file is written.
    for name, df in em.items():
        write_parquet(df, o[f"em_{name}"], EM_TABLES[name])
    for name, frames in parts.items():
        df = pd.concat(frames, ignore_index=True)
        df.insert(0, "mode", p.mode)
        df.insert(0, "em_model", p.model)
        write_parquet(df, o[name])
    log.info(
        "model %s, mode %s: %d output files, %d emotion tags, %d binary answers; scored %d conversations",
        p.model,
        p.mode,
        ingest.n_files,
        len(em["em_emotion_tags"]),
        len(em["em_binary"]),
        len(parts["conversation"][0]),
    )
