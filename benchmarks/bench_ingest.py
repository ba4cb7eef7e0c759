"""Time the ingest: read + validate + tidy + score of a built cohort, after imports.

Reads the conversation files and every model's EM output files of a built run (by default the
default cohort: results/cohort/synthetic/conversations and results/predictions/<model>/<mode>),
validates them, builds the tidy tables and scores every model under the rule sets, all in
memory (nothing is written), through the library (``metrics.cohort.score_cohort``, models scored
in ``--workers`` processes; default: every available core). Prints the import time, the median
of several runs of the whole cohort (issue 19's bar), the same in one process, the part of the
one-process pass spent reading (validate + tidy) and the same with the reference reader
(``release.read.parse_file_reference``, pydantic for every file) in the same run, and the
median of one model's score job
(what rule score_model does: read the gold tables, ingest the model's files, score both rule
sets, summarise, write the tables), each with issue 19's bar, and the CPU time beside the
wall time (on a shared, loaded machine the CPU time is the steadier figure; with workers it is
the CPU time of this process and its workers).

    .venv/bin/python benchmarks/bench_ingest.py [--runs 5] [--rule-sets parity strict] [--workers 2]
    .venv/bin/python benchmarks/bench_ingest.py --once --rule-sets parity   # one pass, no output

``--once`` runs one pass (library path, ``--workers``) and prints nothing:
benchmarks/bench_port.py times it as a whole process against the public port. The process then
ends without the interpreter's final collections over the heap the imports made (``gc.freeze``
before exit; exit handlers and stream flushing still run): with pandas, pyarrow and pydantic
loaded they take about 0.12 s of a 0.15 s exit, whatever the pass did, and the workflow's jobs
skip them too (they end in a fork of the warm server, by ``os._exit``: eibench/forkserver).
``--full-teardown`` keeps them, for the figure with Python's whole exit.
"""

from __future__ import annotations

import argparse
import gc
import resource
import statistics
import tempfile
import time
from pathlib import Path

T0 = time.perf_counter()
import pandas as pd  # noqa: E402
from built_run import model_sources, require_built  # noqa: E402
from eibench.metrics.cohort import available_cores  # noqa: E402
from eibench.metrics.cohort import score_cohort as library_score_cohort  # noqa: E402
from eibench.metrics.gold import GoldIndex  # noqa: E402
from eibench.metrics.score import model_summary, score_rule_sets  # noqa: E402
from eibench.release import em_canonical, read  # noqa: E402
from eibench.release.ingest import ingest_em_outputs  # noqa: E402
from eibench.release.read import list_json_files, read_conversations  # noqa: E402
from eibench.release.tidy import EM_TABLES, GOLD_TABLES, gold_tables  # noqa: E402
from eibench.tables import read_parquet, write_parquet  # noqa: E402

IMPORTS = time.perf_counter() - T0
REPO = Path(__file__).resolve().parents[1]
BAR_COHORT, BAR_JOB = 1.5, 0.5  # seconds (issue 19, item 1)


def score_cohort(
    conversations: Path, models: dict[str, list[Path]], mode: str, rule_sets: tuple[str, ...]
) -> tuple[float, int]:
    """Read, validate, tidy and score the cohort in this process, model by model (the calls of
    ``metrics.cohort.score_cohort`` with one worker, timed apart); (seconds spent reading, EM
    files read)."""
    start = time.perf_counter()
    gold = gold_tables(read_conversations(list_json_files(conversations)))
    index = GoldIndex.build(gold)
    known = set(gold["conversations"]["conversation_id"])
    reading, n_files = time.perf_counter() - start, 0
    for model, sources in models.items():
        t = time.perf_counter()
        ingest = ingest_em_outputs(sources, model, mode, known)
        reading += time.perf_counter() - t
        n_files += ingest.n_files
        for s in score_rule_sets(index, ingest.tables, rule_sets).values():
            model_summary(s.turn, s.conversation, len(gold["conversations"]))
    return reading, n_files


