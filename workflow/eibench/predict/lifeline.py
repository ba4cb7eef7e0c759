"""Notice when the process that started this one dies.

Killing only the main ``snakemake`` process leaves its jobs running, reparented to init (or to
a subreaper): a collector would go on sending paid requests while a restarted run starts a new
collector on the same shard. ``ParentWatch`` polls ``os.getppid()`` from a daemon thread; when it
changes, the parent is gone and ``on_gone`` is called once (the collector then sends nothing
more, stores the answers in flight and exits). Polling is portable; ``prctl(PR_SET_PDEATHSIG)``
is not used, because Linux sends that signal when the parent *thread* that started the process
exits, and Snakemake starts jobs from a pool of threads.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Callable

log = logging.getLogger(__name__)


class ParentWatch:
    """Calls ``on_gone`` once, within ``poll_seconds``, after the parent process dies. Does
    nothing for a process whose parent is already init (PID 1) when it starts."""

    def __init__(self, on_gone: Callable[[], None], poll_seconds: float = 0.5):
        self.parent = os.getppid()
        self.on_gone = on_gone
        self.poll_seconds = poll_seconds
        self.gone = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "ParentWatch":
        if self.parent != 1:
            self._thread = threading.Thread(target=self._watch, name="parent watch", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _watch(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            if os.getppid() != self.parent:
                log.warning(
                    "the parent process %d is gone (killed run?): no new request is sent; the answers "
                    "in flight are stored, then this collector exits",
                    self.parent,
                )
                self.gone.set()
                self.on_gone()
                return
