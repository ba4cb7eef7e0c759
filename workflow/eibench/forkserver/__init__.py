"""Start each rule script's job from a warm process instead of a cold Python.

Most of the workflow's jobs compute for well under a second, but a cold Python that imports the
scientific stack (pandas, scipy.stats, statsmodels, matplotlib, seaborn, pyarrow, pydantic) and
the library takes 0.5 to 2 s before the first line of the job runs: about half of the default
run's job time (benchmarks/bench_startup.py). Merging rules would save it, at the price of the
per-rule reruns and the per-job provenance the workflow is built on. This package keeps every
job as it is and removes the imports instead, with a fork server, as Python's own
``multiprocessing`` forkserver and Android's zygote do:

- ``lifecycle``: Snakemake's ``onstart`` starts one server per local run (``logs/forkserver.log``);
  ``onsuccess``/``onerror`` stop it, and it exits by itself when the Snakemake process is gone.
- ``server``: imports, once, what the rule scripts import (``preload``), then forks one child per
  job. The child takes the job's standard streams, working folder, arguments and environment,
  runs Snakemake's copy of the script (its preamble, then the script) and reports its exit status.
- ``client``: the first statement of every rule script, ``hand_off()``. In a job started by
  Snakemake it sends the job to the server and exits with the job's status; with no server
  (a cluster job, a run with ``EIBENCH_FORKSERVER=0``, a server not ready yet) it returns and
  the script runs where it was started, as before.

What this does not change: the files. A job computes the same thing in a forked child as in a
fresh process; the workflow tests compare a run with the server to one without it, byte for
byte. What it changes: a job's imports cost nothing after the first, a job's memory and CPU are
spent in the server's child, which Snakemake's ``benchmark:`` files do not see (measure rule
resources with ``EIBENCH_FORKSERVER=0``; benchmarks/rule_resources.py refuses a run made with
the server), and the server itself holds the preloaded modules (about 300 MB) for the run.
Linux only (``fork`` after importing macOS system frameworks is not safe); elsewhere every job
runs cold.
"""
