"""Value normalisation of the release format, as the public scorer does it.

Each function takes one raw JSON value and returns the canonical value. Rules (from the
metrics specification, 'Parity details'):

- yes/no/na answers: true/yes/y/1 -> 'yes'; false/no/n/0 -> 'no';
  na/n/a/not_applicable -> 'na'; anything else -> None (unrecognised).
- intensities: mild/moderate/intense -> 2/4/6; numbers rounded and clamped to 1..7;
  anything else is an error (``ValueError``).
- PANAS totals rounded and clamped to 10..70; four-branch ratings clamped to 1..7, not rounded.
- emotion words: trimmed and lower-cased.
"""

from __future__ import annotations

import math

_YES = {"true", "yes", "y", "1"}
_NO = {"false", "no", "n", "0"}
_NA = {"na", "n/a", "not_applicable"}
INTENSITY_WORDS = {"mild": 2, "moderate": 4, "intense": 6}
#: What an EM output may write for an answer it could not produce (issue: invalid answers are
#: marked, never replaced by a made-up 'no'). Normalises to None like any other unknown value.
INVALID_MARKER = "invalid"


#: Answers already in canonical spelling, looked up before any normalising (the common case).
_CANONICAL = {"yes": "yes", "no": "no", "na": "na"}


def yes_no_na(value: object) -> str | None:
    """Normalise a yes/no/na answer; None for null or anything unrecognised."""
    if value is None:
        return None
    if type(value) is str and value in _CANONICAL:
        return _CANONICAL[value]
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value == 1:
            return "yes"
        if value == 0:
            return "no"
        return None
    if isinstance(value, str):
        v = value.strip().lower()
        if v in _YES:
            return "yes"
        if v in _NO:
            return "no"
        if v in _NA:
            return "na"
    return None


_INTENSITY_FORMS = "a number or numeric string (rounded, then clamped to 1..7) or mild/moderate/intense"


def intensity(value: object) -> int | None:
    """Normalise an intensity to an int in 1..7; None for null; ValueError otherwise."""
    if value is None:
        return None
    number = _intensity_number(value)
    if number is None:  # a word
        return INTENSITY_WORDS[str(value).strip().lower()]
    return int(min(7, max(1, _round_half_even(number))))


def intensity_clamped(value: object) -> bool:
    """Whether ``intensity`` clamps ``value``: a finite number or numeric string whose rounding
    lies outside 1..7 (``0`` -> 1, ``9`` -> 7, ``"7.6"`` -> 7). False for null, the words, a
    value already in 1..7 after rounding, and every value ``intensity`` refuses."""
    try:
        number = None if value is None else _intensity_number(value)
    except ValueError:
        return False
    return number is not None and not 1 <= _round_half_even(number) <= 7


def _intensity_number(value: object) -> int | float | None:
    """The number an intensity gives, before rounding and clamping (a finite number, or a
    numeric string read as one); None for a word (mild/moderate/intense); ValueError, naming
    the forms an intensity takes, for anything else."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not _finite(value):
            shown = f"an integer of {value.bit_length()} bits" if isinstance(value, int) else repr(value)
            raise ValueError(f"intensity must be a finite number a 64-bit float can hold, got {shown}")
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in INTENSITY_WORDS:
            return None
        try:
            number = float(word)
        except ValueError:
            number = math.nan
        if _finite(number):
            return number
    raise ValueError(f"intensity must be {_INTENSITY_FORMS}, got {value!r}")


def _finite(value: int | float) -> bool:
    """Whether ``value`` is finite and a 64-bit float can hold it (JSON allows an integer of any
    number of digits; beyond about 1.8e308, ``math.isfinite`` raises OverflowError)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _round_half_even(x: float) -> int:
    # Python's round() is half-to-even, as is the public scorer's (Python) rounding.
    return int(round(x))


def clamp(x: float, lo: float, hi: float) -> float:
    return min(hi, max(lo, x))


def panas_total(value: float) -> int:
    """A PANAS affect total, rounded and clamped to 10..70."""
    return int(clamp(_round_half_even(value), 10, 70))


def four_branch_rating(value: float) -> float:
    """A four-branch rating clamped to 1..7 (not rounded)."""
    return float(clamp(float(value), 1.0, 7.0))


def emotion_word(value: str) -> str:
    """An emotion label trimmed and lower-cased."""
    return value.strip().lower()


def text_answer(value: str) -> str:
    """A survey answer as compared by the scorer: trimmed and lower-cased."""
    return value.strip().lower()
