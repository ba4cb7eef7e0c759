"""Safe identifiers: values that become file or folder names.

Conversation ids, model names and modes end up in paths such as
``results/predictions/<model>/<mode>/<conversation>.json``. A hostile or careless value
(``../x``, ``/etc``, ``a/b``, an empty string) must never be followed, so every such value is
checked here before it reaches a path.
"""

from __future__ import annotations

import re

#: Letters, digits, '_', '-', '.', starting with a letter or digit, at most 128 characters.
#: A leading '.' is refused, which also refuses '.' and '..'.
SAFE_ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}"
_SAFE_ID = re.compile(SAFE_ID_PATTERN)


class UnsafeIdentifierError(ValueError):
    """An identifier that would become part of a path is not of the safe form."""


def is_safe_id(value: object) -> bool:
    # fullmatch, not match with '$': '$' would also accept a trailing newline.
    return isinstance(value, str) and _SAFE_ID.fullmatch(value) is not None


def check_safe_id(value: object, what: str, where: str = "") -> str:
    """Return ``value`` if it is a safe identifier, else raise with a message naming it.

    ``what`` names the kind of identifier (e.g. "conversation id") and ``where`` the place it
    came from (a file and JSON path, or a config key), so the user can fix it.
    """
    if is_safe_id(value):
        return value  # type: ignore[return-value]
    place = f" in {where}" if where else ""
    raise UnsafeIdentifierError(
        f"unsafe {what} {value!r}{place}: it becomes part of a file path, so it must match "
        f"{SAFE_ID_PATTERN} (letters, digits, '_', '-', '.', not starting with '.'; no '/', "
        f"no '..', no absolute path). Rename it in the source."
    )
