"""Read and validate release-format files, with errors that name the file and JSON path.

``read_conversations(dir)`` and ``read_em_outputs(dir, ...)`` return parsed objects or raise one
``ReleaseFormatError``. By default the first bad file stops the read (files are read in sorted
order, so the same file is reported every time); with ``report_all=True`` every bad file is
listed in one error. Nothing is returned from a half-read directory.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, TypeVar, cast

import numpy as np
import orjson
from pydantic import BaseModel, ValidationError

from ..gcpause import cyclic_gc_paused
from . import em_canonical
from .em_canonical import EMFile
from .extras import misspelt_fields
from .json_bytes import has_long_digit_run
from .schema import ConversationFile, EMOutputFile

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one file: where (file, JSON path) and what."""

    file: str
    json_path: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: at {self.json_path}: {self.message}"


#: Problems listed per file; a file with more (say one wrong type in every turn) gets a count of the rest.
MAX_PROBLEMS_PER_FILE = 10


class ReleaseFormatError(ValueError):
    """One or more release-format files are invalid. ``problems`` lists each one.

    The message names each bad file once with the JSON paths of its problems (at most
    ``MAX_PROBLEMS_PER_FILE`` each, then how many more), and, when ``n_files`` (the files of
    the read) is given, what became of the others: valid, or not read after the first bad file
    (``n_read``: files read before the read stopped; None = all read)."""

    #: The message is complete for a person: a rule script logs it and prints no traceback (runlog.rule_log).
    for_people = True

    def __init__(
        self, problems: Sequence[Problem], hint: str = "", n_files: int | None = None, n_read: int | None = None
    ):
        self.problems = list(problems)
        self._args = (self.problems, hint, n_files, n_read)
        by_file: dict[str, list[Problem]] = {}
        for p in self.problems:
            by_file.setdefault(p.file, []).append(p)
        head = (
            f"invalid release-format file {next(iter(by_file))}"
            if len(by_file) == 1
            else f"{len(by_file)} invalid release-format files"
        )
        lines = [head + ":"]
        indent = "  " if len(by_file) == 1 else "    "  # several files: each named once, its problems below
        for file, found in by_file.items():
            if len(by_file) > 1:
                lines.append(f"  {file}:")
            lines += [f"{indent}- at {p.json_path}: {p.message}" for p in found[:MAX_PROBLEMS_PER_FILE]]
            if len(found) > MAX_PROBLEMS_PER_FILE:
                lines.append(f"{indent}- ... and {len(found) - MAX_PROBLEMS_PER_FILE} more problems in this file")
        if n_files is not None:
            lines.append(_the_rest(n_files, len(by_file), n_read))
        if hint:
            lines.append(hint)
        super().__init__("\n".join(lines))

    def __reduce__(self) -> tuple:
        # Pickled with the arguments it was built from (a worker process raises it to its
        # parent: metrics.cohort), not with its message, which __init__ does not take.
        return type(self), self._args


def _the_rest(n_files: int, n_bad: int, n_read: int | None) -> str:
    """One sentence on the files not named: how many are valid and how many were not read."""
    if n_read is None or n_read >= n_files:
        return f"The other {n_files - n_bad} of the {n_files} files are valid."
    valid = n_read - n_bad
    return (
        f"Of the other {n_files - n_bad} of the {n_files} files, {valid} read before it are valid and "
        f"{n_files - n_read} were not read (the read stops at the first bad file)."
    )


def json_path(loc: Iterable[object]) -> str:
    """Turn a pydantic ``loc`` tuple into a JSON path such as ``$.turns[2].moodShiftTags[0]``."""
    out = "$"
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and part.isidentifier():
            out += f".{part}"
        else:
            out += f"[{json.dumps(str(part))}]"
    return out


