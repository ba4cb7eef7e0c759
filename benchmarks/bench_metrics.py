"""The fast scorer against the plain reference scorer on a 10x cohort, in one run.

Generates a synthetic cohort (default 2,000 conversations) and the outputs of 11 simulated
models, then scores every model under both rule sets (what the pipeline's scoring stage does)
with the fast implementation (in a child process, to measure its peak memory) and with the
reference scorer of tests/oracle. Prints both times, the ratio and the fast scorer's peak
resident memory. Usage:

    .venv/bin/python benchmarks/bench_metrics.py [--conversations 2000] [--models 11]
"""

from __future__ import annotations

import argparse
import copy
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

RULE_SETS = ("parity", "strict")


def setup(root: Path, n_conversations: int, n_models: int) -> list[str]:
    from eibench.release.read import list_json_files, read_conversations, read_em_outputs
    from eibench.release.tidy import EM_TABLES, GOLD_TABLES, em_tables, gold_tables
    from eibench.release.write import write_json
    from eibench.synthetic.cohort import generate_cohort
    from eibench.synthetic.simulate import draw_ability, simulate_outputs
    from eibench.tables import write_parquet

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    params = copy.deepcopy(config["cohorts"]["synthetic"]) | {"n_conversations": n_conversations}
    seed, sim = config["seed"], config["simulation"]
    files, _ = generate_cohort(params, seed)
    (root / "conversations").mkdir()
    for name, obj in files.items():
        write_json(obj, root / "conversations" / name)
    gold = gold_tables(read_conversations(list_json_files(root / "conversations")))
    (root / "gold").mkdir()
    for name, df in gold.items():
        write_parquet(df, root / "gold" / f"{name}.parquet", GOLD_TABLES[name])
    models = [f"sim-{i:02d}" for i in range(1, n_models + 1)]
    for model in models:
        outs = simulate_outputs(
            gold, draw_ability(model, "model", sim, seed), "default", sim, seed, params["romantic_category"]
        )
        (root / "em" / model).mkdir(parents=True)
        for name, obj in outs.items():
            write_json(obj, root / "em" / model / name)
        em = em_tables(read_em_outputs(list_json_files(root / "em" / model), model, "default"))
        (root / "tables" / model).mkdir(parents=True)
        for name, df in em.items():
            write_parquet(df, root / "tables" / model / f"{name}.parquet", EM_TABLES[name])
    return models


def fast_child(root: Path, models: list[str]) -> None:
    """Run in a child process: read the tidy tables, score every model, report as JSON."""
    from eibench.metrics.gold import GoldIndex
    from eibench.metrics.score import score_rule_sets
    from eibench.release.tidy import EM_TABLES, GOLD_TABLES
    from eibench.tables import read_parquet

    start = time.perf_counter()
    gold = {name: read_parquet(root / "gold" / f"{name}.parquet", GOLD_TABLES[name]) for name in GOLD_TABLES}
    ems = {
        m: {name: read_parquet(root / "tables" / m / f"{name}.parquet", EM_TABLES[name]) for name in EM_TABLES}
        for m in models
    }
    loaded = time.perf_counter()
    index = GoldIndex.build(gold)
    for model in models:
        score_rule_sets(index, ems[model], RULE_SETS)
    done = time.perf_counter()
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"read_s": loaded - start, "score_s": done - loaded, "peak_mib": peak_kib / 1024}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=2000)
    parser.add_argument("--models", type=int, default=11)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        root = Path(args.child)
        fast_child(root, json.loads((root / "models.json").read_text()))
        return

    from eibench.release.read import list_json_files

    from tests.oracle.reference_scorer import reference_scores

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        models = setup(root, args.conversations, args.models)
        (root / "models.json").write_text(json.dumps(models))
        print(f"setup (cohort, {len(models)} models' outputs, tidy tables): {time.perf_counter() - t0:.1f} s")

        child = subprocess.run(
            [sys.executable, __file__, "--child", str(root)], capture_output=True, text=True, check=True
        )
        fast = json.loads(child.stdout.strip().splitlines()[-1])

        gold_files = list_json_files(root / "conversations")
        t0 = time.perf_counter()
        for model in models:
            em_files = list_json_files(root / "em" / model)
            for rule_set in RULE_SETS:
                reference_scores(gold_files, em_files, rule_set)
        oracle_s = time.perf_counter() - t0

    print(f"cohort: {args.conversations} conversations x {len(models)} models, rule sets {', '.join(RULE_SETS)}")
    print(
        f"fast scorer        {fast['score_s']:8.2f} s   (bar: <= 30 s)   + reading tidy tables {fast['read_s']:.2f} s"
    )
    print(f"reference scorer   {oracle_s:8.2f} s")
    print(f"ratio              {oracle_s / fast['score_s']:8.1f} x   (bar: >= 20 x)")
    print(f"fast peak memory   {fast['peak_mib']:8.0f} MiB (bar: <= 2048 MiB; whole child process)")


if __name__ == "__main__":
    main()
