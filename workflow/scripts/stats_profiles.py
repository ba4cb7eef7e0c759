"""Rule stats_profiles: turn-level against whole-conversation rankings, and the models whose
order flips."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.runlog import rule_log
from eibench.stats.discriminability import pairwise_resamples
from eibench.stats.load import load_study, resamples
from eibench.stats.profiles import profiles
from eibench.tables import json_text, write_csv, write_text

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    study = load_study(i.conversation_scores, i.turn_scores, i.conversations, i.participants, p.roles, p.stats)
    models = study.with_role("model")
    weights = resamples(study, p.stats, p.seed)
    # The flips' Holm-corrected tests draw more resamples from the same seeded stream.
    n_pairs = pairwise_resamples(len(models), p.stats["alpha"], p.stats["n_bootstrap"])
    pair_weights = weights if n_pairs == len(weights) else resamples(study, p.stats, p.seed, n=n_pairs)
    flips, summary = profiles(study, models, weights, p.stats["alpha"], pair_weights=pair_weights)
    write_csv(flips, snakemake.output.flips)
    write_text(json_text(summary), snakemake.output.summary)
    log.info("%s", summary)
