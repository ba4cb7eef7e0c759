"""Rule figure_subgroups: adjusted diagnosis effects per metric and the composite per topic."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import pandas as pd
from eibench.report import stat_figures, style
from eibench.report.stats_numbers import untestable_reason
from eibench.runlog import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    diagnosis = stat_figures.read_table(snakemake.input.diagnosis)
    topics = stat_figures.read_table(snakemake.input.topics)
    # The claims' verdicts decide whether the diagnosis contrast is testable here, not whether
    # the mixed models happened to give estimates.
    claims = pd.read_csv(snakemake.input.claims, keep_default_na=False, na_values=[""])
    untestable = untestable_reason(claims, "diagnosis_effect")
    fig = stat_figures.subgroups_topics(
        diagnosis,
        topics,
        stat_figures.provenance(snakemake),
        topic_metric=snakemake.params.topic_metric,
        diagnosis_untestable=untestable,
    )
    style.save(fig, snakemake.output.figure)
    log.info("drew %d diagnosis rows and %d topic rows", len(diagnosis), len(topics))
    if untestable:
        log.info("diagnosis contrast not testable: %s", untestable)
