"""Run one collection shard in its own process (used by the kill-and-resume test).

python tests/predict/run_collect.py <gold parquet dir> <endpoint> <cache dir> <out dir>
"""

from __future__ import annotations

import sys
from pathlib import Path

from eibench.predict.adapters import LiveModel
from eibench.predict.collect import collect_shard
from eibench.predict.conversation import conversation_views
from eibench.release.tidy import GOLD_TABLES
from eibench.tables import read_parquet


def main(gold_dir: str, endpoint: str, cache_dir: str, out_dir: str) -> None:
    tables = {name: read_parquet(Path(gold_dir) / f"{name}.parquet", GOLD_TABLES[name]) for name in GOLD_TABLES}
    model = LiveModel.from_config(
        {
            "name": "fake-model",
            "kind": "openai_compatible",
            "model_id": "fake-1",
            "endpoint": endpoint,
            "api_key_env": None,
            "concurrency": 4,
        }
    )
    collect_shard(
        conversation_views(tables),
        model,
        "default",
        "absolute",
        "v1",
        cache_dir,
        "shard-0",
        out_dir,
        show_progress=False,
    )


if __name__ == "__main__":
    main(*sys.argv[1:5])
