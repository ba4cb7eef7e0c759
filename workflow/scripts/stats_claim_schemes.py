"""Rule stats_claim_schemes: every pre-registered claim's estimate, interval and verdict under
every resampling scheme of the config (uncertainty.schemes), side by side."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import json

import pandas as pd
from eibench.runlog import rule_log
from eibench.seeding import rng_for
from eibench.stats.claim_schemes import claims_by_scheme
from eibench.stats.discriminability import pairwise_resamples
from eibench.stats.load import load_study, resamples
from eibench.tables import write_csv

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    study = load_study(i.conversation_scores, i.turn_scores, i.conversations, i.participants, p.roles, p.stats)
    weights = {s: resamples(study, p.stats, p.seed, scheme=s) for s in p.schemes}
    # The profile flips' pairwise tests draw more resamples, as rule stats_profiles does.
    n_pairs = pairwise_resamples(len(study.with_role("model")), p.stats["alpha"], p.stats["n_bootstrap"])
    flips = any(c["test"] == "profile_flips" for c in p.stats["claims"]) and n_pairs > p.stats["n_bootstrap"]
    pair_weights = {s: resamples(study, p.stats, p.seed, n=n_pairs, scheme=s) for s in p.schemes} if flips else None
    table = claims_by_scheme(
        study,
        p.stats["claims"],
        p.stats,
        weights,
        lambda: rng_for(p.seed, "ranks"),  # rule stats_ranks' generator, fresh for each scheme
        pd.read_csv(i.subgroups),
        json.load(open(i.design)),
        pair_weights=pair_weights,
    )
    write_csv(table, snakemake.output.table)
    log.info(
        "verdicts by scheme: %s",
        {s: dict(zip(g["id"], g["verdict"])) for s, g in table.groupby("scheme", sort=False)},
    )
