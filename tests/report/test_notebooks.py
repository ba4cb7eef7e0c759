"""Executing a notebook for the audit report (eibench.report.notebooks): seeded, within a
timeout, the same bytes twice, a failing cell named, and the HTML loads nothing from the
network."""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest
from eibench.report import notebooks


def _notebook(path, *sources: str):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# A title")] + [nbformat.v4.new_code_cell(s) for s in sources]
    for k, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{k}"
    nbformat.write(nb, path)
    return path


def test_execution_is_seeded_and_gives_the_same_bytes_twice(tmp_path):
    source = _notebook(
        tmp_path / "a.ipynb",
        "import os\nprint(os.environ['PYTHONHASHSEED'], os.getcwd())",
        "print(sorted({'b', 'a'}), list({'x', 'y', 'z'}))",
        "1 + 1",
    )
    outputs = []
    with notebooks.kernel_environment(tmp_path / "state", 2**32 + 7):
        for _ in range(2):
            nb = notebooks.execute(source, tmp_path, timeout=60)
            outputs.append((notebooks.to_ipynb(nb), notebooks.to_html(nb, "a")))
    assert outputs[0] == outputs[1]
    assert "PYTHONHASHSEED" not in os.environ or os.environ["PYTHONHASHSEED"] != "7"
    text = outputs[0][0]
    assert f"7 {tmp_path}" in text  # the seed modulo 2**32, and the working folder asked for
    assert '"execution"' not in text and "iopub" not in text  # no timing recorded
    assert not notebooks.errors(nb)
    html = outputs[0][1]
    assert "<title>a</title>" in html
    assert not re.findall(r'(?:src|href)="https?://', html)  # opens offline, inside the report


def test_the_kernel_writes_its_state_in_the_folder_given(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    source = _notebook(tmp_path / "b.ipynb", "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.close()")
    with notebooks.kernel_environment(tmp_path / "state", 1):
        notebooks.execute(source, tmp_path, timeout=60)
    assert not list(home.iterdir())


def test_kernels_talk_over_sockets_of_their_own_not_tcp_ports(tmp_path, monkeypatch):
    """Two notebook jobs start kernels at the same time; over TCP one could take a port the other
    had chosen (released, then bound again) and die before its first reply. Each kernel gets
    Unix sockets in a folder of its call instead, removed afterwards."""
    import shutil
    import tempfile

    short = Path(tempfile.mkdtemp(prefix="nb-", dir="/tmp"))  # tmp_path is too long for a socket path
    try:
        monkeypatch.setattr(notebooks.tempfile, "tempdir", str(short))
        source = _notebook(
            tmp_path / "t.ipynb",
            "import json, ipykernel.connect\ninfo = json.loads(ipykernel.connect.get_connection_info())\n"
            "print(info['transport'], info['ip'].startswith(%r))" % str(short / "kernel-"),
        )
        with notebooks.kernel_environment(tmp_path / "state", 1):
            nb = notebooks.execute(source, tmp_path, timeout=60)
        assert nb.cells[1].outputs[0]["text"] == "ipc True\n"
        assert not list(short.iterdir())  # the socket folder is gone
    finally:
        shutil.rmtree(short, ignore_errors=True)


def test_a_long_temporary_path_puts_the_sockets_in_tmp(monkeypatch):
    monkeypatch.setattr(notebooks.tempfile, "tempdir", "/tmp/" + "x" * 90)
    assert notebooks._socket_base() == "/tmp"
    monkeypatch.setattr(notebooks.tempfile, "tempdir", "/tmp/short")
    assert notebooks._socket_base() == "/tmp/short"


def test_a_failing_cell_is_named(tmp_path):
    source = _notebook(tmp_path / "c.ipynb", "x = 1", "assert x == 2, 'x is not two'")
    with notebooks.kernel_environment(tmp_path / "state", 1), pytest.raises(notebooks.NotebookError) as error:
        notebooks.execute(source, tmp_path, timeout=60)
    assert "c.ipynb" in str(error.value) and "x is not two" in str(error.value)


def test_a_cell_over_the_timeout_fails(tmp_path):
    source = _notebook(tmp_path / "d.ipynb", "import time\ntime.sleep(30)")
    with notebooks.kernel_environment(tmp_path / "state", 1), pytest.raises(notebooks.NotebookError, match="1 s"):
        notebooks.execute(source, tmp_path, timeout=1)


def test_stream_chunks_are_merged_whatever_their_boundaries():
    """Two runs of a cell can send the same printed text in different chunks, and stdout and
    stderr interleaved differently: the merged outputs are the same."""
    import nbformat
    from eibench.report.notebooks import merge_streams

    def cell(*outputs):
        nb = nbformat.v4.new_notebook()
        c = nbformat.v4.new_code_cell("print('a'); print('b')")
        c.outputs = [
            nbformat.v4.new_output("stream", name=n, text=t) if n else nbformat.v4.new_output("display_data", data=t)
            for n, t in outputs
        ]
        nb.cells = [c]
        return merge_streams(nb).cells[0].outputs

    one = cell(("stdout", "a\nb\n"), ("stderr", "w\n"), (None, {"text/plain": "x"}))
    two = cell(("stdout", "a\n"), ("stderr", "w\n"), ("stdout", "b\n"), (None, {"text/plain": "x"}))
    assert one == two
    assert [o.get("name") for o in one] == ["stdout", "stderr", None] and one[0]["text"] == "a\nb\n"
