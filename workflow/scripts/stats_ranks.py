"""Rule stats_ranks: rank independence of the principal metrics."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.runlog import rule_log
from eibench.seeding import rng_for
from eibench.stats.load import available, load_study, resamples
from eibench.stats.ranks import rank_independence
from eibench.tables import json_text, write_csv, write_text

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    study = load_study(i.conversation_scores, i.turn_scores, i.conversations, i.participants, p.roles, p.stats)
    models = study.with_role("model")
    metrics = available(study, p.stats["principal_metrics"], models)
    pairs, reliability, summary = rank_independence(
        study,
        metrics,
        models,
        resamples(study, p.stats, p.seed),
        p.stats["independence_margin"],
        p.stats["split_halves"],
        rng_for(p.seed, "ranks"),
        p.stats["alpha"],
    )
    write_csv(pairs, snakemake.output.pairs)
    write_csv(reliability, snakemake.output.reliability)
    write_text(json_text(summary), snakemake.output.summary)
    log.info("%d metrics; %s", len(metrics), summary)
