"""Rule stats_design: the cohort's design as the statistics see it (participant groups, topics,
turns, models, raters, the metrics with values), read by the claims, the simulation and the paper."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.runlog import rule_log
from eibench.stats.design import cohort_design
from eibench.stats.load import load_study
from eibench.tables import json_text, write_text

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    study = load_study(i.conversation_scores, i.turn_scores, i.conversations, i.participants, p.roles, p.stats)
    design = cohort_design(study)
    write_text(json_text(design), snakemake.output.design)
    log.info(
        "%d conversations, %d models, %d human raters, categories %s",
        design["n_conversations"],
        len(design["models"]),
        len(design["humans"]),
        design["categories"],
    )
