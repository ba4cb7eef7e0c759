"""Rule stats_subgroups: diagnosis vs none, participant-level permutation tests and mixed models."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.runlog import rule_log
from eibench.seeding import rng_for
from eibench.stats.load import load_study
from eibench.stats.subgroups import diagnosis_effects
from eibench.tables import write_csv

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    study = load_study(i.conversation_scores, i.turn_scores, i.conversations, i.participants, p.roles, p.stats)
    metrics = sorted(
        {"emotion_f1", "emotion_va", "tracking", "binary_om_acc", "binary_hp_acc", "evaluation"}
        | {c["params"]["metric"] for c in p.stats["claims"] if c["test"] == "diagnosis_effect"}
    )
    table = diagnosis_effects(study, metrics, study.with_role("model"), rng_for(p.seed, "permutation"))
    write_csv(table, snakemake.output.table)
    log.info("diagnosis effects for %s", metrics)
