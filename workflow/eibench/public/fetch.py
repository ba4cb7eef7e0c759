"""Fetch a registered public dataset (config ``datasets``) into a folder, every file checked
against its pinned sha256.

Each file comes from the dataset's ``mirror`` folder when it holds the file, else from its URL
(streamed with httpx to a temporary name, checked, then renamed). A file already in place with
the right checksum is kept. A wrong checksum, a missing source or a failed download raises
:class:`DatasetError` naming the dataset, the file, the config key and the fix; the folder is
then left without that file (never with a half-written or unchecked one).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..checksums import sha256_of

_CHUNK = 1 << 20


class DatasetError(RuntimeError):
    """A dataset file could not be provided; the message says which and how to fix it."""


@dataclass(frozen=True)
class Fetched:
    file: str
    origin: str  # "kept", "mirror" or the URL it was downloaded from
    sha256: str


def _check(path: Path, expected: str, dataset: str, file: str, origin: str) -> None:
    got = sha256_of(path)
    if got != expected:
        path.unlink(missing_ok=True)
        raise DatasetError(
            f"dataset {dataset!r}, file {file!r} from {origin}: sha256 is {got}, the registry pins {expected} "
            f"(config datasets.{dataset}.files.{file}.sha256). The copy differs from the published one: "
            "get the published file, or if the source changed on purpose, review it and update the pinned checksum."
        )


def _tmp(dest: Path) -> Path:
    return dest.with_name(f".{dest.name}.{os.getpid()}.part")


def download(url: str, dest: Path, timeout: float = 60.0) -> None:
    """Stream ``url`` to ``dest`` (httpx, redirects followed); raises DatasetError on failure."""
    import httpx  # only a download needs it

    try:
        with httpx.stream("GET", url, follow_redirects=True, timeout=timeout) as response:
            response.raise_for_status()
            with open(dest, "wb") as f:
                for chunk in response.iter_bytes(_CHUNK):
                    f.write(chunk)
    except httpx.HTTPError as err:
        dest.unlink(missing_ok=True)
        raise DatasetError(f"download of {url} failed ({type(err).__name__}: {err})") from err


def fetch_dataset(
    name: str,
    spec: dict[str, Any],
    dest: Path,
    mirror: Path | None = None,
    downloader: Callable[[str, Path], None] = download,
) -> list[Fetched]:
    """Provide every file of dataset ``name`` (its registry entry ``spec``) in ``dest``.

    ``mirror`` overrides ``spec['mirror']`` (a relative path is taken from the working
    directory). Files are handled in name order; the first failure raises.
    """
    dest.mkdir(parents=True, exist_ok=True)
    mirror_dir = Path(mirror) if mirror is not None else (Path(spec["mirror"]) if spec.get("mirror") else None)
    if mirror_dir is not None and not mirror_dir.is_dir():
        raise DatasetError(
            f"dataset {name!r}: the mirror folder {mirror_dir} does not exist "
            f"(config datasets.{name}.mirror); point it at a folder holding "
            f"{', '.join(sorted(spec['files']))}, or set it to null to download"
        )
    done = []
    for file, entry in sorted(spec["files"].items()):
        target = dest / file
        if target.is_file() and sha256_of(target) == entry["sha256"]:
            done.append(Fetched(file, "kept", entry["sha256"]))
            continue
        tmp = _tmp(target)
        if mirror_dir is not None and (mirror_dir / file).is_file():
            shutil.copyfile(mirror_dir / file, tmp)
            origin = f"mirror {mirror_dir / file}"
        elif entry.get("url"):
            downloader(entry["url"], tmp)
            origin = entry["url"]
        else:
            where = f"the mirror {mirror_dir} has no such file" if mirror_dir else "no mirror is set"
            raise DatasetError(
                f"dataset {name!r}, file {file!r}: it has no download URL ({spec['source']}) and {where}. "
                f"Set datasets.{name}.mirror to a folder holding it, in a config file passed with --configfile "
                "(config/mirrors.yaml points every dataset at ../shared/data/<name>); see docs/public-data.md"
            )
        try:
            _check(tmp, entry["sha256"], name, file, origin)
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        done.append(Fetched(file, "mirror" if origin.startswith("mirror") else origin, entry["sha256"]))
    return done


def reachable(url: str, timeout: float = 3.0) -> str | None:
    """None when ``url`` answers a HEAD request (any status below 400, redirects followed)
    within ``timeout`` seconds; else the reason, e.g. "ConnectError: Name or service not known"."""
    import httpx  # only a probe needs it (keeps the workflow's start-up light)

    try:
        response = httpx.head(url, timeout=timeout, follow_redirects=True)
    except httpx.HTTPError as err:
        return f"{type(err).__name__}: {err}"
    return None if response.status_code < 400 else f"HTTP {response.status_code}"


def unavailable(
    name: str, spec: dict[str, Any], fetched: Path, probe: Callable[[str], str | None] | None = reachable
) -> str | None:
    """Why dataset ``name`` cannot be provided without trying (None when it can): checked when
    the workflow is parsed, so that selecting data that is not there fails at once. Available
    means already fetched into ``fetched``, or a mirror folder that exists, or a download URL for
    every file whose server answers ``probe`` (one HEAD request of at most 3 s, to the first
    file's URL; ``probe=None`` skips it)."""
    if fetched.is_dir() and all((fetched / f).is_file() for f in spec["files"]):
        return None
    if spec.get("mirror"):
        if Path(spec["mirror"]).is_dir():
            return None
        return (
            f"dataset {name!r}: the mirror folder {spec['mirror']} (config datasets.{name}.mirror) does not "
            f"exist; point it at a folder holding {', '.join(sorted(spec['files']))}"
        )
    no_url = sorted(f for f, entry in spec["files"].items() if not entry.get("url"))
    if no_url:
        return (
            f"dataset {name!r}: {', '.join(no_url)} cannot be downloaded ({spec['source']}) and no mirror is "
            f"set: set datasets.{name}.mirror in a config file passed with --configfile "
            "(config/mirrors.yaml points every dataset at ../shared/data/<name>); see docs/public-data.md"
        )
    if probe is not None:
        url = spec["files"][sorted(spec["files"])[0]]["url"]
        why = probe(url)
        if why:
            return (
                f"dataset {name!r} is not fetched, no mirror is set and its download URL {url} cannot be "
                f"reached ({why}): set datasets.{name}.mirror in a config file passed with --configfile "
                "(config/mirrors.yaml points every dataset at ../shared/data/<name>), or run where the URL "
                "is reachable; see docs/public-data.md"
            )
    return None
