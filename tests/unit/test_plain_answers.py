"""The answers check of ``schema.Answers`` (plain answers checked by type in one pass) gives
the objects, and the errors, of validating every answer on its own (``dict[str, Scalar]``)."""

from __future__ import annotations

import math

import pytest
from eibench.release.schema import Answers, Scalar
from pydantic import TypeAdapter, ValidationError

from .validation_errors import described

FAST, PER_VALUE = TypeAdapter(Answers), TypeAdapter(dict[str, Scalar])


@pytest.mark.parametrize(
    "value",
    [
        {"B1": "yes", "B2": True, "B3": 0, "B4": None, "B5": 12345678901234567890123},
        {"B1": 1.5, "B2": "no"},  # a float: checked one by one
        {},
        {"B1": [1]},
        {"B1": {"x": 1}, "B2": [], "B3": "ok"},
        {"B1": math.nan},
        {"B1": math.inf, "B2": "yes"},
        {1: "yes"},
        [("B1", "yes")],
        "yes",
        5,
    ],
)
def test_answers_validate_as_one_value_at_a_time(value):
    try:
        expected = PER_VALUE.validate_python({} if value is None else value)
    except ValidationError as err:
        with pytest.raises(ValidationError) as got:
            FAST.validate_python(value)
        assert described(got.value) == described(err)
    else:
        out = FAST.validate_python(value)
        assert out == expected and [type(v) for v in out.values()] == [type(v) for v in expected.values()]
        assert out is not value  # a copy, as the per-value validation gives


def test_null_answers_are_empty():
    assert FAST.validate_python(None) == {}
