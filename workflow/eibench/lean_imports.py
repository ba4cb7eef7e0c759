"""Keep an import that costs seconds and serves nothing of ours out of the process.

jsonschema imports every optional format checker it can find when it is itself imported.
rfc3987_syntax (installed for Jupyter, through jupyter-events) compiles an Earley grammar at its
import: about 1.4 s on this machine, in every process that imports jsonschema. Two of ours do:
Snakemake's own process (the config is validated against config/schema) and each notebook job
(nbformat validates the executed notebook). Neither schema uses the ``iri`` or
``iri-reference`` formats that checker serves, and without it jsonschema leaves those formats
unchecked, as it does when the package is not installed.
"""

from __future__ import annotations

import sys


def skip_iri_format_checker() -> None:
    """Make ``import rfc3987_syntax`` fail in this process, so that jsonschema, imported
    after this call, skips the ``iri`` format checker. Does nothing when the module is already
    imported (jsonschema then has it) or already skipped; call it before importing jsonschema,
    nbformat or anything that imports them."""
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
