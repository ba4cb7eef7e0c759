"""The repository is licensed and citable: LICENSE is the MIT licence pyproject declares, and
CITATION.cff validates against the Citation File Format 1.2.0 schema (vendored in
tests/data/cff/, the schema `cffconvert --validate` uses) and agrees with pyproject."""

from __future__ import annotations

import copy
import hashlib
import json
import tomllib

import jsonschema
import pytest
import yaml

from ..conftest import REPO

SCHEMA = REPO / "tests" / "data" / "cff" / "schema-1.2.0.json"
SCHEMA_SHA256 = "0b8d22140da702d766df318dcff3a91af2f39521298dcf36d76315fd99cc169b"


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft7Validator:
    assert hashlib.sha256(SCHEMA.read_bytes()).hexdigest() == SCHEMA_SHA256, "the vendored CFF schema was edited"
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


@pytest.fixture(scope="module")
def citation() -> dict:
    # CFF dates and versions must stay strings: yaml's safe loader would read 2026-01-01 as a date.
    return yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_citation_cff_is_valid(validator, citation):
    errors = sorted(validator.iter_errors(citation), key=lambda e: list(e.path))
    assert not errors, "CITATION.cff: " + "; ".join(
        f"{'/'.join(map(str, e.path)) or '<root>'}: {e.message}" for e in errors
    )


@pytest.mark.parametrize(
    "break_it",
    [
        lambda c: c.pop("authors"),
        lambda c: c.update({"cff-version": "1.1.0"}),
        lambda c: c.update({"license": "MIT-ish"}),
        lambda c: c.update({"titel": c["title"]}),
    ],
)
def test_the_schema_rejects_a_broken_citation(validator, citation, break_it):
    broken = copy.deepcopy(citation)
    break_it(broken)
    assert not validator.is_valid(broken)


def test_citation_agrees_with_pyproject(citation, project):
    assert citation["version"] == project["version"]
    assert citation["license"] == project["license"]["text"] == "MIT"


def test_license_is_mit_with_the_authors_copyright():
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 The eibench authors" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text
