"""Unknown fields of a parsed file: whether there are any, and which are near misses of a
known field (misspelt fields, read as absent).

The format keeps a field it does not know aside (the ``extra_fields`` table), so that a
release can carry fields of its own. A misspelt known field (``prePanass``, ``em_emotion_tag``)
goes the same way: the file validates, and the field it meant is read as missing, without a
word. ``misspelt_fields`` finds the unknown fields whose name is close to a name the object
knows (a field or one of its spellings), so the reader can refuse the file, naming the field
and the name it is close to.

"Close" is ``difflib``'s similarity ratio of at least ``CUTOFF`` (0.85): one letter added,
dropped or changed in a name of 7 letters or more, or a change of case. A field of one's own
named unlike every known field (``notes``, ``annotatorId``) is kept as before, and so is one
closer to a field its object gives than to any it lacks (``om_model`` in a file that gives
``em_model``): a misspelling takes the place of the field it meant, so a field given under its
right name was not misspelt. A name as close to a missing field as to a given one
(``alternate`` beside ``alternate2``, as close to ``alternate1``) is refused.
"""

from __future__ import annotations

import difflib
import typing
from typing import Any, Iterator

from pydantic import AliasChoices, BaseModel

CUTOFF = 0.85
_KNOWN: dict[type, dict[str, str]] = {}
_NODE_FIELDS: dict[type, tuple[str, ...]] = {}


def _holds_models(annotation: Any) -> bool:
    """Whether a field of this type can hold a model object, itself or inside (Optional, list)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_holds_models(arg) for arg in typing.get_args(annotation))


def node_fields(cls: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``cls`` that can hold a model (or a list of them), read once per class."""
    names = _NODE_FIELDS.get(cls)
    if names is None:  # the property is slow: read it once per class
        names = _NODE_FIELDS[cls] = tuple(n for n, f in cls.model_fields.items() if _holds_models(f.annotation))
    return names


def has_extra_fields(obj: BaseModel) -> bool:
    """Whether any object under ``obj`` (itself included) has an unknown field. Iterative, and
    building no path: the common answer (no) costs one look per object."""
    stack = [obj]
    while stack:
        node = stack.pop()
        if node.__pydantic_extra__:
            return True
        for name in node_fields(type(node)):
            child = getattr(node, name)
            if isinstance(child, BaseModel):
                stack.append(child)
            elif isinstance(child, list):
                stack.extend(item for item in child if isinstance(item, BaseModel))
    return False


def known_names(cls: type[BaseModel]) -> dict[str, str]:
    """Every name an object of ``cls`` reads a field under (the fields and their spellings),
    sorted, each to the name of its field."""
    found = _KNOWN.get(cls)
    if found is None:
        names: dict[str, str] = {}
        for name, info in cls.model_fields.items():
            names[name] = name
            alias = info.validation_alias
            if isinstance(alias, str):
                names[alias] = name
            elif isinstance(alias, AliasChoices):
                names.update((c, name) for c in alias.choices if isinstance(c, str))
            if info.alias:
                names[info.alias] = name
        found = _KNOWN[cls] = dict(sorted(names.items()))
    return found


def with_extra_fields(obj: BaseModel, loc: tuple = ()) -> Iterator[tuple[BaseModel, tuple]]:
    """Every object under ``obj`` (itself included) that has unknown fields, with its location
    (field names and list indices from ``obj``), parents before their children and children in
    field order."""
    if obj.__pydantic_extra__:
        yield obj, loc
    for name in node_fields(type(obj)):
        child = getattr(obj, name)
        if isinstance(child, BaseModel):
            yield from with_extra_fields(child, (*loc, name))
        elif isinstance(child, list):
            for i, item in enumerate(child):
                if isinstance(item, BaseModel):
                    yield from with_extra_fields(item, (*loc, name, i))


def _closest(
    key: str, known: dict[str, str], fields_given: set[str]
) -> tuple[tuple[float, str] | None, tuple[float, str] | None]:
    """The known name closest to ``key`` (similarity, name) among those whose field is given,
    and among those whose field is missing; None where no name is close (``CUTOFF``; a name
    differing only in letter case counts as similarity 1)."""
    best: dict[bool, tuple[float, str]] = {}
    for name, field in known.items():
        score = 1.0 if name.lower() == key.lower() else difflib.SequenceMatcher(None, key, name).ratio()
        is_given = field in fields_given
        if score >= CUTOFF and score > best.get(is_given, (-1.0, ""))[0]:
            best[is_given] = (score, name)
    return best.get(True), best.get(False)


def misspelt_fields(obj: BaseModel, loc: tuple = ()) -> list[tuple[tuple, str]]:
    """(location of the unknown field, the known name it is close to) for every unknown field
    under ``obj`` (itself included) whose name is a near miss of a name its object knows and
    whose object does not give that field (under any of its spellings, null included), unless
    a field it gives has a name closer still; the location is the tuple of field names and list
    indices from ``obj``, ending with the unknown field's name. A file without unknown fields
    costs one look per object."""
    if not has_extra_fields(obj):
        return []
    found = []
    for node, at in with_extra_fields(obj, loc):
        known = known_names(type(node))
        for key in sorted(node.__pydantic_extra__ or {}):
            if key in known:  # a second spelling of a field given (schema._SpelledNode keeps it aside)
                continue
            # The closest known names, given or missing: a key at least as close to a missing
            # field as to every given one (``alternate`` beside ``alternate2``, as close to
            # ``alternate1``) may mean the missing one; closer to a given one, it is one's own.
            given, missing = _closest(key, known, node.model_fields_set)
            if missing is not None and missing[0] >= (given[0] if given is not None else 0.0):
                found.append(((*at, key), missing[1]))
    return found
