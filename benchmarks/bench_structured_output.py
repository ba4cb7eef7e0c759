"""Invalid-answer rate of the real local model with and without structured output (run on demand).

Starts llama.cpp's server with SmolLM2-135M-Instruct on a free loopback port (the llm
environment: docs/local-model.md), asks the first ``--turns`` turns of the first ESConv training
conversation twice through the real protocol, once with each task's JSON schema as
``response_format`` and once without, with no repair request (``max_repairs: 0``, so the rate
is that of first answers), each into a fresh cache; stops the server by PID; prints per setting
the structured requests asked (drafts excluded: free text), how many stayed invalid, and the
mean latency. Usage::

    .venv-llm/bin/python benchmarks/bench_structured_output.py --turns 2
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from eibench.predict.adapters import LiveModel  # noqa: E402
from eibench.predict.collect import collect_shard  # noqa: E402
from eibench.predict.conversation import conversation_views  # noqa: E402
from eibench.predict.local_server import LocalServer, find_gguf, free_port  # noqa: E402
from eibench.public import esconv  # noqa: E402
from eibench.release.read import list_json_files, read_conversations  # noqa: E402
from eibench.release.tidy import gold_tables  # noqa: E402
from eibench.release.write import write_json  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--mirror", default=str(REPO.parent / "shared" / "data" / "esconv"))
    args = parser.parse_args()
    config = yaml.safe_load((REPO / "config" / "local-llm.yaml").read_text())
    entry = next(m for m in config["models"] if m["kind"] == "openai_compatible")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        write_json(esconv.to_release(esconv.read_esconv(args.mirror)["train"][0], 0, "train"), tmp / "gold" / "c.json")
        views = [
            dataclasses.replace(v, turns=v.turns[: args.turns])
            for v in conversation_views(gold_tables(read_conversations(list_json_files(tmp / "gold"))))
        ]
        results = {}
        with LocalServer(find_gguf(), port=free_port(), log_file=tmp / "server.log") as server:
            for structured in (True, False):
                model = LiveModel.from_config(
                    {**entry, "endpoint": server.endpoint, "structured_output": structured, "max_repairs": 0},
                    {"request_deadline_seconds": 600},
                )
                stats = collect_shard(
                    views,
                    model,
                    "default",
                    "absolute",
                    "v1",
                    tmp / f"cache-{structured}",
                    "default-shard-0",
                    tmp / f"out-{structured}",
                    show_progress=False,
                )
                structured_asked = stats["requests"] - len(views[0].turns)  # drafts are free text
                invalid = sum(v for k, v in stats["invalid"].items() if k != "draft")
                results["with schema" if structured else "without schema"] = {
                    "structured_requests": structured_asked,
                    "invalid": invalid,
                    "invalid_rate": invalid / structured_asked,
                    "invalid_by_task": stats["invalid"],
                    "mean_latency_s": stats["latency_seconds"] / stats["requests"],
                    "calls": stats["calls"],
                }
    print(json.dumps(results, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
