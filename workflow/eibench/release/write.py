"""Write release-format JSON files: canonical layout, atomic rename."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..tables import atomic_path


def dumps(obj: Any) -> str:
    """Canonical JSON text of a release-format object (key order as built, UTF-8, indent 1)."""
    return json.dumps(obj, ensure_ascii=False, indent=1, allow_nan=False) + "\n"


def write_json(obj: Any, path: str | os.PathLike[str]) -> None:
    """Write ``obj`` as JSON to ``path`` via a temporary file and a rename (never half-written)."""
    path = Path(path)
    tmp = atomic_path(path)
    try:
        tmp.write_text(dumps(obj), encoding="utf-8", newline="\n")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
