"""The local model's cache-key revision read back, and the packaged weights known by digest."""

from pathlib import Path

import yaml
from eibench.predict.local_revision import PACKAGED_WEIGHTS, packaged_weights, parse_revision, revision

REPO = Path(__file__).resolve().parents[2]


def test_a_revision_reads_back_into_its_parts():
    text = revision("ab" * 32, "0.3.36", "AVX2,FMA")
    assert parse_revision(text) == {"gguf_sha256": "ab" * 32, "server_version": "0.3.36", "build": "AVX2,FMA"}
    assert parse_revision(revision("cd" * 32, "0.3.36", ""))["build"] == ""


def test_a_revision_of_another_form_has_no_parts():
    for text in ("", "2024-07-18", "gpt-4o-mini-2024-07-18", "gguf-sha256:abc llama-cpp-python:0.3.36 build:AVX2"):
        assert parse_revision(text) == {}, text


def test_only_the_packaged_files_digest_names_the_packaged_model():
    assert packaged_weights(PACKAGED_WEIGHTS["sha256"])["model"] == "SmolLM2-135M-Instruct"
    assert packaged_weights("ab" * 32) is None and packaged_weights(None) is None


def test_the_committed_configs_serve_the_packaged_weights():
    for name in ("local-llm.yaml", "local-llm-live.yaml"):
        models = yaml.safe_load((REPO / "config" / name).read_text())["models"]
        live = [m for m in models if m["kind"] == "openai_compatible"]
        assert [packaged_weights(parse_revision(m["revision"]).get("gguf_sha256")) for m in live] == [PACKAGED_WEIGHTS]
