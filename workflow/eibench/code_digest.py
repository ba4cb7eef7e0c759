"""Which library files a rule script runs, and one sha256 over them: the digest that makes
Snakemake rerun a rule when the library code it calls changes (a param of every rule with a
script, workflow/rules/common.smk).

A script's *library closure* is every module of the library package (``eibench``) that the
script imports, directly or through other library modules, found by reading the sources
(``ast``; nothing is imported or run):

- ``import eibench.a.b`` and ``from eibench.a import b`` count ``eibench``, ``eibench.a`` and
  ``eibench.a.b`` (the package ``__init__`` files run on import), ``b`` when it is a submodule;
- relative imports (``from .x import y``, ``from .. import z``) are resolved against the module;
- an import anywhere in a file counts (inside a function, under ``if``/``try``): the closure is
  a superset of what one run executes, never a subset;
- imports of other packages (numpy, the standard library) are not followed: their versions are
  in the reproducibility statement, not in this digest. A name built at run time
  (``importlib.import_module(name)``) is not seen.

Non-Python files count as the data of their package: every file of a module's package folder
and of its sub-folders that are not packages themselves (``predict/prompts/*.yaml`` belongs to
``eibench.predict``, ``instrument/*.csv`` to ``eibench.instrument``), but ``__pycache__``. So a
module that reads a file beside it through ``importlib.resources`` or ``__file__`` depends on
it; a module of the same package that does not read it depends on it too (a harmless rerun).

The digest is the sha256 of the ``sha256sum``-style listing of the closure's files
(``<sha256>  <path relative to the library's parent>`` lines, sorted by path): it changes with
any byte of those files, and not with their modification times or the folder the repository
is in.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path
from typing import Iterable, Iterator

from .checksums import sha256_of

PACKAGE = "eibench"

# The fields of a statement that hold nested statements (imports are statements, never inside
# an expression): walking only these is ten times faster than ast.walk.
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def import_statements(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement of a block and of the blocks nested in it (functions, classes,
    if/try/with/for/while/match)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        for field in _BLOCKS:
            yield from import_statements(getattr(node, field, None) or [])


class Library:
    """The modules of one package folder (``root`` is the folder of the package ``name``, e.g.
    ``workflow/eibench``), read once: each file's imports and checksum are cached, so the
    closures of many scripts cost one parse of the library."""

    def __init__(self, root: Path, name: str = PACKAGE):
        self.root = Path(root).resolve()
        self.name = name
        self._digests: dict[frozenset[Path], str] = {}
        self._import_cache: dict[Path, frozenset[Path]] = {}
        self._data_cache: dict[Path, tuple[Path, ...]] = {}

    def module_file(self, module: str) -> Path | None:
        """The file of a dotted module name of the package (its ``__init__.py`` for a
        package), or None when it is not one of the package's modules."""
        parts = module.split(".")
        if parts[0] != self.name:
            return None
        base = self.root.joinpath(*parts[1:])
        for candidate in (base / "__init__.py", base.with_suffix(".py")):
            if candidate.is_file():
                return candidate
        return None

    def module_name(self, path: Path) -> str:
        """The dotted name of a file of the package (``eibench.metrics`` for its __init__)."""
        rel = Path(path).relative_to(self.root).with_suffix("")
        parts = [self.name, *rel.parts]
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    def _imports(self, path: Path) -> frozenset[Path]:
        """The library files ``path`` imports directly (with the packages they are in); cached."""
        if path not in self._import_cache:
            self._import_cache[path] = self._read_imports(path)
        return self._import_cache[path]

    def _read_imports(self, path: Path) -> frozenset[Path]:
        in_library = path.is_relative_to(self.root)
        here = self.module_name(path) if in_library else ""
        # The package a relative import starts from: the module's own for an __init__.py.
        package = here if path.name == "__init__.py" else here.rpartition(".")[0]
        names: set[str] = set()
        for node in import_statements(ast.parse(path.read_bytes(), filename=str(path)).body):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    if not in_library:
                        continue  # a relative import in a script outside the package
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                names.add(base)
                names.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
        files = set()
        for name in names:
            parts = name.split(".")
            for i in range(1, len(parts) + 1):  # the module and every package above it
                found = self.module_file(".".join(parts[:i]))
                if found is not None:
                    files.add(found)
        return frozenset(files)

    def closure(self, script: Path) -> list[Path]:
        """Every library module ``script`` imports, transitively, sorted (``script`` itself
        only when it is a library module)."""
        start = Path(script).resolve()
        seen: set[Path] = set()
        todo = [start]
        while todo:
            path = todo.pop()
            for found in self._imports(path):
                if found not in seen:
                    seen.add(found)
                    todo.append(found)
        if start.is_relative_to(self.root):
            seen.add(start)
        return sorted(seen)

    def data_files(self, folder: Path) -> tuple[Path, ...]:
        """The non-Python files of a package folder and of its sub-folders that are not
        packages (no __init__.py), but __pycache__, sorted; cached."""
        if folder not in self._data_cache:
            self._data_cache[folder] = self._read_data_files(folder)
        return self._data_cache[folder]

    def _read_data_files(self, folder: Path) -> tuple[Path, ...]:
        out = []
        for entry in sorted(folder.iterdir()):
            if entry.is_dir():
                if entry.name != "__pycache__" and not (entry / "__init__.py").exists():
                    out += [p for p in sorted(entry.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
            elif entry.suffix != ".py":
                out.append(entry)
        return tuple(out)

    def files(self, script: Path) -> list[Path]:
        """The closure of ``script`` with the data files of the packages of its modules."""
        modules = self.closure(script)
        data = {f for folder in {m.parent for m in modules} for f in self.data_files(folder)}
        return sorted(set(modules) | data)

    def digest(self, files: Iterable[Path]) -> str:
        """The sha256 of the files' listing (``<sha256>  <path>`` lines, paths relative to the
        library's parent folder, sorted)."""
        key = frozenset(files)
        if key not in self._digests:
            lines = sorted(f"{sha256_of(p)}  {p.relative_to(self.root.parent).as_posix()}\n" for p in key)
            self._digests[key] = hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()
        return self._digests[key]

    def script_digest(self, script: Path) -> str:
        """The digest of everything of the library ``script`` runs (its closure and data)."""
        return self.digest(self.files(script))