def _problems_from_validation(file: str, err: ValidationError) -> list[Problem]:
    problems = []
    for e in err.errors(include_url=False):
        loc = [p for p in e["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] not in ("missing", "value_error") and "input" in e and not isinstance(e["input"], (dict, list)):
            msg += f" (got {e['input']!r})"
        problems.append(Problem(file, json_path(loc), msg))
    return problems


#: Deepest nesting of arrays and objects read (the format itself needs about six levels).
MAX_DEPTH = 100
_LONG_NUMBER = re.compile(r"[0-9]{%d,}" % (sys.get_int_max_str_digits() + 1))


def _line_col(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line}, column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _too_deep_at(text: str) -> str:
    """Where in ``text`` the nesting first exceeds MAX_DEPTH (brackets outside strings)."""
    depth, in_string, escaped = 0, False, False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return _line_col(text, i)
        elif ch in "]}":
            depth -= 1
    return "an unknown position"


def _first_bad_value(raw: Any) -> tuple[str, str] | None:
    """(JSON path, problem) of the first value no table can hold: a string or key with a lone
    UTF-16 surrogate (JSON's ``\\ud800`` escape; it is not a character and cannot be written as
    UTF-8), or nesting deeper than MAX_DEPTH. Iterative, so no depth overflows the stack."""
    stack: list[tuple[Any, tuple[object, ...]]] = [(raw, ())]
    while stack:
        value, loc = stack.pop()
        if len(loc) > MAX_DEPTH:
            return json_path(loc[:1]), (
                f"values under this field are nested more than {MAX_DEPTH} levels deep; flatten or remove them"
            )
        if isinstance(value, str):
            if _SURROGATE.search(value):
                return json_path(loc), (
                    "contains a lone UTF-16 surrogate escape (such as \\ud800), which is not a "
                    "character; remove it or write the character it was meant to be"
                )
        elif isinstance(value, dict):
            for key in reversed(list(value)):
                if _SURROGATE.search(key):
                    return json_path(loc), (
                        f"the key {key!r} contains a lone UTF-16 surrogate escape (such as "
                        "\\ud800), which is not a character; rename the key"
                    )
                stack.append((value[key], (*loc, key)))
        elif isinstance(value, list):
            stack.extend((item, (*loc, i)) for i, item in reversed(list(enumerate(value))))
    return None


_SURROGATE = re.compile("[\ud800-\udfff]")


_OPEN, _CLOSE = np.zeros(256, np.int8), np.zeros(256, np.int8)
_OPEN[[ord("["), ord("{")]] = 1
_CLOSE[[ord("]"), ord("}")]] = 1
_QUOTE = ord('"')
_ESCAPE = re.compile(rb"\\.", re.DOTALL)


def _max_depth(data: bytes) -> int:
    """Deepest nesting of arrays and objects in ``data``, valid JSON (brackets inside strings
    do not count). Vectorised over the bytes: an escape pair (``\\"``, ``\\\\``) is blanked first,
    so every remaining quote opens or closes a string."""
    if b"\\" in data:
        data = _ESCAPE.sub(b"__", data)
    buf = np.frombuffer(data, np.uint8)
    outside = (np.cumsum(buf == _QUOTE) & 1) == 0  # a closing quote counts as inside: it is no bracket
    step = (_OPEN[buf] - _CLOSE[buf]) * outside
    return int(np.cumsum(step, dtype=np.int32).max(initial=0))


def _load_fast(data: bytes) -> dict | None:
    """The JSON object of ``data`` when it reads exactly as the reference path reads it, else
    None (the caller then takes the reference path, which names the problem).

    orjson refuses everything the reference path refuses at parsing (bytes that are not UTF-8,
    a BOM, NaN and Infinity, lone surrogate escapes, control characters) and more; what it
    reads differently is left to the reference path: long digit runs (integers beyond 64 bits)
    and nesting deeper than MAX_DEPTH (orjson allows 1,024 levels)."""
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(raw, dict) or has_long_digit_run(data):
        return None
    if data.count(b"[") + data.count(b"{") > MAX_DEPTH and _max_depth(data) > MAX_DEPTH:
        return None
    return raw


def parse_file(path: Path, model: type[M], display: str | None = None) -> tuple[M | None, list[Problem]]:
    """Parse one JSON file into ``model``; return (object, []) or (None, problems).

    The fast path reads the bytes with orjson and validates the object; a file it cannot take
    (``_load_fast``) or that fails validation is read again by :func:`parse_file_reference`,
    so every problem is named exactly as the reference path names it.
    """
    try:
        data = path.read_bytes()
    except OSError:
        return parse_file_reference(path, model, display)
    raw = _load_fast(data)
    if raw is not None:
        try:
            return _spelt_right(model.model_validate(raw), display or str(path))
        except ValidationError:
            pass
    return parse_file_reference(path, model, display)


def _spelt_right(obj: M, name: str) -> tuple[M | None, list[Problem]]:
    """``(obj, [])``, or ``(None, problems)`` naming each unknown field of ``obj`` that is a near
    miss of a known one (``extras.misspelt_fields``): read as absent, it would vanish unseen."""
    found = misspelt_fields(obj)
    if not found:
        return obj, []
    return None, [
        Problem(
            name,
            json_path(loc),
            f"unknown field {loc[-1]!r} is close to {known!r}, which this object reads: a misspelt field is "
            f"read as absent; rename it to {known!r} (a field of your own: give it a name unlike the format's)",
        )
        for loc, known in found
    ]


def parse_file_reference(path: Path, model: type[M], display: str | None = None) -> tuple[M | None, list[Problem]]:
    """Parse one JSON file into ``model``; return (object, []) or (None, problems).

    Every way a file can fail to read is a problem of that file, never an exception: bytes that
    are not UTF-8, text that is not JSON, an integer literal longer than Python converts
    (``sys.get_int_max_str_digits()``, 4,300 digits), nesting deeper than MAX_DEPTH, a lone
    surrogate escape in a string or key, a top level that is not an object, or a field that
    fails validation. A file that cannot be opened (a folder, no permission) is one too.
    """
    name = display or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        return None, [Problem(name, "$", f"not UTF-8 text ({e.reason} at byte {e.start})")]
    except OSError as e:
        return None, [Problem(name, "$", f"cannot be read ({e.strerror or e})")]
    if not text.strip():
        what = "empty (0 bytes)" if not text else "white space only"
        return None, [Problem(name, "$", f"not valid JSON: the file is {what}; a release file holds one JSON object")]
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        # json's messages that name a place end in "at" ("Unterminated string starting at")
        where = (
            f"line {e.lineno}, column {e.colno}" if e.msg.endswith(" at") else f"at line {e.lineno}, column {e.colno}"
        )
        return None, [Problem(name, "$", f"not valid JSON: {e.msg} {where}")]
    except RecursionError:
        return None, [
            Problem(
                name,
                "$",
                f"values are nested more than {MAX_DEPTH} levels deep (first at "
                f"{_too_deep_at(text)}); flatten or remove that field",
            )
        ]
    except ValueError:  # an integer literal beyond the digit limit of int()
        found = _LONG_NUMBER.search(text)
        where = _line_col(text, found.start()) if found else "an unknown position"
        return None, [
            Problem(
                name,
                "$",
                f"the number at {where} has more than {sys.get_int_max_str_digits()} digits, "
                "too long to read; no field of the format needs more than a few digits: "
                "shorten or remove it",
            )
        ]
    if not isinstance(raw, dict):
        return None, [Problem(name, "$", f"the top level must be a JSON object, got {type(raw).__name__}")]
    bad = _first_bad_value(raw)
    if bad is not None:
        return None, [Problem(name, *bad)]
    try:
        obj = model.model_validate(raw)
    except ValidationError as err:
        return None, _problems_from_validation(name, err)
    return _spelt_right(obj, name)


class FolderEntryError(ReleaseFormatError):
    """A ``*.json`` entry of a release folder cannot be read as one of its files: a symbolic
    link (only regular files are read), or a name that is not UTF-8 (no table can hold it)."""


_LINK_FIX = "copy the file into the folder (cp --dereference) or remove the link"
_NAME_FIX = "rename the file with a UTF-8 name"


def _printable(path: Path) -> str:
    """``path`` as text that can be printed and written anywhere: bytes of a name that is not
    UTF-8 (Python holds them as lone surrogates) shown as ``\\xff`` escapes."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def list_json_files(directory: Path) -> list[Path]:
    """The ``*.json`` files directly inside ``directory``, sorted by name.

    Only regular files are read: a symbolic link named ``*.json`` is refused rather than
    followed out of the folder, and so is a file whose name is not UTF-8 (its name goes into
    the tables' ``source_file``); ``FolderEntryError`` names every such entry and the fix.
    Entries that are not files (folders named ``x.json``) are skipped. The folder itself may
    be a link. A file whose extension is ``.json`` in other letters (``x.JSON``) is refused
    rather than left out unseen: the workflow's file lists take ``*.json`` only.
    """
    if not directory.is_dir():
        raise FileNotFoundError(f"not a directory: {directory}")
    listed = list(directory.iterdir())
    entries = sorted(p for p in listed if p.suffix == ".json")
    problems = [
        Problem(
            _printable(p),
            "$",
            f"ends in {p.suffix!r}, not '.json', and would not be read: rename it to "
            f"{_printable(Path(p.with_suffix('.json').name))}",
        )
        for p in sorted(listed)
        if p.suffix != ".json" and p.suffix.lower() == ".json" and p.is_file()
    ]
    for p in entries:
        if p.is_symlink():
            target = _printable(Path(os.readlink(p)))
            problems.append(
                Problem(
                    _printable(p),
                    "$",
                    f"is a symbolic link (to {target}); only regular files "
                    f"directly in the folder are read: {_LINK_FIX}",
                )
            )
        elif _SURROGATE.search(str(p)):
            problems.append(Problem(_printable(p), "$", f"the file name is not UTF-8 text: {_NAME_FIX}"))
    if problems:
        raise FolderEntryError(
            problems, "Only regular files named *.json with UTF-8 names are read (docs/release-format.md)."
        )
    return [p for p in entries if p.is_file()]


@cyclic_gc_paused()
def _read_all(
    files: Sequence[Path],
    model: type[M],
    report_all: bool,
    hint: str,
    fast: Callable[[Path], Any] | None = None,
) -> list[tuple[Path, Any]]:
    """Every file parsed (``fast`` first when given: an object, or None to take ``parse_file``)."""
    parsed: list[tuple[Path, Any]] = []
    problems: list[Problem] = []
    n_read = 0
    for path in files:
        obj = fast(path) if fast is not None else None
        file_problems: list[Problem] = []
        if obj is None:
            obj, file_problems = parse_file(path, model)
        n_read += 1
        if file_problems:
            problems.extend(file_problems)
            if not report_all:
                break
        else:
            parsed.append((path, obj))
    if problems:
        raise ReleaseFormatError(problems, hint, n_files=len(files), n_read=n_read)
    return parsed


_REPORT_ALL = ", or set ingest.report_all_errors: true to list every bad file at once"


def _conversations_hint(report_all: bool) -> str:
    """What to do about bad conversation files (with ``report_all`` every one is listed already)."""
    return (
        "Fix the field named above in the source file (see docs/release-format.md)"
        + ("" if report_all else _REPORT_ALL)
        + "."
    )


def read_conversations(files: Sequence[Path], report_all: bool = False) -> list[tuple[Path, ConversationFile]]:
    """Validate conversation files; cross-file checks: unique conversation ids."""
    parsed = _read_all(files, ConversationFile, report_all, _conversations_hint(report_all))
    problems: list[Problem] = []
    first_seen: dict[str, Path] = {}
    for path, conv in parsed:
        if conv.conversationId in first_seen:
            problems.append(
                Problem(
                    str(path),
                    "$.conversationId",
                    f"conversation id {conv.conversationId!r} is also used by {first_seen[conv.conversationId]}; ids "
                    f"must be unique",
                )
            )
        else:
            first_seen[conv.conversationId] = path
    if problems:
        raise ReleaseFormatError(problems, _conversations_hint(True), n_files=len(files))
    return parsed


def _em_hint(expected_model: str, expected_mode: str, report_all: bool = False) -> str:
    """What to do about a model's bad output files (with ``report_all`` every one is listed already)."""
    return (
        f"These are the outputs of model {expected_model!r} (mode {expected_mode!r}); fix the named field"
        + ("" if report_all else _REPORT_ALL)
        + "."
    )


def read_em_files(
    files: Sequence[Path], expected_model: str, expected_mode: str, report_all: bool = False
) -> list[tuple[Path, EMOutputFile | EMFile]]:
    """Validate one model's output files for one mode, each file on its own (the first part of
    ``read_em_outputs``; ``em_cross_file_error`` is the second). Raises the
    ``ReleaseFormatError`` of the first bad file (every bad file with ``report_all``)."""
    return _read_all(
        files, EMOutputFile, report_all, _em_hint(expected_model, expected_mode, report_all), em_canonical.parse_file
    )


#: What the cross-file checks read of one EM output file: (path, conversationId, em_model, mode).
EMIdentity = tuple[Path, str, str, str]


def em_identities(parsed: Iterable[tuple[Path, EMOutputFile | EMFile]]) -> list[EMIdentity]:
    """The ``EMIdentity`` of each parsed file, in order (ids are strings once parsed: a
    canonical file's numeric id is normalised to its string, as pydantic does)."""
    return [(path, cast(str, out.conversationId), cast(str, out.em_model), out.mode) for path, out in parsed]


def em_cross_file_error(
    identities: Sequence[EMIdentity],
    expected_model: str,
    expected_mode: str,
    known_conversations: set[str] | None = None,
) -> ReleaseFormatError | None:
    """The error of the cross-file checks of ``read_em_outputs`` (None when they pass), on the
    files' identities in the order read: ``em_model`` and ``mode`` match the registered model
    and mode, each conversation appears once, and (if ``known_conversations`` is given) every
    output refers to a conversation of the cohort."""
    problems: list[Problem] = []
    seen: dict[str, Path] = {}
    # A model registered under another name than its files give: one problem, not one per file.
    models = {em_model for _, _, em_model, _ in identities}
    renamed = len(models) == 1 and expected_model not in models
    if renamed:
        given = next(iter(models))
        problems.append(
            Problem(
                str(identities[0][0].parent),
                "$.em_model",
                f"is {given!r} in {'its one file' if len(identities) == 1 else f'all {len(identities)} files'}, "
                f"but this folder holds the outputs of model "
                f"{expected_model!r}: name the model {given!r} in config key 'models', or set em_model to "
                f"{expected_model!r} in its files",
            )
        )
    for path, conversation_id, em_model, mode in identities:
        if em_model != expected_model and not renamed:
            problems.append(
                Problem(
                    str(path),
                    "$.em_model",
                    f"is {em_model!r} but this folder holds the outputs of model {expected_model!r}",
                )
            )
        if mode != expected_mode:
            problems.append(Problem(str(path), "$.mode", f"is {mode!r} but this folder holds mode {expected_mode!r}"))
        if known_conversations is not None and conversation_id not in known_conversations:
            problems.append(
                Problem(str(path), "$.conversationId", f"{conversation_id!r} is not a conversation of the cohort")
            )
        if conversation_id in seen:
            problems.append(
                Problem(
                    str(path),
                    "$.conversationId",
                    f"{conversation_id!r} is also answered by {seen[conversation_id]}",
                )
            )
        seen.setdefault(conversation_id, path)
    if not problems:
        return None
    return ReleaseFormatError(problems, _em_hint(expected_model, expected_mode, True), n_files=len(identities))


def read_em_outputs(
    files: Sequence[Path],
    expected_model: str,
    expected_mode: str,
    known_conversations: set[str] | None = None,
    report_all: bool = False,
) -> list[tuple[Path, EMOutputFile | EMFile]]:
    """Validate one model's output files for one mode.

    A file in the canonical shape is decoded by ``em_canonical`` (msgspec, in one pass) into an
    ``em_canonical.EMFile`` with the same attributes; any other file is validated by pydantic
    into an ``EMOutputFile``, which names its problems (``read_em_files``).

    Then the cross-file checks (``em_cross_file_error``): ``em_model`` and ``mode`` match the
    registered model and mode, each conversation appears once, and (if ``known_conversations``
    is given) every output refers to a conversation of the cohort.
    """
    parsed = read_em_files(files, expected_model, expected_mode, report_all)
    error = em_cross_file_error(em_identities(parsed), expected_model, expected_mode, known_conversations)
    if error is not None:
        raise error
    return parsed
