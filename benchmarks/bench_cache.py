"""The response cache alone: appends per second to a job's journal, the restart of a job (reading
its journal back), the snapshot published at its end, lookups in other jobs' snapshots, and the
verified merge of all shards. Entries are the size of real protocol answers (a 2 kB request, a
300-byte answer). Usage:

    .venv/bin/python benchmarks/bench_cache.py [--shards 4] [--entries 20000] [--dir /path/on/nfs]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--entries", type=int, default=20000, help="per shard")
    parser.add_argument("--dir", type=Path, default=None, help="where the cache goes (default: a temporary folder)")
    args = parser.parse_args()
    if args.shards < 2:
        parser.error("--shards: at least 2 (lookups go to the other shards' snapshots)")

    from eibench.predict.cache import MERGED_NAME, Entry, ResponseCache, request_key
    from eibench.predict.cache_merge import merge_model

    def key(shard: int, i: int) -> str:
        return request_key({"model_id": "bench"}, "v1", [{"role": "user", "content": f"{shard}/{i}"}], 0)

    request = {"messages": [{"role": "user", "content": "x" * 2000}]}
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        folder = Path(tmp) / "bench-model"
        puts = close = 0.0
        for shard in range(args.shards):
            cache = ResponseCache(folder, f"default-shard-{shard}")
            start = time.perf_counter()
            for i in range(args.entries):
                cache.put(key(shard, i), request, Entry("y" * 300, 2000, 100, 1.0, "2026-01-01T00:00:00+00:00"))
            puts += time.perf_counter() - start
            start = time.perf_counter()
            cache.close()
            close += time.perf_counter() - start
        start = time.perf_counter()
        cache = ResponseCache(folder, "default-shard-0")  # a restart: its journal read back
        reopen = time.perf_counter() - start
        start = time.perf_counter()
        found = sum(cache.get(key(1 + i % (args.shards - 1), i)) is not None for i in range(args.entries))
        lookups = time.perf_counter() - start
        cache.close()
        start = time.perf_counter()
        report = merge_model(folder)
        merge = time.perf_counter() - start
        size = (folder / MERGED_NAME).stat().st_size / 1e6

    n = args.shards * args.entries
    print(f"{args.shards} shards x {args.entries} entries (2 kB request, 300 B answer)")
    print(f"journal appends       {n / puts:9.0f} entries/s")
    print(f"snapshot at job end   {close / args.shards:9.2f} s per shard")
    print(f"restart (read back)   {reopen:9.2f} s for {args.entries} entries")
    print(f"lookups in snapshots  {args.entries / lookups:9.0f} /s ({found} of {args.entries} found)")
    print(
        f"verified merge        {merge:9.2f} s: {report.entries} entries, {report.duplicates} duplicates, {size:.0f} MB"
    )


if __name__ == "__main__":
    main()
