"""Checks on the bytes of a JSON file, before any parser reads it (shared by ``read`` and
``em_canonical``)."""

from __future__ import annotations

#: An integer of 19 digits or more may exceed 64 bits, which orjson reads as a float (json as an
#: int): a file with such a run of digits anywhere (even in a string) takes the reference path.
#: Found by translating every ASCII digit to b"0" and every other byte to b" ", then searching
#: for 19 zeros (ten times faster than a regular expression over the bytes).
LONG_DIGIT_RUN = 19
_DIGITS_AS_ZEROS = bytes(ord("0") if ord("0") <= b <= ord("9") else ord(" ") for b in range(256))


def has_long_digit_run(data: bytes) -> bool:
    """Whether ``data`` holds a run of at least ``LONG_DIGIT_RUN`` ASCII digits."""
    return b"0" * LONG_DIGIT_RUN in data.translate(_DIGITS_AS_ZEROS)
