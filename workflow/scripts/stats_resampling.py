"""Rule stats_resampling: the composite under every resampling scheme (leaderboard rows,
adjacent pairs), its sensitivity to the pillar weights, the reliability-versus-conversations
curve and the per-topic and per-group breakdowns."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import numpy as np
import pandas as pd
from eibench.runlog import rule_log
from eibench.seeding import rng_for
from eibench.stats.breakdowns import breakdown
from eibench.stats.load import load_study, resamples
from eibench.stats.ranks import reliability_curve
from eibench.stats.uncertainty import adjacent_pairs, scheme_table
from eibench.stats.weights import rank_stability
from eibench.tables import json_text, write_csv, write_text

METRIC = "composite"

with rule_log(snakemake) as log:  # noqa: F821
    p, i, o = snakemake.params, snakemake.input, snakemake.output
    u = p.uncertainty
    if u["primary"] not in u["schemes"]:
        raise ValueError(
            f"config uncertainty.primary: {u['primary']!r} is not one of uncertainty.schemes "
            f"({', '.join(u['schemes'])}); add it to schemes or choose one of them"
        )
    study = load_study(i.conversation_scores, i.turn_scores, i.conversations, i.participants, p.roles, p.stats)
    models = study.with_role("model")
    weights = {s: resamples(study, p.stats, p.seed, scheme=s) for s in u["schemes"]}
    write_csv(scheme_table(study, METRIC, models, weights), o.schemes)
    write_csv(adjacent_pairs(study, METRIC, models, weights, p.stats["alpha"]), o.adjacent)
    table, summary = rank_stability(
        study,
        models,
        u["weights"]["concentration"],
        u["weights"]["n_draws"],
        rng_for(p.seed, "weights", p.stats["mode"], p.stats["rule_set"]),
    )
    write_csv(table, o.weights)
    write_text(json_text(summary), o.weights_summary)
    write_csv(
        reliability_curve(
            study,
            METRIC,
            models,
            u["reliability"]["sizes"],
            u["reliability"]["n_splits"],
            rng_for(p.seed, "reliability-curve", p.stats["mode"], p.stats["rule_set"]),
        ),
        o.reliability,
    )
    shown = study.with_role("model") + study.with_role("human")
    group = np.array(["diagnosis" if d else "no diagnosis" for d in study.diagnosed], dtype=object)
    # a profile without traits records no diagnosis, which is not none
    group[~study.diagnosis_recorded()] = "diagnosis not recorded"
    group[study.participant < 0] = None  # a conversation without a known participant has no group
    primary = weights[u["primary"]]
    write_csv(
        pd.concat(
            [
                breakdown(study, METRIC, shown, study.category, primary, "topic"),
                breakdown(study, METRIC, shown, group, primary, "group"),
            ],
            ignore_index=True,
        ),
        o.breakdowns,
    )
    log.info(
        "%d models, schemes %s, leader %s (equal weights: %s)",
        len(models),
        ", ".join(weights),
        summary["leader"],
        summary["equal_weights_leader"],
    )
