"""Fetching a registered dataset: from a mirror or a download, every file checked against its
pinned sha256, and a clear error (dataset, file, config key, fix) when that is impossible."""

from __future__ import annotations

import hashlib
import http.server
import threading
from functools import partial

import pytest
import yaml
from eibench.public.fetch import DatasetError, fetch_dataset

from ..conftest import REPO
from ..workflow.conftest import copy_repo, snakemake
from .conftest import mirror


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _spec(files: dict[str, tuple[str | None, bytes]], mirror_dir: str | None = None) -> dict:
    return {
        "licence": "MIT",
        "citation": "x",
        "source": "test",
        "mirror": mirror_dir,
        "files": {name: {"url": url, "sha256": _sha(data)} for name, (url, data) in files.items()},
    }


@pytest.fixture
def server(tmp_path):
    """A loopback HTTP server of the folder tmp_path/www."""
    root = tmp_path / "www"
    root.mkdir()
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_mirror_files_are_copied_and_checked(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "a.csv").write_bytes(b"x,y\n1,2\n")
    got = fetch_dataset("demo", _spec({"a.csv": (None, b"x,y\n1,2\n")}, str(tmp_path / "m")), tmp_path / "out")
    assert (tmp_path / "out" / "a.csv").read_bytes() == b"x,y\n1,2\n"
    assert [f.origin for f in got] == ["mirror"]
    again = fetch_dataset("demo", _spec({"a.csv": (None, b"x,y\n1,2\n")}, str(tmp_path / "m")), tmp_path / "out")
    assert [f.origin for f in again] == ["kept"]


def test_a_wrong_checksum_names_the_file_and_the_key_and_leaves_nothing(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "a.csv").write_bytes(b"tampered")
    with pytest.raises(DatasetError) as err:
        fetch_dataset("demo", _spec({"a.csv": (None, b"original")}, str(tmp_path / "m")), tmp_path / "out")
    message = str(err.value)
    assert "'a.csv'" in message and "datasets.demo.files.a.csv.sha256" in message and _sha(b"tampered") in message
    assert list((tmp_path / "out").iterdir()) == []


def test_a_file_without_url_needs_a_mirror(tmp_path):
    with pytest.raises(DatasetError, match=r"no download URL .* no mirror is set.*datasets\.demo\.mirror"):
        fetch_dataset("demo", _spec({"a.csv": (None, b"1")}), tmp_path / "out")


def test_a_missing_mirror_folder_is_an_error(tmp_path):
    with pytest.raises(DatasetError, match=r"mirror folder .* does not exist .*datasets\.demo\.mirror"):
        fetch_dataset("demo", _spec({"a.csv": (None, b"1")}, str(tmp_path / "nowhere")), tmp_path / "out")


def test_download_is_streamed_checked_and_renamed(tmp_path, server):
    root, base = server
    (root / "b.json").write_bytes(b'{"k": 1}')
    got = fetch_dataset("demo", _spec({"b.json": (f"{base}/b.json", b'{"k": 1}')}), tmp_path / "out")
    assert (tmp_path / "out" / "b.json").read_bytes() == b'{"k": 1}'
    assert got[0].origin == f"{base}/b.json"
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".")]


def test_a_corrupted_download_is_rejected(tmp_path, server):
    root, base = server
    (root / "b.json").write_bytes(b"corrupted")
    with pytest.raises(DatasetError, match="sha256 is"):
        fetch_dataset("demo", _spec({"b.json": (f"{base}/b.json", b"good")}), tmp_path / "out")
    assert list((tmp_path / "out").iterdir()) == []


def test_a_failed_download_says_so(tmp_path, server):
    _, base = server
    with pytest.raises(DatasetError, match=r"download of .*missing\.json failed"):
        fetch_dataset("demo", _spec({"missing.json": (f"{base}/missing.json", b"1")}), tmp_path / "out")


def test_the_registry_pins_the_local_mirrors():
    """The checksums in config/config.yaml are those of the mirrors in ../shared/data."""
    datasets = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["datasets"]
    for name, spec in datasets.items():
        folder = mirror(name)
        for file, entry in spec["files"].items():
            assert _sha((folder / file).read_bytes()) == entry["sha256"], (name, file)


@pytest.mark.workflow
def test_rule_fetch_dataset_reads_a_mirror(tmp_path):
    source = mirror("eqbench")
    work = copy_repo(tmp_path / "repo")
    (work / "config" / "here.yaml").write_text(f"datasets:\n  eqbench: {{mirror: {source}}}\n")
    run = snakemake(work, "--cores", "1", "results/data/eqbench", "--configfile", "config/here.yaml")
    assert run.returncode == 0, run.stderr[-3000:]
    for file in ("eq_bench_v2_questions_171.json", "per_item_answers.csv", "results_summary.csv"):
        assert (work / "results" / "data" / "eqbench" / file).read_bytes() == (source / file).read_bytes()
    log = (work / "logs" / "data" / "fetch_eqbench.log").read_text()
    assert "licence: MIT" in log
