"""Fetch the public TypeScript port of the AttuneBench scorer into benchmarks/port/src/.

The port (GitHub CasingAI/instant-os, src/apps/attunebench/) is not ours to vendor, so this
folder holds only our harness; the five files it imports are downloaded at pinned commits and
checked against pinned sha256 sums (``eibench.public.fetch``: streamed to a temporary name,
checked, then renamed; a file already in place with the right sum is kept). ``--from DIR`` takes
them from a folder instead (a copy made elsewhere), with the same checks.

    .venv/bin/python benchmarks/port/fetch_port.py [--from DIR]

A wrong sum raises, names the file and leaves no copy of it: the published file changed, or the
copy is not the published one. The sums were taken from the repository's files as a code index
stores them (text, LF line endings); they could not be checked against a download here, as this
machine has no access to GitHub.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from eibench.public.fetch import DatasetError, fetch_dataset

HERE = Path(__file__).resolve().parent
RAW = "https://raw.githubusercontent.com/CasingAI/instant-os/{commit}/src/apps/attunebench/{file}"
#: The commits of the files read for docs/metrics.md ("Divergences from the public port").
SCORER_COMMIT = "65bdb92288e4c8187c076b3f42b1a2d5c2c4b63e"
REPORT_COMMIT = "9a22361fd08717fb28884485b315fa76b6b06008"
PORT_FILES = {
    "scorer.ts": (SCORER_COMMIT, "84de80b2ee79eddf4ebea7277f70cd45a828803ace8cc62c4eac1e0f81a66bc3"),
    "types.ts": (SCORER_COMMIT, "39560b8262cb08015e7fd8cada3ab395f55419f75437b1894fe9cfccb06cce5e"),
    "utils.ts": (SCORER_COMMIT, "d4b456a18de8fb29c4165a5ef114fafa0b2208a300c684296c5579aa879e052a"),
    "constants.ts": (REPORT_COMMIT, "9c7cc2667f534c5af047f714321612f559748f70a7b71486de3aa6250989b07d"),
    "report.tsx": (REPORT_COMMIT, "c213e2cde6221e93eac94d75f75f6251633c2ef7067831dc8896427a05c65785"),
}


def port_spec(files: dict[str, tuple[str, str]] = PORT_FILES) -> dict:
    """The port's files as an entry of the dataset registry (``eibench.public.fetch``)."""
    return {
        "source": "GitHub CasingAI/instant-os, src/apps/attunebench/",
        "files": {
            name: {"url": RAW.format(commit=commit, file=name), "sha256": sha} for name, (commit, sha) in files.items()
        },
    }


def fetch_port(dest: Path = HERE / "src", source: Path | None = None, **kwargs) -> list[str]:
    """Provide the port's files in ``dest`` (from ``source`` when given, else downloaded); the
    origin of each. Raises DatasetError, whose message also says where the pins are."""
    try:
        return [f"{f.file}: {f.origin}" for f in fetch_dataset("attunebench-port", port_spec(), dest, source, **kwargs)]
    except DatasetError as err:
        raise DatasetError(f"{err} (the port's pins are PORT_FILES in {Path(__file__).name})") from err


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="source", type=Path, default=None, help="a folder holding the five files")
    parser.add_argument("--dest", type=Path, default=HERE / "src")
    args = parser.parse_args()
    try:
        for line in fetch_port(args.dest, args.source):
            print(line)
    except DatasetError as err:
        sys.exit(str(err))


if __name__ == "__main__":
    main()
