"""benchmarks/port: the port's files are fetched only with their pinned sums, and the comparison
names columns our scorer writes."""

from __future__ import annotations

import hashlib
import importlib.util
import math
from pathlib import Path

import pytest
from eibench.metrics.score import score_model
from eibench.public.fetch import DatasetError
from eibench.release.read import list_json_files, read_conversations, read_em_outputs
from eibench.release.tidy import em_tables, gold_tables

from ..conftest import RELEASE

REPO = Path(__file__).resolve().parents[2]


def _module(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / "port" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pinned(module, monkeypatch, texts: dict[str, str], url: str = "https://example.invalid/{file}") -> None:
    """fetch_port with ``texts`` pinned (their sums) instead of the port's five files."""
    spec = {
        "source": "test",
        "files": {
            n: {"url": url.format(file=n), "sha256": hashlib.sha256(t.encode()).hexdigest()} for n, t in texts.items()
        },
    }
    monkeypatch.setattr(module, "port_spec", lambda: spec)


def test_the_pins_name_the_port_files_at_their_commits():
    module = _module("fetch_port")
    spec = module.port_spec()
    assert sorted(spec["files"]) == ["constants.ts", "report.tsx", "scorer.ts", "types.ts", "utils.ts"]
    url = spec["files"]["scorer.ts"]["url"]
    assert url == (
        "https://raw.githubusercontent.com/CasingAI/instant-os/"
        "65bdb92288e4c8187c076b3f42b1a2d5c2c4b63e/src/apps/attunebench/scorer.ts"
    )
    assert all(len(f["sha256"]) == 64 for f in spec["files"].values())


def test_a_copy_with_the_pinned_sums_is_taken_and_then_kept(tmp_path, monkeypatch):
    module = _module("fetch_port")
    texts = {"scorer.ts": "export const a = 1\n", "report.tsx": "export const b = 2\n"}
    _pinned(module, monkeypatch, texts)
    source = tmp_path / "copy"
    source.mkdir()
    for name, text in texts.items():
        (source / name).write_text(text)
    dest = tmp_path / "src"
    assert module.fetch_port(dest, source) == ["report.tsx: mirror", "scorer.ts: mirror"]
    assert module.fetch_port(dest, source) == ["report.tsx: kept", "scorer.ts: kept"]
    assert (dest / "scorer.ts").read_text() == texts["scorer.ts"]


def test_a_changed_file_is_refused_and_not_left_behind(tmp_path, monkeypatch):
    module = _module("fetch_port")
    _pinned(module, monkeypatch, {"scorer.ts": "export const a = 1\n"})
    downloaded = []

    def downloader(url: str, dest: Path) -> None:  # the published file has changed since the pin
        downloaded.append(url)
        dest.write_text("export const a = 2\n")

    with pytest.raises(DatasetError, match=r"scorer\.ts.*sha256.*PORT_FILES in fetch_port\.py"):
        module.fetch_port(tmp_path / "src", None, downloader=downloader)
    assert downloaded == ["https://example.invalid/scorer.ts"]
    assert list((tmp_path / "src").iterdir()) == []


def test_the_compared_columns_are_those_our_scorer_writes():
    module = _module("compare_port")
    assert len(module.QUANTITIES) == 44  # as docs/metrics.md counts them
    gold = gold_tables(read_conversations(list_json_files(RELEASE / "valid")))
    em = em_tables(read_em_outputs(list_json_files(RELEASE / "em_valid"), "model-x", "default"))
    scores = score_model(gold, em, "parity", compat="port")
    for column, _ in module.QUANTITIES:
        table = scores.turn if column.startswith("turns:") else scores.conversation
        assert column.removeprefix("turns:") in table.columns, column


def test_the_port_fields_worked_out_here():
    module = _module("compare_port")
    survey = {f"post_score.{k}": v for k, v in zip(module._SURVEY, (1.0, 0.0, 1.0, 0.5))}
    derived = module._derived({"post_score.panas_baseline_adjusted": -0.5, **survey})
    assert derived == {"derived:panas_part": 0.25, "derived:conversation_wide": 0.625}
    assert module._derived({"post_score.panas_baseline_adjusted": None, **survey})["derived:panas_part"] == 0.5
    assert module.differences(math.nan, math.nan) == 0.0
    assert module.differences(1.0, math.nan) == math.inf
    assert module.differences(0.25, 0.5) == 0.25
