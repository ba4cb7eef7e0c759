"""The optional keys of the config ``collection`` section and their defaults (the schema,
config/schema/config.schema.yaml, states the same defaults; docs/collection.md explains them)."""

from __future__ import annotations

from typing import Any

#: Seconds one attempt of a request may take in all: connect, headers and the whole body.
#: ``timeout_seconds`` of a model bounds each wait for a byte; this bounds the sum.
REQUEST_DEADLINE_SECONDS = 120.0
#: Bytes of one response body (decoded) above which the answer is refused, counted as it streams.
MAX_RESPONSE_BYTES = 4 * 1024 * 1024
#: Seconds without a heartbeat after which a shard lock is stale (its owner hung or died elsewhere).
LOCK_STALE_SECONDS = 120.0
#: Seconds a collector waits for a shard held by a live owner before it refuses (an orphan of an
#: interrupted run finishes its requests in flight, at most one request deadline, then lets go).
LOCK_WAIT_SECONDS = 300.0

DEFAULTS: dict[str, Any] = {
    "request_deadline_seconds": REQUEST_DEADLINE_SECONDS,
    "max_response_bytes": MAX_RESPONSE_BYTES,
    "lock_stale_seconds": LOCK_STALE_SECONDS,
    "lock_wait_seconds": LOCK_WAIT_SECONDS,
}


def collection_settings(collection: dict[str, Any]) -> dict[str, Any]:
    """The optional keys of ``collection``, each from the config or its default."""
    return {key: collection.get(key, default) for key, default in DEFAULTS.items()}


def request_bounds(collection: dict[str, Any]) -> dict[str, Any]:
    """The keys of ``collection`` that bound one request (``LiveModel.from_config(..., bounds)``)."""
    settings = collection_settings(collection)
    return {k: settings[k] for k in ("request_deadline_seconds", "max_response_bytes")}
