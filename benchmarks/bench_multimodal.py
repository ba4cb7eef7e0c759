"""Multimodal EmoBench-M items through the adapters and the response cache, against the loopback
fake server (tests/predict/fake_llm.py): per item, the bytes of the request body sent and of the
request stored in the cache (the media as digests), the size of the cache files (the job's
journal ``<shard>.jsonl`` and its snapshot ``<shard>.snapshot.sqlite``), and the time of a run
from an empty cache against a fully cached rerun. Items: eight 640x360 JPEG frames (noise,
seeded) and 5 s of 16 kHz mono WAV each. Usage:

    .venv/bin/python benchmarks/bench_multimodal.py [--items 40] [--frames 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
import wave
from pathlib import Path

import httpx
import numpy as np
from PIL import Image

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def write_items(folder: Path, n_items: int, n_frames: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    raw = []
    for i in range(n_items):
        frames = []
        for k in range(n_frames):
            name = f"v{i}_{k:02d}.jpg"
            Image.fromarray(rng.integers(0, 255, (360, 640, 3), dtype=np.uint8)).save(folder / name, quality=85)
            frames.append(name)
        with wave.open(str(folder / f"v{i}.wav"), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(16000)
            w.writeframes(rng.integers(-3000, 3000, 16000 * 5, dtype=np.int16).tobytes())
        prompt = (
            "<video>\nThe person in video says: I did not expect that. Determine the emotion. Choose one of "
            "the following labels as your final answer: happy, sad, neutral, angry, worried, surprise. "
            "Respond in the format: {'emotion': 'label'}."
        )
        raw.append(
            {
                "id": f"v{i}",
                "video": f"v{i}.mp4",
                "frames": frames,
                "audio": f"v{i}.wav",
                "conversations": [{"from": "human", "value": prompt}, {"from": "gpt", "value": "happy"}],
            }
        )
    path = folder / "items.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--frames", type=int, default=8)
    args = parser.parse_args()

    from eibench.predict.adapters import ADAPTERS, LiveModel
    from eibench.predict.cache import ResponseCache, read_journal
    from eibench.public import emobench_m_live as L
    from eibench.public import emobench_m_scoring as S

    from tests.predict.fake_llm import FakeLLM

    os.environ.setdefault("EIBENCH_BENCH_KEY", "k")
    with tempfile.TemporaryDirectory() as tmp, FakeLLM() as llm:
        tmp = Path(tmp)
        items = S.read_items(write_items(tmp, args.items, args.frames))
        model = LiveModel(
            name="omni",
            kind="openai_compatible",
            model_id="fake",
            endpoint=llm.base_url + "/v1",
            api_key_env="EIBENCH_BENCH_KEY",
            modalities=("text", "image", "audio"),
            concurrency=8,
        )

        async def run() -> float:
            cache = ResponseCache(tmp / "cache", "emobench_m-predict")
            start = time.perf_counter()
            try:
                async with httpx.AsyncClient() as client:
                    await L.predict_items(
                        items, model, ADAPTERS[model.kind](model, client), cache, tmp, max_frames=args.frames
                    )
            finally:
                cache.close()
            return time.perf_counter() - start

        cold = asyncio.run(run())
        sent = sum(len(json.dumps(r["body"])) for r in llm.requests) / llm.count
        warm = asyncio.run(run())
        records, _ = read_journal(tmp / "cache" / "emobench_m-predict.jsonl")
        stored = sum(len(r.request) for r in records) / len(records)
        size = sum(p.stat().st_size for p in (tmp / "cache").iterdir() if p.is_file())
    print(
        f"{args.items} items x ({args.frames} frames + audio): request body {sent / 1e6:.2f} MB per item, "
        f"stored request {stored / 1e3:.2f} kB per item ({sent / stored:.0f}x smaller); cache files "
        f"{size / 1e3:.0f} kB in all"
    )
    print(
        f"empty cache {cold:.2f} s, cached rerun {warm:.2f} s ({cold / warm:.1f}x faster; the rerun still reads "
        "and checks every media file)"
    )


if __name__ == "__main__":
    main()
