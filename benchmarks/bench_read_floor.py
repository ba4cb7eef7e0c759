"""The floor of a pandas-free pass over a built cohort: what issue 19's 2x bar against the public
port would leave for tidying and scoring if the reader and the scorer were rebuilt without pandas.

One whole process, as benchmarks/bench_port.py times it: Python's start-up, the library's
readers (``release.read``: msgspec for canonical EM files, pydantic where a file needs it, the
same checks and errors; no pandas is imported), every conversation file and every model's EM
output files validated in two processes (this one and a fork, models taken alternately), and
the binary answers of every turn (the largest of the EM tables: about 1.2 million answers on
the default cohort) gathered into one array of codes per process. No table is built and
nothing is scored: a redesigned pass would spend its remaining time on those.

    .venv/bin/python benchmarks/bench_read_floor.py [--conversations DIR] [--predictions DIR] [--mode default]

Prints, on one line, the seconds from start to imported and from there to the end of the pass,
and what was read. benchmarks/bench_port.py runs it beside our pass and the port's (its
"floor" line); on 6 December 2026, medians of 7 alternated runs: the floor 0.70 s, our pass
1.68 s, the port 1.71 s.
"""

from __future__ import annotations

import time

T0 = time.perf_counter()
import argparse  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from collections import defaultdict  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from built_run import model_sources, require_built  # noqa: E402
from eibench.release.read import list_json_files, read_conversations, read_em_files  # noqa: E402

IMPORTED = time.perf_counter()
REPO = Path(__file__).resolve().parents[1]
#: The binary answers' fields of an EM turn; their values are coded yes 0, no 1, na 2, other -1.
BINARY_FIELDS = (
    "em_binary_om_assessment",
    "em_binary_human_prediction",
    "em_binary_om_assessment_hp",
    "em_binary_human_prediction_hp",
)
CODES = {"yes": 0, "no": 1, "na": 2}


def em_files(predictions: Path, mode: str) -> list[tuple[str, list[Path]]]:
    """(model, its EM output files for ``mode``, sorted) for every model of ``predictions``."""
    return [
        (model, sorted(f for s in sources for f in list_json_files(s)))
        for model, sources in model_sources(predictions, mode).items()
    ]


def answer_codes(models: list[tuple[str, list[Path]]], mode: str) -> tuple[int, np.ndarray]:
    """Validate each model's files (``read_em_files``, which raises on a bad file) and gather
    their binary answers: (files read, the answers' codes)."""
    raw: list[object] = []
    n_files = 0
    for model, files in models:
        for _, out in read_em_files(files, model, mode):
            n_files += 1
            for turn in out.turns:
                for field in BINARY_FIELDS:
                    answers = getattr(turn, field)
                    if answers:
                        raw += answers.values()
    code = defaultdict(lambda: -1, CODES)  # any other value: -1 (an answer is hashable: JSON scalars)
    return n_files, np.fromiter(map(code.__getitem__, raw), dtype=np.int8, count=len(raw))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=Path, default=REPO / "results/cohort/synthetic/conversations")
    parser.add_argument("--predictions", type=Path, default=REPO / "results/predictions")
    parser.add_argument("--mode", default="default")
    args = parser.parse_args()
    require_built(args.conversations, args.predictions)
    models = em_files(args.predictions, args.mode)
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # the second process: every other model
        try:
            n_files, codes = answer_codes(models[1::2], args.mode)
            os.write(write_end, f"{n_files} {len(codes)}".encode())
            os._exit(0)
        except BaseException as error:  # reported by the parent, which then fails
            os.write(write_end, f"error {error}".encode())
            os._exit(1)
    os.close(write_end)
    n_conversations = len(read_conversations(list_json_files(args.conversations)))
    n_files, codes = answer_codes(models[0::2], args.mode)
    _, status = os.waitpid(child, 0)
    reply = os.read(read_end, 100_000).decode()
    if status != 0:
        sys.exit(f"the second process failed: {reply}")
    other_files, other_answers = map(int, reply.split())
    print(
        f"imports {IMPORTED - T0:.3f} s, pass {time.perf_counter() - IMPORTED:.3f} s: {n_conversations} "
        f"conversations, {len(models)} models, {n_files + other_files} EM files, "
        f"{len(codes) + other_answers} binary answers"
    )


if __name__ == "__main__":
    main()
