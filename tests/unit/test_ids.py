"""Identifiers that become paths: hostile values are rejected, never followed."""

import pytest
from eibench.ids import UnsafeIdentifierError, check_safe_id, is_safe_id


@pytest.mark.parametrize("value", ["conversation_5", "sim-01", "human_1", "gpt.4o-mini", "17", "A"])
def test_safe(value):
    assert check_safe_id(value, "id") == value


@pytest.mark.parametrize(
    "value", ["../x", "..", ".", "/etc/passwd", "a/b", "a\\b", "", " x", "x\n", "é", "a" * 129, None, 5]
)
def test_unsafe(value):
    assert not is_safe_id(value)
    with pytest.raises(UnsafeIdentifierError, match="must match"):
        check_safe_id(value, "model name", "config key 'models[0].name'")
