"""What a problem of the reader is made of, for tests that compare two validation paths."""

from __future__ import annotations

from eibench.release.read import json_path
from pydantic import ValidationError


def described(err: ValidationError) -> list[tuple]:
    """Each error's JSON path, type, message and input (as text: NaN compares equal so)."""
    return [(json_path(e["loc"]), e["type"], e["msg"], repr(e.get("input"))) for e in err.errors(include_url=False)]
