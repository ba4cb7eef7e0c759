"""Rules stats_operating and stats_operating_curves: the operating characteristics of every
claim's verdict rule over simulated studies of this design, and the design curves."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import json
from dataclasses import replace

import pandas as pd
from eibench.runlog import rule_log
from eibench.seeding import rng_for
from eibench.stats import operating as op
from eibench.stats.simulation import generator_design, null_generator, planted_generator
from eibench.stats.simulation_batch import _design, shared_weights
from eibench.stats.testability import unmet_needs
from eibench.tables import write_csv

with rule_log(snakemake) as log:  # noqa: F821
    p, i, out = snakemake.params, snakemake.input, snakemake.output  # noqa: F821
    st, cfg = p.stats, p.stats["operating"]
    alpha, n = st["alpha"], cfg["n_studies"]
    cohort_design = json.load(open(i.design))
    design = generator_design(cohort_design, alpha, st["claims"])
    null, planted = null_generator(design), planted_generator(st["simulation"]["planted"], design)
    claims = st["claims"]
    unmet = lambda c: unmet_needs(c, cohort_design, alpha)  # noqa: E731
    keep, skipped = op.untestable_set_aside(claims, *op.simulated_claims(claims), unmet)
    # The claims the design curves follow; a curve whose claim is not simulated has no numbers.
    c1, c1_reason = op.curve_claim("independence_claim", cfg["independence_claim"], claims, keep, skipped)
    c3, c3_reason = op.curve_claim("diagnosis_claim", cfg["diagnosis_claim"], claims, keep, skipped)

    def rngs(*names: str, count: int = n):
        return [rng_for(p.seed, "operating", str(cfg["seed"]), *names, str(k)) for k in range(count)]

    shared = rng_for(p.seed, "operating", str(cfg["seed"]), "resampling")
    weights = shared_weights(null, cfg["n_bootstrap"], shared)
    fixed_design = _design(null, rng_for(p.seed, "operating", str(cfg["seed"]), "design"))

    if p.part == "claims":
        tables = {}
        for kind, g in (("null", null), ("planted", planted)):
            tables[kind] = op.simulate_verdicts(
                g, keep, rngs(kind, "studies"), rngs(kind, "models"), weights, alpha, fixed_design
            )
            tables[kind].insert(0, "cohort", kind)
        # The independence claim is false when the abilities' Kendall tau equals its margin.
        indep = [c for c in keep if c["test"] == "rank_independence"]
        margin = None
        if indep:
            at = op.margin_correlation(indep[0]["params"]["margin"])
            margin = op.simulate_verdicts(
                replace(null, ability_correlation=at),
                indep,
                rngs("margin", "studies"),
                rngs("margin", "models"),
                weights,
                alpha,
                fixed_design,
            )
            margin.insert(0, "cohort", "at margin")
        truth = op.estimands(planted, keep, fixed_design)
        signs = {c["id"]: op.planted_makes_true(c, planted, truth) for c in keep}
        left_out = {c["id"]: op.family_left_out(c, claims, keep, unmet) for c in keep}
        table = op.operating_table(
            claims, tables["null"], tables["planted"], margin, truth, signs, skipped, alpha, left_out
        )
        write_csv(table, out.claims)
        rows = [tables["null"], tables["planted"]] + ([margin] if margin is not None else [])
        write_csv(pd.concat(rows, ignore_index=True), out.verdicts)
        log.info(
            "operating characteristics of %d claims (%d not simulated) over %d studies per cohort",
            len(claims),
            len(skipped),
            n,
        )
    else:
        # The independence claim against the number of models (claim true: independent abilities).
        fixed = lambda tag: (  # noqa: E731
            lambda v: (
                rngs(tag, str(v), "studies"),
                rngs(tag, str(v), "models"),
                rng_for(p.seed, "operating", str(cfg["seed"]), "design"),
            )
        )
        same_weights = lambda v, g: weights  # noqa: E731 - one design of this study's conversations

        if c1 is not None and not c1_reason:
            # The planted generator, as for the C3 curve and the operating table: its abilities
            # are independent (C1 true), and the family's other claims have their planted effects.
            points = [(k, replace(planted, n_models=k)) for k in cfg["models"]]
            models_curve = op.verdict_curve(
                op.holm_family(c1, keep), c1["id"], points, fixed("models"), same_weights, alpha
            )
            # The margin: the smallest true tau the claim's rule detects ('not supported': related),
            # a verdict of the pairs' intervals that no family adjustment changes: the claim alone.
            taus = [(t, replace(null, ability_correlation=op.margin_correlation(t))) for t in cfg["tau_grid"]]
            margins = op.verdict_curve([c1], c1["id"], taus, fixed("tau"), same_weights, alpha)
            margin_value = c1["params"]["margin"]
        else:
            models_curve, margins, margin_value = (
                op.not_computed_curve(c1_reason),
                op.not_computed_curve(c1_reason),
                None,
            )
        models_curve.insert(0, "claim", c1["id"] if c1 is not None else "")
        models_curve["design"] = null.n_models  # this design's own number of models
        write_csv(models_curve, out.models)
        margins.insert(0, "claim", c1["id"] if c1 is not None else "")
        margins.insert(1, "margin", margin_value)
        margins.insert(2, "n_models", null.n_models)
        write_csv(margins, out.margins)
        # The diagnosis claim against the number of participants: drawn designs of this study's
        # size with that many participants (the share diagnosed kept), the claim's Holm family as
        # the pipeline adjusts it (every simulated claim of its family with a p-value).
        if c3 is not None and not c3_reason:
            family = op.holm_family(c3, keep)
            share = null.n_diagnosed / max(null.n_recorded, 1)  # of the participants whose diagnosis is recorded
            points = [
                (k, planted.drawn(n_participants=k, n_diagnosed=max(1, min(k - 1, round(k * share)))))
                for k in cfg["participants"]
            ]
            part_rngs = lambda v: (  # noqa: E731
                rngs("participants", str(v), "studies"),
                rngs("participants", str(v), "models"),
                rng_for(p.seed, "operating", str(cfg["seed"]), "participants", str(v), "design"),
            )
            part_curve = op.verdict_curve(family, c3["id"], points, part_rngs, same_weights, alpha)
        else:
            part_curve = op.not_computed_curve(c3_reason)
        part_curve.insert(0, "claim", c3["id"] if c3 is not None else "")
        # The curve's designs record every participant's diagnosis: one of its points is this
        # design only when this cohort records them all (else no point is: NaN).
        part_curve["design"] = null.n_participants if null.n_recorded == null.n_participants else float("nan")
        write_csv(part_curve, out.participants)
        # Reliability and signal-to-noise of the models' means against the number of conversations.
        # Only the metrics this cohort has values of: the others have no reliability here.
        present = set(cohort_design.get("metrics_models", []))
        rel = op.reliability_curve(
            null,
            [m for m in ("emotion_f1", "binary_om_acc", "pairwise_acc", "composite") if m in present],
            cfg["conversations"],
            lambda v: rngs("conversations", str(v), "studies"),
            lambda v: rng_for(p.seed, "operating", str(cfg["seed"]), "conversations", str(v)),
        )
        write_csv(rel, out.conversations)
        log.info(
            "curves: models %s, participants %s, conversations %s",
            cfg["models"],
            cfg["participants"],
            cfg["conversations"],
        )
