"""Rule notebook: execute one notebook after the build and render it to HTML."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import tempfile
from pathlib import Path

from eibench.report.notebooks import errors, execute, kernel_environment, to_html, to_ipynb
from eibench.runlog import rule_log
from eibench.tables import write_text

with rule_log(snakemake) as log:  # noqa: F821
    i, o, p = snakemake.input, snakemake.output, snakemake.params
    source = Path(i.notebook)
    # The job's own temporary folder (set by rule_log, removed after the job) holds the kernel's IPython, Jupyter and
    # matplotlib
    # state, so nothing is written to the home folder.
    with kernel_environment(Path(tempfile.gettempdir()), p.seed):
        nb = execute(source, source.parent, p.timeout)
    if errors(nb):  # a cell that raised stops execute(); an error output left by a cell is still a failure
        raise RuntimeError(f"{source}: error outputs: {'; '.join(errors(nb))}")
    write_text(to_ipynb(nb), o.executed)
    write_text(to_html(nb, source.stem), o.html)
    log.info("%s: %d cells executed", source, sum(c.cell_type == "code" for c in nb.cells))
