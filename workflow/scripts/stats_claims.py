"""Rule stats_claims: every pre-registered claim with its numbers and verdict."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import json

import pandas as pd
from eibench.runlog import rule_log
from eibench.stats.claims import verdicts
from eibench.tables import write_csv


def _records(path: str) -> list[dict]:
    """Rows of a table a rule may write empty (no claim asked for it)."""
    return pd.read_csv(path).to_dict("records") if open(path).read().strip() else []


with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    discr = pd.DataFrame(_records(i.discriminability_comparisons))
    humans = pd.read_csv(i.humans_paired) if open(i.humans_paired).read().strip() else pd.DataFrame()
    results = {
        "rank_pairs": pd.read_csv(i.rank_pairs),
        "discriminability_comparisons": {(r.metric_a, r.metric_b): r._asdict() for r in discr.itertuples(index=False)},
        "diagnosis": pd.read_csv(i.subgroups),
        "drift_pages": {r["metric"]: r for r in pd.read_csv(i.drift_page).to_dict("records")},
        "romantic": {(r["metric"], r["romantic"]): r for r in _records(i.romantic)},
        "profiles": json.load(open(i.profiles)),
        "humans": {m: g for m, g in humans.groupby("metric")} if len(humans) else {},
        # the resamples of the bootstrap p-values: a p of 0 means p < 2 / n_bootstrap
        "n_bootstrap": p.stats["n_bootstrap"],
    }
    design = json.load(open(i.design))
    table = verdicts(p.stats["claims"], results, p.stats["alpha"], design)
    write_csv(table, snakemake.output.table)
    log.info("verdicts: %s", dict(zip(table["id"], table["verdict"])))
