"""Prediction collection against the loopback fake server (tests/predict/fake_llm.py),
answering at once: requests per second with concurrency 16, and the time of a fully cached
rerun of 200 conversations x 1 model. Usage:

    .venv/bin/python benchmarks/bench_collect.py [--conversations 200] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import copy
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()

    from eibench.predict.adapters import LiveModel
    from eibench.predict.collect import collect_shard
    from eibench.predict.conversation import conversation_views
    from eibench.release.read import list_json_files, read_conversations
    from eibench.release.tidy import gold_tables
    from eibench.release.write import write_json
    from eibench.synthetic.cohort import generate_cohort

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    params = copy.deepcopy(config["cohorts"]["synthetic"]) | {"n_conversations": args.conversations}
    # The server runs in its own process, as a real endpoint would (not competing for this
    # process's interpreter lock).
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; sys.path.insert(0, sys.argv[1]);"
            "from tests.predict.fake_llm import FakeLLM; llm = FakeLLM().__enter__(); print(llm.base_url, flush=True);"
            "sys.stdin.read()",
            str(REPO),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    base_url = server.stdout.readline().strip()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files, _ = generate_cohort(params, config["seed"])
        (root / "conversations").mkdir()
        for name, obj in files.items():
            write_json(obj, root / "conversations" / name)
        views = conversation_views(gold_tables(read_conversations(list_json_files(root / "conversations"))))
        model = LiveModel.from_config(
            {
                "name": "bench",
                "kind": "openai_compatible",
                "model_id": "fake-1",
                "endpoint": base_url + "/v1",
                "api_key_env": None,
                "concurrency": args.concurrency,
            }
        )

        start = time.perf_counter()
        first = collect_shard(
            views, model, "default", "absolute", "v1", root / "cache", "shard-0", root / "out", show_progress=False
        )
        fill = time.perf_counter() - start
        start = time.perf_counter()
        second = collect_shard(
            views, model, "default", "absolute", "v1", root / "cache", "shard-0", root / "out2", show_progress=False
        )
        cached = time.perf_counter() - start
        same = all((root / "out" / p.name).read_bytes() == p.read_bytes() for p in (root / "out2").iterdir())
    server.stdin.close()
    server.wait(timeout=30)

    print(f"{args.conversations} conversations x 1 model, {first['requests']} requests, concurrency {args.concurrency}")
    print(f"uncached collection   {fill:7.1f} s  = {first['calls'] / fill:7.0f} requests/s   (bar: >= 200/s)")
    print(
        f"fully cached rerun    {cached:7.1f} s  ({second['cache_hits']} cache hits, {second['calls']} calls; bar: <= "
        f"10 s)"
    )
    print(f"identical outputs     {same}")


if __name__ == "__main__":
    main()
