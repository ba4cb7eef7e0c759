"""What the configuration says about the cohort: its description, its models' kinds, what is simulated."""

from __future__ import annotations

import copy

import pytest
from eibench.cohorts import describe, model_kinds, simulated


def test_the_built_in_cohorts_are_named_by_the_config(default_config):
    assert describe(default_config)["name"] == "synthetic cohort"
    cfg = copy.deepcopy(default_config)
    cfg["cohort"] = "esconv"
    about = describe(cfg)
    assert about["name"] == "ESConv" and about["citation"].startswith("Liu et al.")


@pytest.mark.parametrize(
    "path, name",
    [("/data/Test Samples/Sample200", "Sample200"), ("/data/Test Samples/Sample200/", "Sample200"), ("mine", "mine")],
)
def test_a_release_folder_without_a_name_is_named_after_its_folder(default_config, path, name):
    cfg = copy.deepcopy(default_config)
    cfg["cohort"] = "attunebench"
    cfg["cohorts"]["attunebench"]["path"] = path
    assert describe(cfg) == {"name": name, "source": None, "citation": None, "description": None}
    cfg["cohorts"]["attunebench"]["about"] = {
        "name": "My chats",
        "source": "our lab",
        "citation": None,
        "description": "chats with a support bot",
    }
    assert describe(cfg) == {
        "name": "My chats",
        "source": "our lab",
        "citation": None,
        "description": "chats with a support bot",
    }


def test_a_built_in_cohort_without_a_name_is_an_error_naming_the_key(default_config):
    cfg = copy.deepcopy(default_config)
    cfg["cohorts"]["synthetic"]["about"]["name"] = None
    with pytest.raises(ValueError, match=r"'cohorts\.synthetic\.about\.name'"):
        describe(cfg)


def test_model_kinds_count_raters_and_live_models_apart(default_config):
    models = default_config["models"] + [
        {"name": "api", "kind": "openai_compatible", "model_id": "x"},
        {"name": "claude", "kind": "anthropic", "model_id": "y"},
        {"name": "mine", "kind": "outputs_dir", "path": "p"},
    ]
    kinds = model_kinds(models)
    assert kinds["sim-01"] == "simulated" and kinds["human_1"] == "human" and kinds["chance"] == "baseline"
    assert kinds["api"] == kinds["claude"] == "live" and kinds["mine"] == "outputs_dir"
    assert list(kinds) == [m["name"] for m in models]


def test_what_is_simulated_follows_the_cohort_and_the_models(default_config):
    assert simulated(default_config) == {
        "cohort": True,
        "any": True,
        "models": [m["name"] for m in default_config["models"] if m["kind"] == "simulated"],
    }
    cfg = copy.deepcopy(default_config)
    cfg["models"] = [m for m in cfg["models"] if m["kind"] == "baseline"]
    assert simulated(cfg) == {"cohort": True, "models": [], "any": True}  # the conversations still are
    cfg["cohort"] = "attunebench"
    assert simulated(cfg) == {"cohort": False, "models": [], "any": False}
    cfg["models"].append({"name": "human_1", "kind": "simulated", "profile": "human"})
    assert simulated(cfg) == {"cohort": False, "models": ["human_1"], "any": True}
