"""Rule stats_profiles: turn-level against whole-conversation rankings, and the models whose
order flips."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.runlog import rule_log
from eibench.stats.load import load_study, resamples
from eibench.stats.profiles import profiles
from eibench.tables import json_text, write_csv, write_text

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    study = load_study(i.conversation_scores, i.turn_scores, i.conversations, i.participants, p.roles, p.stats)
    flips, summary = profiles(study, study.with_role("model"), resamples(study, p.stats, p.seed), p.stats["alpha"])
    write_csv(flips, snakemake.output.flips)
    write_text(json_text(summary), snakemake.output.summary)
    log.info("%s", summary)
