"""JSON outputs are strict JSON: a missing number is null, never a bare NaN."""

import json
import math

import numpy as np
import pytest
from eibench.tables import json_text


def strict_loads(text: str):
    """json.loads that refuses NaN, Infinity and -Infinity."""

    def refuse(name):
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_nan_and_infinities_become_null_at_any_depth():
    obj = {
        "tau": float("nan"),
        "lo": np.float64("nan"),
        "n": np.int64(3),
        "x": [1.5, math.inf, (np.nan, -np.inf)],
        "inner": {"hi": np.float32("nan"), "ok": 0.25},
    }
    back = strict_loads(json_text(obj))
    assert back == {"tau": None, "lo": None, "n": 3, "x": [1.5, None, [None, None]], "inner": {"hi": None, "ok": 0.25}}


def test_finite_values_are_written_as_json_dumps_writes_them():
    """The bytes of a summary without NaN do not change (sorted keys, indent 1)."""
    obj = {"b": 0.1 + 0.2, "a": [1, 2], "c": "text", "d": True, "e": None}
    assert json_text(obj) == json.dumps(obj, indent=1, sort_keys=True) + "\n"


def test_the_strict_reader_refuses_bare_nan():
    with pytest.raises(ValueError, match="NaN"):
        strict_loads('{"tau": NaN}')
