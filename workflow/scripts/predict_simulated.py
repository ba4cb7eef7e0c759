"""Rule predict_simulated: write one simulated model's EM output files for one mode."""

from pathlib import Path

from eibench.release.tidy import GOLD_TABLES
from eibench.release.write import write_json
from eibench.runlog import rule_log
from eibench.synthetic.simulate import draw_ability, human_subset, simulate_outputs
from eibench.tables import read_parquet

with rule_log(snakemake) as log:  # noqa: F821
    p = snakemake.params
    tables = {name: read_parquet(snakemake.input[name], GOLD_TABLES[name]) for name in GOLD_TABLES}
    model = draw_ability(p.model, p.profile, p.simulation, p.seed)
    subset = None
    if p.profile == "human":
        subset = human_subset(list(tables["conversations"]["conversation_id"]), p.simulation["human"]["n_conversations"], p.seed)
    outputs = simulate_outputs(tables, model, p.mode, p.simulation, p.seed, p.romantic_category, subset)
    outdir = Path(snakemake.output.predictions)
    outdir.mkdir(parents=True, exist_ok=True)
    for name, obj in outputs.items():
        write_json(obj, outdir / name)
    write_json({"model": model.name, "profile": model.profile, "ability_logit": model.ability,
                "conversations": sorted(o["conversationId"] for o in outputs.values())}, snakemake.output.truth)
    log.info("model %s (%s), mode %s: %d output files", model.name, model.profile, p.mode, len(outputs))
