"""Compile one section of the manuscript (paper/sections/*.typ) on its own, with a numbers file
made for the test: the sentences a build of another cohort prints, without running its DAG."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import typst

from ..conftest import REPO
from .manuscript import pdf_text


def entry(value: Any, display: str | None = None) -> dict[str, Any]:
    """A numbers.json entry: its value and the text printed for it."""
    if display is None:
        display = "–" if value is None else ("yes" if value is True else "no" if value is False else str(value))
    return {"value": value, "display": display}


def section_text(
    tmp_path: Path, name: str, entries: dict[str, Any], meta: dict[str, Any], bibliography: bool = False
) -> str:
    """The text of section ``name`` compiled alone with ``entries`` (key -> value, or an
    ``entry``) and ``meta``, its whitespace squashed to single spaces and its typographic
    apostrophes plain. ``bibliography``: with the manuscript's bibliography after it, for a
    section that cites (its references list is part of the text)."""
    (tmp_path / "paper" / "sections").mkdir(parents=True, exist_ok=True)
    (tmp_path / "results" / "paper").mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "paper" / "numbers.typ", tmp_path / "paper")
    shutil.copy(REPO / "paper" / "sections" / name, tmp_path / "paper" / "sections")
    made = {k: v if isinstance(v, dict) and "value" in v else entry(v) for k, v in entries.items()}
    (tmp_path / "results" / "paper" / "numbers.json").write_text(json.dumps({"meta": meta, "entries": made}))
    main = tmp_path / "paper" / "main.typ"
    source = f'#set heading(numbering: "1.")\n#include "sections/{name}"\n'
    if bibliography:
        shutil.copy(REPO / "paper" / "references.bib", tmp_path / "paper")
        source += '#bibliography("references.bib")\n'
    main.write_text(source, encoding="utf-8")
    text = " ".join(pdf_text(typst.compile(str(main), root=str(tmp_path))).split())
    return text.replace("\u2019", "'")
