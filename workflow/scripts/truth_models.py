"""Rule truth_models: each simulated model's expected metrics from its abilities (exact binary
accuracies, Monte-Carlo curves for the others; with the random difficulties zero, and with this
cohort's drawn ones) beside its estimate and 95% interval, and each claim's estimand in the
planted and the null cohort (difficulties zero: the design's truth; and given this cohort's)."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import json

import numpy as np
import pandas as pd
from eibench.release.tidy import GOLD_TABLES
from eibench.runlog import rule_log
from eibench.synthetic.estimands import cohort_estimands
from eibench.synthetic.expected import METRICS as BINARY
from eibench.synthetic.expected_mc import (
    CURVE_METRICS,
    EXPECTED_METRICS,
    curves_from_frame,
    expected_scores,
    mc_summary,
    noise_variances,
)
from eibench.synthetic.simulate import SimulatedModel, indexed
from eibench.tables import read_parquet, write_csv

#: The capability of each metric of the table (the composite: all four, no single ability).
CAPABILITY = {**{m: c for m, (c, _) in BINARY.items()}, **CURVE_METRICS}

with rule_log(snakemake) as log:  # noqa: F821
    p, i, o = snakemake.params, snakemake.input, snakemake.output
    gold = {name: read_parquet(i[name], GOLD_TABLES[name]) for name in GOLD_TABLES}
    curves = curves_from_frame(pd.read_parquet(i.curves))
    intervals = pd.read_csv(i.intervals).set_index(["em_model", "metric"])
    index = indexed(gold)  # the gold indexed once for every model and cohort
    roles = {m: ("human" if prof == "human" else "model") for m, prof in p.profiles.items()}
    # the metrics whose answer noise an estimand reads (the discriminability claims')
    noisy = tuple(
        sorted(
            {
                c["params"][k]
                for c in p.claims
                if c["test"] == "discriminability_difference"
                for k in ("better", "worse")
            }
            & set(CURVE_METRICS)
        )
    )
    rows, estimands = [], []
    for cohort, paths, sim in (("planted", i.truth, p.simulation), ("null", i.null_truth, p.null_simulation)):
        frames: dict[bool, tuple[list, list, list]] = {False: ([], [], []), True: ([], [], [])}
        for name, path in zip(p.models, paths, strict=True):
            truth = json.load(open(path))
            model = SimulatedModel(truth["model"], truth["profile"], truth["ability_logit"])
            # random difficulties zero (the design's truth), and this cohort's drawn ones (a rerun's mean)
            for given in (False, True):
                conv, turn = expected_scores(
                    index, model, p.mode, sim, p.seed, p.romantic_category, curves, truth["conversations"], given
                )
                frames[given][0].append(conv.assign(em_model=name))
                frames[given][1].append(turn.assign(em_model=name))
                if noisy and roles[name] == "model":
                    noise = noise_variances(
                        index,
                        model,
                        p.mode,
                        sim,
                        p.seed,
                        p.romantic_category,
                        curves,
                        noisy,
                        truth["conversations"],
                        given,
                    )
                    frames[given][2].append(noise.assign(em_model=name))
            if cohort != "planted":
                continue
            zero, cond = frames[False][0][-1], frames[True][0][-1]
            for metric in EXPECTED_METRICS:
                expected, mc_se = mc_summary(zero.groupby("draw")[metric].mean().to_numpy())
                expected_cohort, mc_se_cohort = mc_summary(cond.groupby("draw")[metric].mean().to_numpy())
                est = intervals.loc[(name, metric)] if (name, metric) in intervals.index else None
                cap = CAPABILITY.get(metric)
                rows.append(
                    {
                        "em_model": name,
                        "profile": truth["profile"],
                        "metric": metric,
                        "ability_logit": truth["ability_logit"][cap] if cap else np.nan,
                        "expected": expected,
                        "mc_se": mc_se,
                        "expected_cohort": expected_cohort,
                        "mc_se_cohort": mc_se_cohort,
                        "exact": metric in BINARY,
                        "estimate": None if est is None else float(est["estimate"]),
                        "lo": None if est is None else float(est["lo"]),
                        "hi": None if est is None else float(est["hi"]),
                    }
                )
        zero_t, cond_t = (
            cohort_estimands(
                pd.concat(frames[g][0], ignore_index=True),
                pd.concat(frames[g][1], ignore_index=True),
                gold,
                roles,
                p.mode,
                p.claims,
                pd.concat(frames[g][2], ignore_index=True) if frames[g][2] else None,
            )
            for g in (False, True)
        )
        given = {
            "estimand": "estimand_cohort",
            "mc_se": "mc_se_cohort",
            "hardest_gap": "hardest_gap_cohort",
            "hardest_gap_mc_se": "hardest_gap_mc_se_cohort",
        }
        cond_t = cond_t.rename(columns=given)
        both = zero_t.merge(cond_t[["id", *given.values()]], on="id", how="outer")
        estimands.append(both.assign(cohort=cohort))
    table = pd.DataFrame(rows)
    table["covered"] = (table["lo"] <= table["expected"]) & (table["expected"] <= table["hi"])
    table["covered_cohort"] = (table["lo"] <= table["expected_cohort"]) & (table["expected_cohort"] <= table["hi"])
    write_csv(table, o.table)
    columns = [
        "cohort",
        "id",
        "estimand",
        "mc_se",
        "estimand_cohort",
        "mc_se_cohort",
        "draws",
        "hardest_gap",
        "hardest_gap_mc_se",
        "hardest_gap_cohort",
        "hardest_gap_mc_se_cohort",
    ]
    write_csv(pd.concat(estimands, ignore_index=True)[columns], o.estimands)
    log.info(
        "%d models: of %d intervals, %d cover the expected value with this cohort's difficulties, %d with them zero",
        len(p.models),
        len(table),
        int(table["covered_cohort"].sum()),
        int(table["covered"].sum()),
    )