def cohort_pass(
    conversations: Path, models: dict[str, list[Path]], mode: str, rule_sets: tuple[str, ...], workers: int
) -> int:
    """The library path, ``metrics.cohort.score_cohort`` given the function that reads the gold
    side (with workers, they read the models' files meanwhile); EM files read."""

    def gold() -> dict[str, pd.DataFrame]:
        return gold_tables(read_conversations(list_json_files(conversations)))

    scored = library_score_cohort(gold, models, mode, rule_sets, workers=workers)
    return sum(m.ingest.n_files for m in scored.values())


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (the workers of a pass)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def score_job(gold_dir: Path, sources: list[Path], model: str, mode: str, out: Path) -> None:
    """What rule score_model does for one model and mode (workflow/scripts/score_model.py)."""
    gold = {name: read_parquet(gold_dir / f"{name}.parquet", GOLD_TABLES[name]) for name in GOLD_TABLES}
    ingest = ingest_em_outputs(sources, model, mode, set(gold["conversations"]["conversation_id"]))
    parts: dict[str, list[pd.DataFrame]] = {"turn": [], "conversation": [], "summary": []}
    for rule_set, s in score_rule_sets(gold, ingest.tables, ("parity", "strict")).items():
        summary = model_summary(s.turn, s.conversation, len(gold["conversations"]))
        for name, df in (("turn", s.turn), ("conversation", s.conversation), ("summary", summary)):
            parts[name].append(df.assign(rule_set=rule_set))
    for name, df in ingest.tables.items():
        write_parquet(df, out / f"em_{name}.parquet", EM_TABLES[name])
    for name, frames in parts.items():
        write_parquet(pd.concat(frames, ignore_index=True), out / f"{name}.parquet")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=Path, default=REPO / "results/cohort/synthetic/conversations")
    parser.add_argument("--predictions", type=Path, default=REPO / "results/predictions")
    parser.add_argument(
        "--gold-tables",
        type=Path,
        default=REPO / "results/tables/gold",
        help="the gold tidy tables of the built run (for the score-job figure)",
    )
    parser.add_argument("--mode", default="default")
    parser.add_argument("--rule-sets", nargs="+", default=["parity", "strict"])
    parser.add_argument("--job-model", default="sim-01", help="the model of the score-job figure")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--workers", type=int, default=None, help="processes to score the models in (default: every available core)"
    )
    parser.add_argument("--once", action="store_true", help="one pass of the cohort, print nothing")
    parser.add_argument(
        "--full-teardown",
        action="store_true",
        help="with --once: end with Python's whole exit, its final collections over every object included",
    )
    args = parser.parse_args()
    require_built(args.conversations, args.predictions)
    models = model_sources(args.predictions, args.mode)
    rule_sets = tuple(args.rule_sets)
    workers = min(available_cores() if args.workers is None else args.workers, len(models))
    if args.once:
        cohort_pass(args.conversations, models, args.mode, rule_sets, workers)
        if not args.full_teardown:
            gc.freeze()  # the exit's collections skip the objects alive now (see the module docstring)
        return
    totals, cpus, singles, single_cpus, reads = [], [], [], [], []
    for _ in range(args.runs):  # the two paths alternate, so that both see the same machine
        start, cpu = time.perf_counter(), cpu_seconds()
        n_files = cohort_pass(args.conversations, models, args.mode, rule_sets, workers)
        totals.append(time.perf_counter() - start)
        cpus.append(cpu_seconds() - cpu)
        start, cpu = time.perf_counter(), time.process_time()
        reading, _ = score_cohort(args.conversations, models, args.mode, rule_sets)
        singles.append(time.perf_counter() - start)
        single_cpus.append(time.process_time() - cpu)
        reads.append(reading)
    fast_parse, canonical_parse, ref_reads = read.parse_file, em_canonical.parse_file, []
    # The reference reader (json + full value walk, pydantic for every file), same run.
    read.parse_file, em_canonical.parse_file = read.parse_file_reference, lambda path: None
    try:
        for _ in range(args.runs):
            ref_reads.append(score_cohort(args.conversations, models, args.mode, rule_sets)[0])
    finally:
        read.parse_file, em_canonical.parse_file = fast_parse, canonical_parse
    n_conv = len(list_json_files(args.conversations))
    print(f"imports                    {IMPORTS:6.2f} s   (not in the figures below)")
    print(
        f"cohort: read+tidy+score    {statistics.median(totals):6.2f} s   median of {args.runs}; "
        f"{n_conv} conversations, {len(models)} models, {n_files} EM files, rule sets {'+'.join(rule_sets)}, "
        f"{workers} worker{'s' if workers > 1 else ''} (bar: <= {BAR_COHORT} s)"
    )
    print(
        f"  CPU time of it             {statistics.median(cpus):6.2f} s   (this process and its workers; less "
        f"sensitive to a loaded machine)"
    )
    print(
        f"cohort in one process      {statistics.median(singles):6.2f} s   median of {args.runs}, alternated with the "
        f"above; CPU {statistics.median(single_cpus):.2f} s"
    )
    print(
        f"  of which read+validate+tidy {statistics.median(reads):4.2f} s   (with the reference reader: "
        f"{statistics.median(ref_reads):.2f} s, ratio {statistics.median(ref_reads) / statistics.median(reads):.2f})"
    )
    if args.job_model in models and (args.gold_tables / "conversations.parquet").exists():
        jobs, job_cpus = [], []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                start, cpu = time.perf_counter(), time.process_time()
                score_job(args.gold_tables, models[args.job_model], args.job_model, args.mode, Path(tmp))
                jobs.append(time.perf_counter() - start)
                job_cpus.append(time.process_time() - cpu)
        print(
            f"one score job ({args.job_model})     {statistics.median(jobs):6.2f} s   median of {args.runs}; "
            f"read gold tables, ingest, score both rule sets, write (bar: <= {BAR_JOB} s); "
            f"CPU {statistics.median(job_cpus):.2f} s"
        )
    else:
        print(f"one score job: skipped (no model {args.job_model!r} or no gold tables in {args.gold_tables})")


if __name__ == "__main__":
    main()
