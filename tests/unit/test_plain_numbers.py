"""The PANAS items check of ``schema.Numbers`` (plain numbers checked by type in one pass) gives
the objects, and the errors, of validating every value on its own (``dict[str, Number]``)."""

from __future__ import annotations

import math

import pytest
from eibench.release.schema import Number, Numbers
from pydantic import TypeAdapter, ValidationError

from .validation_errors import described

FAST, PER_VALUE = TypeAdapter(Numbers), TypeAdapter(dict[str, Number])


@pytest.mark.parametrize(
    "value",
    [
        {"Active": 2, "Afraid": 3.5, "Alert": -0.0, "Proud": 2**60 + 1},
        {},
        {"Active": True},  # a boolean is no number
        {"Active": "3"},
        {"Active": None, "Afraid": 2},
        {"Active": math.nan},
        {"Active": 2, "Afraid": math.inf},
        {"Active": [1]},
        {1: 2},
        [("Active", 2)],
        "Active",
        None,
    ],
)
def test_numbers_validate_as_one_value_at_a_time(value):
    try:
        expected = PER_VALUE.validate_python(value)
    except ValidationError as err:
        with pytest.raises(ValidationError) as got:
            FAST.validate_python(value)
        assert described(got.value) == described(err)
    else:
        out = FAST.validate_python(value)
        assert out == expected and [type(v) for v in out.values()] == [type(v) for v in expected.values()]
        assert all(type(v) is float for v in out.values())


def test_an_integer_too_large_for_a_float_is_a_validation_error_naming_it():
    seen = []
    for adapter in (FAST, PER_VALUE):
        with pytest.raises(ValidationError, match="64-bit float can hold") as got:
            adapter.validate_python({"Active": 10**400})
        seen.append(described(got.value))
    assert seen[0] == seen[1]
