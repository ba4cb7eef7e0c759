"""Rule predict_simulated: write every simulated model's EM output files for one mode."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from pathlib import Path

from eibench.release.tidy import GOLD_TABLES
from eibench.release.write import write_json
from eibench.runlog import rule_log
from eibench.synthetic.simulate import draw_ability, human_subset, indexed, simulate_outputs
from eibench.tables import read_parquet

with rule_log(snakemake) as log:  # noqa: F821
    p, o = snakemake.params, snakemake.output
    tables = {name: read_parquet(snakemake.input[name], GOLD_TABLES[name]) for name in GOLD_TABLES}
    ids = list(tables["conversations"]["conversation_id"])
    records = indexed(tables)  # once for every model
    # Outputs are listed in the order of p.profiles (workflow/rules/predict.smk).
    for (name, profile), outdir, truth in zip(p.profiles.items(), o.predictions, o.truth, strict=True):
        model = draw_ability(name, profile, p.simulation, p.seed)
        subset = human_subset(ids, p.simulation["human"]["n_conversations"], p.seed) if profile == "human" else None
        outputs = simulate_outputs(records, model, p.mode, p.simulation, p.seed, p.romantic_category, subset)
        Path(outdir).mkdir(parents=True, exist_ok=True)
        for file_name, obj in outputs.items():
            write_json(obj, Path(outdir) / file_name)
        write_json(
            {
                "model": model.name,
                "profile": model.profile,
                "ability_logit": model.ability,
                "conversations": sorted(out["conversationId"] for out in outputs.values()),
            },
            truth,
        )
        log.info("model %s (%s), mode %s: %d output files", model.name, model.profile, p.mode, len(outputs))
