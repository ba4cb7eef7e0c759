"""Read configuration files strictly: what Snakemake's own loading lets through.

Snakemake loads ``configfile:`` and ``--configfile`` itself (JSON, else YAML) before the workflow
sees the config; a key given twice in one mapping silently keeps its last value there. The
workflow re-reads each of those files here, when it is parsed, and refuses:

- a key given twice in one mapping (the file, the key's config path and both lines);
- a file that is not UTF-8 text (the file and the byte offset).

Snakemake itself reads ``--configfile`` files before the workflow: a file that is not UTF-8
stops Snakemake with its own UnicodeDecodeError before this module runs (docs/release-format.md
explains); ``python -m eibench.config_files FILE...`` checks files by hand and names the file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterable

import yaml


class ConfigFileError(ValueError):
    """A configuration file cannot be read as one unambiguous mapping."""


class _StrictLoader(yaml.SafeLoader):
    """A SafeLoader that refuses a key given twice in one mapping (YAML 1.2 calls it an
    error; PyYAML keeps the last). Keys merged in with ``<<`` may be overridden."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # '<<: *anchor': its keys may be overridden
                continue
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in seen:
                    raise _Duplicate(key, seen[key], line, node)
                seen[key] = line
            except TypeError:  # an unhashable key: SafeLoader's own error follows
                continue
        return super().construct_mapping(node, deep=deep)


class _Duplicate(Exception):
    def __init__(self, key: Any, first: int, second: int, node: yaml.Node):
        self.key, self.first, self.second, self.node = key, first, second, node


class _DuplicateJSONKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateJSONKey(key)
        out[key] = value
    return out


def _key_path(root: yaml.Node, target: yaml.Node) -> str:
    """The config path (``a.b[2].c``) of mapping node ``target`` inside ``root``."""
    stack: list[tuple[yaml.Node, str]] = [(root, "")]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                name = str(k.value) if isinstance(k, yaml.ScalarNode) else "?"
                stack.append((v, f"{path}.{name}" if path else name))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(node.value))
    return ""


def read_config_file(path: str | Path) -> Any:
    """The content of one config file (JSON, else YAML, as Snakemake reads it), or ConfigFileError
    naming the file and what is wrong (not UTF-8, neither JSON nor YAML, a key given twice: with
    its config path and both lines, for JSON too when it also reads as YAML)."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigFileError(
            f"config file {path}: not UTF-8 text ({e.reason} at byte {e.start}); "
            "save it as UTF-8 (a YAML or JSON text file)"
        ) from None
    except OSError as e:
        raise ConfigFileError(f"config file {path}: cannot be read ({e.strerror or e})") from None
    try:  # Snakemake reads a file as JSON first; a JSON file need not be valid YAML (tabs)
        return json.loads(text, object_pairs_hook=_unique_pairs)
    except _DuplicateJSONKey as dup:
        json_duplicate: str | None = dup.key
    except ValueError:
        json_duplicate = None
    loader = _StrictLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        try:
            return loader.construct_document(root)
        except _Duplicate as dup:
            where = _key_path(root, dup.node)
            key = f"{where}.{dup.key}" if where else str(dup.key)
            raise ConfigFileError(
                f"config file {path}: key {key!r} is given twice (lines {dup.first} and "
                f"{dup.second}); Snakemake would keep only the last, so delete one of them"
            ) from None
    except yaml.YAMLError as e:
        if json_duplicate is not None:  # JSON that YAML cannot read: the key without its lines
            raise ConfigFileError(
                f"config file {path}: key {json_duplicate!r} is given twice in one object; "
                "JSON readers keep only the last, so delete one of them"
            ) from None
        raise ConfigFileError(f"config file {path}: not valid YAML or JSON: {e}") from None
    finally:
        loader.dispose()


def read_config_files(paths: Iterable[str | Path]) -> tuple[dict[str, Any], list[str]]:
    """Each file :func:`read_config_file` reads (path as given -> content), and one message per
    file it refuses (empty if all read)."""
    contents: dict[str, Any] = {}
    problems = []
    for path in paths:
        try:
            contents[str(path)] = read_config_file(path)
        except ConfigFileError as err:
            problems.append(str(err))
    return contents, problems


def check_config_files(paths: Iterable[str | Path]) -> list[str]:
    """One message per config file that :func:`read_config_file` refuses (empty if all read)."""
    return read_config_files(paths)[1]


def main(argv: list[str] | None = None) -> int:
    """``python -m eibench.config_files FILE...``: 0 if every file reads, else 1 with the reasons."""
    problems = check_config_files(argv if argv is not None else sys.argv[1:])
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
