"""Rule stats_uncertainty: bootstrap intervals of every model x metric, paired differences
between evaluated models, rank intervals."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.runlog import rule_log
from eibench.stats.load import available, load_study, principal_metrics, resamples
from eibench.stats.uncertainty import interval_metrics, model_intervals, paired_differences, rank_intervals
from eibench.tables import write_csv

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    study = load_study(i.conversation_scores, i.turn_scores, i.conversations, i.participants, p.roles, p.stats)
    weights = resamples(study, p.stats, p.seed)
    models = study.with_role("model")
    # The cohort's principal metrics (statistics.principal_metrics), not the registry's: a
    # principal metric without any value has no row here, and figure_profiles says so.
    metrics = available(study, interval_metrics(principal_metrics(p.stats)), range(len(study.models)))
    write_csv(model_intervals(study, metrics, weights), snakemake.output.intervals)
    principal = available(study, ["composite", *principal_metrics(p.stats)], models)
    write_csv(paired_differences(study, principal, weights, models), snakemake.output.paired)
    write_csv(rank_intervals(study, principal, weights, models), snakemake.output.ranks)
    log.info("%d models, %d metrics, %d resamples", len(study.models), len(metrics), len(weights))
