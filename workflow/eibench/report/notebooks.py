"""Execute the follow-up notebooks (notebooks/*.ipynb) and render them to HTML, so that a
reviewer sees their outputs in the audit report without running anything.

Same inputs, same bytes: the kernel gets ``PYTHONHASHSEED`` from the run's seed (set and dict
orders, and anything seeded from ``hash``), no timing is recorded in the executed notebook,
and each cell's outputs are what the cell printed, so two runs give identical files provided
the notebook prints nothing that varies (a temporary path, a time, an object's address).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..lean_imports import skip_iri_format_checker

skip_iri_format_checker()  # before nbformat, which imports jsonschema: 1.6 s per notebook job
import nbformat  # noqa: E402
from jinja2 import DictLoader  # noqa: E402
from nbclient import NotebookClient  # noqa: E402
from nbclient.exceptions import CellExecutionError  # noqa: E402
from nbconvert import HTMLExporter  # noqa: E402
from traitlets.config import Config  # noqa: E402

#: Variables that point Jupyter, IPython and matplotlib at folders of their own (inside the
#: job's temporary folder), so that executing a notebook writes nothing in the home folder.
STATE_DIRS = ("IPYTHONDIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_DATA_DIR", "JUPYTER_CONFIG_DIR", "MPLCONFIGDIR")


class NotebookError(RuntimeError):
    """A notebook cell raised: the message names the notebook, the cell and the error."""

    for_people = True


@contextmanager
def kernel_environment(state: Path, seed: int) -> Iterator[None]:
    """Set the variables the kernel inherits (``STATE_DIRS``, folders made below ``state``;
    ``PYTHONHASHSEED`` = ``seed`` modulo 2**32) for the block, and restore them after."""
    values = {name: str(state / name.lower()) for name in STATE_DIRS}
    for folder in values.values():
        Path(folder).mkdir(parents=True, exist_ok=True)
    values |= {"PYTHONHASHSEED": str(int(seed) % 2**32), "JUPYTER_PLATFORM_DIRS": "1"}
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def execute(
    source: str | os.PathLike[str], cwd: str | os.PathLike[str], timeout: int, kernel: str = "python3"
) -> nbformat.NotebookNode:
    """The notebook at ``source`` executed top to bottom in a fresh ``kernel`` whose working
    folder is ``cwd``; ``timeout``: seconds per cell. A cell that raises or runs out of time
    raises :class:`NotebookError` naming the notebook and the cell (by its first line). Stream
    outputs are merged (:func:`merge_streams`)."""
    nb = nbformat.read(source, as_version=4)
    with tempfile.TemporaryDirectory(prefix="kernel-", dir=_socket_base()) as sockets:
        # Unix sockets in a folder of this call, not TCP ports: a port is chosen free, released
        # and bound again by the kernel, and a kernel started at the same time (the notebook jobs
        # run in parallel) can take it first: "Kernel died before replying to kernel_info".
        # nbclient makes (and so shuts down) the kernel manager; the config reaches it.
        sockets_config = {
            "transport": "ipc",
            "ip": str(Path(sockets) / "k"),
            "connection_file": str(Path(sockets) / "kernel.json"),
        }
        client = NotebookClient(
            nb,
            config=Config({"KernelManager": sockets_config}),
            kernel_name=kernel,
            timeout=timeout,
            record_timing=False,
            resources={"metadata": {"path": str(cwd)}},
        )
        try:
            client.execute()
        except CellExecutionError as error:
            raise NotebookError(f"{source}: a cell raised:\n{error}") from None
        except TimeoutError as error:
            raise NotebookError(f"{source}: a cell ran longer than {timeout} s (the rule's timeout): {error}") from None
    return merge_streams(nb)


#: A Unix socket's path holds at most 107 bytes on Linux; the kernel's are ``<folder>/k-<n>``.
_MAX_SOCKET_FOLDER = 80


def _socket_base() -> str:
    """Where the kernel's socket folder goes: the temporary folder (a job's own, in the
    workflow), or /tmp when that path is too long for a socket's."""
    base = tempfile.gettempdir()
    return base if len(os.fsencode(base)) <= _MAX_SOCKET_FOLDER - len("/kernel-xxxxxxxx") else "/tmp"


def merge_streams(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``nb`` with each code cell's stream outputs merged into one output per stream (stdout,
    stderr), placed where that stream first appears: the kernel sends printed text in chunks
    whose boundaries, and the interleaving of the two streams, depend on timing, so two runs of
    the same cell would otherwise give different files. Other outputs keep their order."""
    for cell in nb.cells:
        outputs: list[nbformat.NotebookNode] = []
        merged: dict[str, nbformat.NotebookNode] = {}
        for out in cell.get("outputs", []):
            if out.get("output_type") != "stream":
                outputs.append(out)
            elif out["name"] in merged:
                merged[out["name"]]["text"] += out["text"]
            else:
                merged[out["name"]] = out
                outputs.append(out)
        if "outputs" in cell:
            cell["outputs"] = outputs
    return nb


def errors(nb: nbformat.NotebookNode) -> list[str]:
    """The error outputs of an executed notebook, as ``ename: evalue``."""
    return [
        f"{o['ename']}: {o['evalue']}"
        for cell in nb.cells
        for o in cell.get("outputs", [])
        if o.get("output_type") == "error"
    ]


# nbconvert's lab template, without the two scripts it loads from a CDN (require.js, for
# widgets, and MathJax): the page then opens offline, inside the self-contained audit report.
_OFFLINE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
"""


def to_html(nb: nbformat.NotebookNode, title: str) -> str:
    """The executed notebook as one self-contained HTML page titled ``title`` (nbconvert's
    ``lab`` template, images embedded, no script loaded from the network)."""
    exporter = HTMLExporter(
        template_name="lab",
        embed_images=True,
        extra_loaders=[DictLoader({"offline.j2": _OFFLINE})],
        template_file="offline.j2",
    )
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title}})
    return body


def to_ipynb(nb: nbformat.NotebookNode) -> str:
    """The executed notebook as .ipynb text (nbformat's JSON, sorted keys, one final newline)."""
    return nbformat.writes(nb) + "\n"
