"""Value normalisation of the release format (metrics spec, 'Parity details')."""

import math

import pytest
from eibench.release import normalize


@pytest.mark.parametrize("raw", ["yes", "YES", " y ", "true", "1", True, 1, 1.0])
def test_yes(raw):
    assert normalize.yes_no_na(raw) == "yes"


@pytest.mark.parametrize("raw", ["no", "No", "n", "false", "0", False, 0])
def test_no(raw):
    assert normalize.yes_no_na(raw) == "no"


@pytest.mark.parametrize("raw", ["na", "N/A", "not_applicable"])
def test_na(raw):
    assert normalize.yes_no_na(raw) == "na"


@pytest.mark.parametrize("raw", [None, "maybe", "invalid", "", 2, 0.5])
def test_anything_else_is_null(raw):
    assert normalize.yes_no_na(raw) is None


@pytest.mark.parametrize(
    "raw,expected",
    [
        ("mild", 2),
        ("Moderate", 4),
        (" INTENSE ", 6),
        (3, 3),
        (4.6, 5),
        (4.5, 4),
        (5.5, 6),
        (0, 1),
        (-3, 1),
        (9, 7),
        ("5", 5),
        (None, None),
    ],
)
def test_intensity(raw, expected):
    assert normalize.intensity(raw) == expected


@pytest.mark.parametrize("raw", ["very", "", True, math.nan, math.inf, [3], 10**400])
def test_intensity_errors(raw):
    with pytest.raises(ValueError, match="intensity"):
        normalize.intensity(raw)


@pytest.mark.parametrize(
    "raw,clamped",
    [
        (0, True),
        (-3, True),
        (9, True),
        ("9", True),
        (" 7.6 ", True),  # rounds to 8
        (0.4, True),  # rounds to 0
        (7.4, False),  # rounds to 7: in range
        (0.6, False),
        (7.5, True),  # half to even: 8
        (6.5, False),  # half to even: 6
        (1, False),
        ("7", False),
        ("intense", False),
        (None, False),
        ("very", False),  # refused by intensity, not clamped
        (True, False),
        (math.inf, False),
        ("inf", False),
        (10**400, False),  # refused by intensity (beyond a float), not clamped
    ],
)
def test_intensity_clamped(raw, clamped):
    assert normalize.intensity_clamped(raw) is clamped


def test_intensity_clamped_agrees_with_intensity():
    """Clamped exactly when the rounded number differs from the normalised intensity."""
    for tenth in range(-30, 120):
        x = tenth / 10
        assert normalize.intensity_clamped(x) is (round(x) != normalize.intensity(x)), x


@pytest.mark.parametrize("raw,expected", [(9, 10), (10, 10), (35.5, 36), (34.5, 34), (70, 70), (75.4, 70)])
def test_panas_total_rounded_and_clamped(raw, expected):
    assert normalize.panas_total(raw) == expected


@pytest.mark.parametrize("raw,expected", [(0, 1.0), (4.5, 4.5), (9, 7.0), (6.99, 6.99)])
def test_four_branch_clamped_not_rounded(raw, expected):
    assert normalize.four_branch_rating(raw) == expected
