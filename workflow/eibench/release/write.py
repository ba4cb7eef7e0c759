"""Write release-format JSON files: canonical layout, atomic rename."""

from __future__ import annotations

import json
import os
from typing import Any

from ..tables import replaced_atomically


def dumps(obj: Any) -> str:
    """Canonical JSON text of a release-format object (key order as built, UTF-8, indent 1)."""
    return json.dumps(obj, ensure_ascii=False, indent=1, allow_nan=False) + "\n"


def write_json(obj: Any, path: str | os.PathLike[str]) -> None:
    """Write ``obj`` as JSON to ``path`` via a temporary file and a rename (never half-written)."""
    with replaced_atomically(path) as tmp:
        tmp.write_text(dumps(obj), encoding="utf-8", newline="\n")
