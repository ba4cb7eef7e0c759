"""Rule ingest_predictions: validate one model's EM output files (one mode) into tidy tables."""

from pathlib import Path

from eibench.release.read import list_json_files, read_em_outputs
from eibench.release.tidy import EM_TABLES, em_tables
from eibench.runlog import rule_log
from eibench.tables import read_parquet, write_parquet

with rule_log(snakemake) as log:  # noqa: F821
    p = snakemake.params
    sources = snakemake.input.predictions
    sources = [sources] if isinstance(sources, str) else list(sources)
    # A simulated model's outputs arrive as one folder; an outputs_dir model's as its files.
    files = sorted(f for s in map(Path, sources) for f in (list_json_files(s) if s.is_dir() else [s]))
    if not files:
        raise FileNotFoundError(
            f"model {p.model!r}, mode {p.mode!r}: no EM output files (*.json) in {', '.join(sources)}; "
            "collect predictions for this mode or remove the model/mode from the config"
        )
    known = set(read_parquet(snakemake.input.conversations)["conversation_id"])
    parsed = read_em_outputs(files, p.model, p.mode, known, report_all=p.report_all)
    tables = em_tables(parsed)
    keys = tables["em_pairwise"]["key"].astype(str)
    odd = sorted(set(keys[~keys.str.fullmatch(r"0|[1-9][0-9]*")]))
    if odd:
        log.warning("model %s, mode %s: %d pairwise picks are keyed by something other than the comparison's "
                    "position (%s); the scorer matches picks by position ('0', '1', ...), so these match no "
                    "comparison (see docs/metrics.md)", p.model, p.mode, int((~keys.str.fullmatch(r"0|[1-9][0-9]*")).sum()),
                    ", ".join(odd[:5]))
    for name, df in tables.items():
        write_parquet(df, snakemake.output[name], EM_TABLES[name])
    log.info("model %s, mode %s: %d output files, %d emotion tags, %d binary answers",
             p.model, p.mode, len(files), len(tables["em_emotion_tags"]), len(tables["em_binary"]))
