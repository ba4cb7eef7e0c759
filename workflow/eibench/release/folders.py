"""Release-format folders as Snakemake rule inputs, checked when the workflow is parsed.

A cohort release (``cohorts.attunebench.path``) and each mode folder of an ``outputs_dir`` model
are read file by file, and their files are the inputs of the rules that read them, so editing
one file reruns what depends on it. Two things stop that listing from reaching Snakemake raw:

- a symbolic link named ``*.json`` is refused (``read.list_json_files``), never followed;
- Snakemake reads ``{...}`` in an input as a wildcard (a file ``conversation_{model}.json``
  stops the whole run with a WildcardError, and no escaping of the braces helps), so a folder
  with such a name is given as the folder itself, with :func:`listing_digest` as a parameter of
  the rule, so that editing, adding or removing any file still reruns it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .read import list_json_files


def has_brace(path: Path) -> bool:
    return "{" in path.name or "}" in path.name


def rule_inputs(folder: str | Path) -> list[str]:
    """The rule inputs for the ``*.json`` files of ``folder``: each file, sorted by name; or
    ``[folder]`` when a file name holds a brace. Raises FileNotFoundError (no folder) and
    read.FolderEntryError (a ``*.json`` link, a name that is not UTF-8)."""
    files = list_json_files(Path(folder))
    if any(map(has_brace, files)):
        return [str(folder)]
    return [str(p) for p in files]


def listing_digest(folder: str | Path) -> str | None:
    """sha256 of the names and contents of the folder's ``*.json`` files (sorted by name),
    when a name holds a brace (the folder is then the rule input, see the module docstring);
    None otherwise (the files themselves are the inputs)."""
    files = list_json_files(Path(folder))
    if not any(map(has_brace, files)):
        return None
    h = hashlib.sha256()
    for p in files:
        h.update(p.name.encode("utf-8", "surrogateescape") + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()
