"""A committed, verified record of one live model's answers: the cache without the requests.

A record lets a model's predictions (and the paper built from them) rebuild offline, without the
model's server, the way HELM publishes raw responses. It is a JSON Lines file:

- line 1, the **header**: ``format`` (``eibench-response-record``), ``version`` (1), ``model`` (the
  config name), ``identity`` (what every key hashes besides the request: kind, model id, revision,
  decoding parameters, ``structured_output``; for the local model the revision names the GGUF
  file's sha256 and the server's version), ``prompt_version``, ``entries`` (the count) and
  ``sha256``, the digest of the entry lines that follow, in order;
- one line per answer, sorted by key: ``key`` (the request digest of ``cache.request_key``),
  ``text`` (the model's answer), ``input_tokens``, ``output_tokens`` (null when unknown),
  ``latency_seconds``, ``created_at``, and ``sha256`` of the line's other fields.

No request is stored: the messages hold the dataset's text (ESConv is not ours to redistribute),
and they are not needed, since a rebuild renders every request again from the data and looks its
digest up. An answer is thus served only to the request whose digest it carries; one
line per key; every line's checksum and the header's digest are checked when the record is read
(``read_record``), and the header's identity must be the configured model's, so a changed model,
revision or decoding setting fails at once with the field to fix, instead of silently asking
the server again. ``unused_keys`` lists the entries a collection did not ask for: a record made
by the same code and data has none (the rebuild checks it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .cache import JOURNAL_SUFFIX, Entry, Record, published_files, read_journal, read_sqlite

FORMAT = "eibench-response-record"
VERSION = 1
ENTRY_FIELDS = ("key", "text", "input_tokens", "output_tokens", "latency_seconds", "created_at")


class RecordError(ValueError):
    """A record file that cannot be trusted (damaged, another model's, or built from a mixed cache)."""


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _entry_line(key: str, entry: Entry) -> str:
    body = {
        "key": key,
        "text": entry.text,
        "input_tokens": entry.input_tokens,
        "output_tokens": entry.output_tokens,
        "latency_seconds": entry.latency_seconds,
        "created_at": entry.created_at,
    }
    body["sha256"] = hashlib.sha256(_canonical(body).encode()).hexdigest()
    return _canonical(body)


@dataclass(frozen=True)
class ResponseRecord:
    """A record as read: its header fields and its answers by key."""

    path: Path
    model: str
    identity: dict[str, Any]
    prompt_version: str
    entries: dict[str, Entry]

    def unused_keys(self, used: Iterable[str]) -> list[str]:
        """The keys of the record that are not in ``used`` (sorted)."""
        return sorted(set(self.entries) - set(used))


def write_record(records: Iterable[Record], model: str, out: str | Path, replace: bool = False) -> ResponseRecord:
    """Write the record of ``records`` (cache records of one model) to ``out``; the requests are
    dropped after their identity and prompt version are checked to be one and the same.

    RecordError when the records mix identities or prompt versions (a cache folder holding
    answers of two settings: export one setting at a time), when one key has two texts, or when
    ``out`` holds another record and ``replace`` is False (the same bytes again are written)."""
    entries: dict[str, Entry] = {}
    identity = prompt_version = None
    for r in records:
        request = json.loads(r.request)
        # The answer schema of a structured request is the task's, not the model's: left out.
        this = {k: v for k, v in request["identity"].items() if k != "response_schema"}
        if identity is None:
            identity, prompt_version = this, request["prompt_version"]
        elif this != identity or request["prompt_version"] != prompt_version:
            raise RecordError(
                f"model {model!r}: the cache mixes answers of two settings ({_canonical(identity)} "
                f"and {_canonical(this)}, prompt versions {prompt_version!r} and "
                f"{request['prompt_version']!r}); move one setting's files away and export again"
            )
        old = entries.setdefault(r.key, r.entry)
        if old.text != r.entry.text:
            raise RecordError(
                f"model {model!r}: key {r.key} has two different answers in the cache; "
                "run python -m eibench.predict.cache_merge first, which names the files"
            )
    if identity is None:
        raise RecordError(f"model {model!r}: no answer to record")
    lines = [_entry_line(k, entries[k]) for k in sorted(entries)]
    header = {
        "format": FORMAT,
        "version": VERSION,
        "model": model,
        "identity": identity,
        "prompt_version": prompt_version,
        "entries": len(lines),
        "sha256": hashlib.sha256("".join(line + "\n" for line in lines).encode()).hexdigest(),
    }
    out = Path(out)
    text = _canonical(header) + "\n" + "".join(line + "\n" for line in lines)
    if out.exists() and not replace and out.read_bytes() != text.encode("utf-8"):
        raise RecordError(
            f"{out} exists and holds other answers: export to another path, or pass --replace to "
            "write over it (a committed record stays in git's history)"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(out.name + ".staging")
    staging.write_text(text, encoding="utf-8")
    staging.replace(out)
    return read_record(out)


def read_record(
    path: str | Path, expect_identity: dict[str, Any] | None = None, expect_prompt_version: str | None = None
) -> ResponseRecord:
    """Read and verify a record: every line's checksum, the header's digest and count, one line
    per key, keys in order; with ``expect_identity`` / ``expect_prompt_version``, the header must
    match them. RecordError names the file, the line or field, and the fix."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"response record {path} not found (config key record of the model); "
            "restore it from the repository or set record: null to collect afresh"
        )
    lines = path.read_text(encoding="utf-8").splitlines()
    try:
        header = json.loads(lines[0]) if lines else None
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("version") != VERSION:
        raise RecordError(f"{path}: line 1 is not a header of format {FORMAT} version {VERSION}")
    body = "".join(line + "\n" for line in lines[1:])
    if hashlib.sha256(body.encode()).hexdigest() != header.get("sha256") or len(lines) - 1 != header.get("entries"):
        raise RecordError(
            f"{path}: header field sha256/entries does not match the {len(lines) - 1} entry lines "
            "(the file was edited or truncated); restore it from the repository"
        )
    entries: dict[str, Entry] = {}
    previous = ""
    for number, line in enumerate(lines[1:], start=2):
        try:
            item = json.loads(line)
            check = item.pop("sha256")
            ok = hashlib.sha256(_canonical(item).encode()).hexdigest() == check and set(item) == set(ENTRY_FIELDS)
        except (ValueError, KeyError, AttributeError):
            ok = False
        if not ok:
            raise RecordError(f"{path}: line {number}: the entry does not verify against its checksum")
        if item["key"] <= previous:
            raise RecordError(f"{path}: line {number}: key {item['key']} is out of order or repeated")
        previous = item["key"]
        entries[item["key"]] = Entry(
            item["text"],
            item["input_tokens"],
            item["output_tokens"],
            float(item["latency_seconds"]),
            item["created_at"],
        )
    if expect_identity is not None and header["identity"] != expect_identity:
        diff = sorted(
            k
            for k in set(header["identity"]) | set(expect_identity)
            if header["identity"].get(k) != expect_identity.get(k)
        )
        raise RecordError(
            f"{path}: header field identity differs from the configured model in {', '.join(diff)} "
            f"(record: {_canonical({k: header['identity'].get(k) for k in diff})}, config: "
            f"{_canonical({k: expect_identity.get(k) for k in diff})}); configure the model the "
            "record was made with, or set record: null to collect afresh"
        )
    if expect_prompt_version is not None and header["prompt_version"] != expect_prompt_version:
        raise RecordError(
            f"{path}: header field prompt_version is {header['prompt_version']!r}, the config's "
            f"collection.prompt_version is {expect_prompt_version!r}"
        )
    return ResponseRecord(path, header["model"], header["identity"], header["prompt_version"], entries)


def cache_records(directory: str | Path) -> list[Record]:
    """Every record of a model's cache folder: its journals and published SQLite files."""
    directory = Path(directory)
    out: list[Record] = []
    for journal in sorted(directory.glob(f"*{JOURNAL_SUFFIX}")):
        out += read_journal(journal)[0]
    for published in published_files(directory):
        out += list(read_sqlite(published))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eibench.predict.record", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export", help="write the record of one model's cache folder")
    export.add_argument("cache", help="the model's cache folder, e.g. cache/smollm2-135m")
    export.add_argument("out", help="the record file to write, e.g. records/smollm2-135m.jsonl")
    export.add_argument("--model", help="the model's config name (default: the folder's name)")
    export.add_argument("--replace", action="store_true", help="write over an existing record of other answers")
    verify = sub.add_parser("verify", help="check a record's checksums and print its header")
    verify.add_argument("record")
    args = parser.parse_args(argv)
    try:
        if args.command == "export":
            rec = write_record(
                cache_records(args.cache), args.model or Path(args.cache).name, args.out, replace=args.replace
            )
        else:
            rec = read_record(args.record)
    except (RecordError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(
        f"{rec.path}: {len(rec.entries)} entries verified; model {rec.model}, prompt version {rec.prompt_version}, "
        f"identity {_canonical(rec.identity)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
