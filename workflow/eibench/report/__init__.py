"""Tables, figures and the numbers file that the manuscript reads.

Importing this package gives the process its own matplotlib configuration folder (unless
``MPLCONFIGDIR`` was set by the user): a fresh directory under the temporary directory (in a
workflow job, Snakemake's ``resources.tmpdir``), removed at exit. By default matplotlib would
read a ``matplotlibrc`` from the user's home and write its font cache there: state shared by
every job on every node of a cluster, rewritten in place under a lock file (unreliable on a
network file system), and a user's settings leaking into the figures. The price is the font
list, rebuilt once per process (one to a few seconds). A subprocess that inherits the variable
from a process that set it here makes its own folder too. A forked child (a job of the fork
server, a worker of a process pool) uses its parent's folder and never removes it.
"""

import atexit
import os
import shutil

from ..tmpdirs import owned_tmpdir

_OWNER = "EIBENCH_MPLCONFIGDIR_PID"  # the process that made the folder in MPLCONFIGDIR


def _remove_own(folder: str, owner: int) -> None:
    """Remove ``folder`` at exit in the process that made it only: a forked child inherits the
    exit handler, and the folder is still its parent's."""
    if os.getpid() == owner:
        shutil.rmtree(folder, ignore_errors=True)


if "MPLCONFIGDIR" not in os.environ or os.environ.get(_OWNER, str(os.getpid())) != str(os.getpid()):
    _config = str(owned_tmpdir("matplotlib"))  # a killed process's is swept by the next job
    os.environ["MPLCONFIGDIR"], os.environ[_OWNER] = _config, str(os.getpid())
    atexit.register(_remove_own, _config, os.getpid())
