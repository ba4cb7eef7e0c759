"""release.write.dumps: json.dumps's indented text (indent=1, UTF-8, no NaN), made faster by
indenting json's compact text with msgspec's formatter. The two must never differ by a byte:
every file the workflow writes (cohort, predictions) and every digest of them depends on it."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from eibench.release.write import dumps, write_json
from hypothesis import given, settings
from hypothesis import strategies as st


def reference(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=1, allow_nan=False) + "\n"


#: Every number notation Python writes: positional, 1e-05 below 1e-4, 1e+16 from 1e16 on.
_floats = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.builds(lambda m, e: m * 10.0**e, st.floats(-10, 10, allow_nan=False), st.integers(-30, 30)),
)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),  # beyond 64 bits too
    _floats,
    st.text(),  # any code point but lone surrogates: control characters, U+2028, quotes, backslashes
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.tuples(inner, inner),
        st.dictionaries(st.one_of(st.text(), st.integers(), st.booleans()), inner, max_size=6),
    ),
    max_leaves=40,
)


@settings(max_examples=1000, deadline=None)
@given(_values)
def test_dumps_writes_the_bytes_of_json_dumps(obj):
    assert dumps(obj) == reference(obj)


@pytest.mark.parametrize(
    "value",
    [1e-05, 0.0001, 9.5e-05, 1e16, 1e15, 123456789012345678.0, -0.0, 5e-324, 1.7976931348623157e308, 10**40],
)
def test_the_notation_of_a_number_is_pythons(value):
    """msgspec writes 1e-05 as 0.00001 and 1e+16 as 1e16 when it renders floats itself: here it
    only copies the text json wrote."""
    assert dumps({"x": [value]}) == reference({"x": [value]})


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_value_json_cannot_hold_raises_as_json_dumps_does(value, tmp_path):
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        dumps({"x": [1, value]})
    with pytest.raises(ValueError):
        write_json({"x": value}, tmp_path / "x.json")
    assert list(tmp_path.iterdir()) == []


def test_types_json_takes_are_written_as_json_writes_them():
    """Tuples are arrays, number and boolean keys strings, a float subclass its float's text;
    a type json refuses is refused with json's error."""
    obj = {2: (2, 3), True: None, 1.5: 0, "f": np.float64(0.1), "empty": [{}, [], [[]], {"a": {}}]}
    assert dumps(obj) == reference(obj)
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps({"x": np.int64(1)})


def test_a_lone_surrogate_gives_json_dumps_text_and_no_file(tmp_path):
    """No UTF-8 file can hold it: the text is json's, and writing it fails as it did."""
    assert dumps(["a\ud800"]) == reference(["a\ud800"])
    with pytest.raises(UnicodeEncodeError):
        write_json(["a\ud800"], tmp_path / "x.json")
    assert list(tmp_path.iterdir()) == []
