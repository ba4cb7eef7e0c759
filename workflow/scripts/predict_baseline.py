"""Rule predict_baseline: one offline baseline's EM output files for one mode."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from pathlib import Path

from eibench.predict.baselines.chance import chance_outputs
from eibench.predict.baselines.lexicon import lexicon_outputs
from eibench.predict.baselines.prior import prior_outputs
from eibench.predict.conversation import conversation_views
from eibench.release.tidy import GOLD_TABLES
from eibench.release.write import write_json
from eibench.runlog import rule_log
from eibench.tables import read_parquet

with rule_log(snakemake) as log:  # noqa: F821
    p = snakemake.params
    tables = {name: read_parquet(snakemake.input[name], GOLD_TABLES[name]) for name in GOLD_TABLES}
    if p.method == "chance":
        outputs = chance_outputs(conversation_views(tables), p.model, p.mode, p.seed)
    elif p.method == "prior":
        outputs = prior_outputs(conversation_views(tables), tables, p.model, p.mode)
    elif p.method == "lexicon":
        outputs = lexicon_outputs(tables, p.model, p.mode)
    else:  # the optional extra: imported here so the default environment never needs torch
        from eibench.predict.baselines.embedding import embedding_outputs

        outputs = embedding_outputs(tables, p.model, p.mode)
    outdir = Path(snakemake.output.predictions)
    outdir.mkdir(parents=True, exist_ok=True)
    for name, obj in outputs.items():
        write_json(obj, outdir / name)
    log.info("baseline %s (%s), mode %s: %d output files", p.model, p.method, p.mode, len(outputs))
