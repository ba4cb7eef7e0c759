"""Rule figure_subgroups: adjusted diagnosis effects per metric and the composite per topic."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.report import stat_figures, style
from eibench.runlog import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    diagnosis = stat_figures.read_table(snakemake.input.diagnosis)
    topics = stat_figures.read_table(snakemake.input.topics)
    fig = stat_figures.subgroups_topics(
        diagnosis, topics, stat_figures.provenance(snakemake), topic_metric=snakemake.params.topic_metric
    )
    style.save(fig, snakemake.output.figure)
    log.info("drew %d diagnosis rows and %d topic rows", len(diagnosis), len(topics))
