"""benchmarks/bench_startup.py finds each rule's script, so its floor counts every script job."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_startup", REPO / "benchmarks" / "bench_startup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_rule_with_a_script_is_mapped_to_an_existing_script():
    scripts = _bench().rule_scripts()
    texts = "\n".join(f.read_text() for f in (REPO / "workflow" / "rules").glob("*.smk"))
    named = set(re.findall(r"^\s*script:\s*\n\s*\"\.\./scripts/(\w+\.py)\"", texts, re.M))
    assert {p.name for p in scripts.values()} == named
    assert all(p.is_file() for p in scripts.values())
    assert scripts["null_score_model"] == scripts["score_model"]
    assert scripts["stats_operating_curves"].name == "stats_operating.py"
    assert "all" not in scripts


def test_import_lines_are_the_module_level_imports_only(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(
        '"""doc"""\nfrom __future__ import annotations\nimport json\nfrom pathlib import Path\n'
        "x = 1\nif x:\n    import csv\n"
    )
    assert _bench().import_lines(script) == "import json\nfrom pathlib import Path"
