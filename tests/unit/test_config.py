"""Configuration validation: unknown keys named with the allowed ones; semantic checks."""

import copy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from eibench.configuration import ConfigError, coerce_cli_strings, load_schema, validate_config

from ..conftest import REPO

SCHEMA = load_schema(REPO / "config/schema/config.schema.yaml")


def _check(cfg):
    validate_config(cfg, SCHEMA, REPO)


def test_default_config_is_valid(default_config):
    _check(default_config)


def _problem(cfg) -> str:
    with pytest.raises(ConfigError) as err:
        _check(cfg)
    return str(err.value)


def test_unknown_top_level_key_names_allowed_keys(default_config):
    cfg = copy.deepcopy(default_config)
    cfg["seeed"] = 1
    msg = _problem(cfg)
    assert "unknown config key 'seeed'" in msg and "did you mean 'seed'" in msg
    assert "allowed keys here: cohort, cohorts," in msg


def test_unknown_nested_keys_are_all_reported(default_config):
    cfg = copy.deepcopy(default_config)
    cfg["cohorts"]["synthetic"]["n_conversatons"] = 5
    cfg["models"][0]["profle"] = "human"
    cfg["simulation"]["effects"]["romantc"] = cfg["simulation"]["effects"]["romantic"]
    msg = _problem(cfg)
    assert "'cohorts.synthetic.n_conversatons' (did you mean 'n_conversations'?)" in msg
    assert "'models[0].profle' (did you mean 'profile'?)" in msg
    assert "'simulation.effects.romantc'" in msg


@pytest.mark.parametrize("name", ["../x", "/abs/path", "a/b", ".hidden", ""])
def test_unsafe_model_names_are_rejected(default_config, name):
    cfg = copy.deepcopy(default_config)
    cfg["models"][0]["name"] = name
    assert "models[0].name" in _problem(cfg)


def test_semantic_checks(default_config):
    cfg = copy.deepcopy(default_config)
    cfg["models"].append(dict(cfg["models"][0]))
    cfg["cohorts"]["synthetic"]["trait_shares"]["none"] = 0.9
    cfg["simulation"]["ability_correlation"][0][1] = 0.99
    msg = _problem(cfg)
    assert "repeated: sim-01" in msg
    assert "trait_shares': shares must sum to 1" in msg
    assert "ability_correlation': must be symmetric" in msg


def test_statistics_checks_name_the_claim_and_the_fix(default_config):
    cfg = copy.deepcopy(default_config)
    st = cfg["statistics"]
    st["mode"] = "verbose"
    st["principal_metrics"].append("emotion_f2")
    st["claims"][1] = dict(st["claims"][0])  # C1 twice
    st["claims"].append(
        {
            "id": "X9",
            "family": "headline",
            "text": "t",
            "test": "turn_drift",
            "params": {"metric": "composite", "direction": "humans_better"},
        }
    )
    st["claims"].append(
        {
            "id": "X10",
            "family": "exploratory",
            "text": "t",
            "test": "discriminability_difference",
            "params": {"better": "pairwise_acc"},
        }
    )
    msg = _problem(cfg)
    assert "'statistics.mode': 'verbose' is not one of the modes run" in msg
    assert "'statistics.principal_metrics': unknown metric 'emotion_f2'" in msg
    assert "claim id 'C1' is used twice" in msg
    assert "(X9, test turn_drift): unknown turn-level metric 'composite'" in msg
    assert "(X9, test turn_drift): params.direction must be one of positive, negative" in msg
    assert "(X10, test discriminability_difference): params.worse is required" in msg


def test_attunebench_cohort_needs_a_path(default_config, tmp_path):
    cfg = copy.deepcopy(default_config)
    cfg["cohort"] = "attunebench"
    assert "cohorts.attunebench.path' is not set" in _problem(cfg)
    cfg["cohorts"]["attunebench"]["path"] = str(tmp_path / "nowhere")
    assert "is not a folder" in _problem(cfg) and "set it to the folder of the release" in _problem(cfg)


def test_cli_strings_are_coerced_where_the_schema_wants_numbers():
    cfg = {
        "seed": "7",
        "cohorts": {"synthetic": {"n_conversations": "20", "romantic_category": "1"}},
        "ingest": {"report_all_errors": "true"},
    }
    out = coerce_cli_strings(cfg, SCHEMA)
    assert out["seed"] == 7 and out["cohorts"]["synthetic"]["n_conversations"] == 20
    assert out["cohorts"]["synthetic"]["romantic_category"] == "1"  # a string field stays a string
    assert out["ingest"]["report_all_errors"] is True


def _snakemake_dry_run(*args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("snakemake")
    return subprocess.run(
        [str(exe), "-n", "--cores", "1", *args], cwd=REPO, capture_output=True, text=True, timeout=120
    )


def test_snakemake_stops_at_parse_time_on_an_unknown_key():
    run = _snakemake_dry_run("--config", "seeed=3")
    assert run.returncode != 0
    out = run.stdout + run.stderr
    assert "unknown config key 'seeed' (set in --config)" in out and "allowed keys here" in out
    assert "Job stats" not in out  # stopped before any job was planned


def test_a_config_error_names_the_file_that_set_the_key(tmp_path):
    """With several config files and --config merged, the error says which one set the key."""
    mine = tmp_path / "mine.yaml"
    mine.write_text("statistics:\n  n_boostrap: 100\nseed: 7.0\n", encoding="utf-8")
    run = _snakemake_dry_run("--configfile", str(mine))
    out = run.stdout + run.stderr
    assert run.returncode != 0
    assert f"unknown config key 'statistics.n_boostrap' (set in {mine}) (did you mean 'n_bootstrap'?)" in out
    assert f"config key 'seed' (set in {mine}): 7.0 is not of type 'integer'" in out


def test_a_target_read_as_a_config_file_is_named_with_the_fix(tmp_path):
    """Snakemake's --configfile takes every word after it: a JSON target there is read as a config file."""
    target = tmp_path / "ingest_report.json"
    target.write_text('{"n_files": 200, "rows": {}}', encoding="utf-8")
    run = _snakemake_dry_run("--configfile", "config/config.yaml", str(target))
    out = run.stdout + run.stderr
    assert run.returncode != 0
    assert (
        f"{target} was read as a config file, but none of its keys (n_files, rows) is a config key: if it is a "
        "target, put the targets before --configfile, or end the list of config files with --"
    ) in out
    assert "unknown config key" not in out  # the consequences are not listed


def test_a_misspelt_overlay_is_not_taken_for_a_target():
    from eibench.configuration import foreign_config_files, load_schema

    schema = load_schema(REPO / "config/schema/config.schema.yaml")
    sources = [("config/config.yaml", {"seed": 1}), ("mine.yaml", {"seeed": 3}), ("--config", {"x": 1})]
    assert foreign_config_files(sources, schema) == []
    assert foreign_config_files([("report.json", {"n_files": 2, "rows": {}})], schema) == [
        "report.json was read as a config file, but none of its keys (n_files, rows) is a config key: if it is a "
        "target, put the targets before --configfile, or end the list of config files with --"
    ]


def test_origin_is_the_last_source_that_gives_the_key():
    from eibench.configuration import origin

    sources = [("config/config.yaml", {"seed": 1, "models": [{"name": "a"}]}), ("--config", {"seed": 2})]
    assert origin(["seed"], sources) == " (set in --config)"
    assert origin(["models", 0, "name"], sources) == " (set in config/config.yaml)"
    assert origin(["models", 3], sources) == "" and origin(["nowhere"], sources) == "" and origin(["seed"], []) == ""


def test_snakemake_accepts_nested_overrides():
    run = _snakemake_dry_run("--config", "cohorts={synthetic: {n_conversations: 20}}", "seed=5")
    assert run.returncode == 0, run.stderr


def _overlaid(default_config, overlay: str) -> dict:
    """The default config with a config/ overlay merged on top (dicts merged, lists replaced, as Snakemake)."""

    def merge(base, over):
        for k, v in over.items():
            base[k] = merge(base.get(k, {}), v) if isinstance(v, dict) and isinstance(base.get(k), dict) else v
        return base

    return merge(copy.deepcopy(default_config), yaml.safe_load((REPO / "config" / overlay).read_text()))


@pytest.mark.parametrize(
    "cohort, overlay",
    [("attunebench", "config/attunebench.yaml"), ("esconv", "config/mirrors.yaml config/esconv.yaml")],
)
def test_a_real_cohort_refuses_simulated_models_and_raters(default_config, tmp_path, cohort, overlay):
    cfg = copy.deepcopy(default_config)
    cfg["cohort"] = cohort
    cfg["cohorts"]["attunebench"]["path"] = str(tmp_path)
    msg = _problem(cfg)
    assert f"cohort is {cohort!r} (real conversations), but config key 'models'" in msg
    assert "simulated models (models[0-10], kind: simulated): sim-01, sim-02" in msg
    assert "simulated human raters (models[11-13], kind: simulated, profile: human): human_1, human_2, human_3" in msg
    assert f"`--configfile {overlay}`" in msg
    # Only the raters left: they alone are named.
    cfg["models"] = [m for m in cfg["models"] if m["kind"] != "simulated" or m.get("profile") == "human"]
    msg = _problem(cfg)
    assert "simulated human raters (models[0-2]" in msg and "simulated models (" not in msg


def test_the_synthetic_cohort_keeps_its_simulated_models(default_config):
    from eibench.cohorts import simulated_on_real

    assert simulated_on_real(default_config) is None


@pytest.mark.parametrize("overlay", ["attunebench.yaml", "esconv.yaml"])
def test_the_real_cohort_overlays_list_no_simulated_model(default_config, tmp_path, overlay):
    cfg = _overlaid(default_config, overlay)
    # a release folder with one valid conversation file (an empty folder is refused on its own)
    shutil.copy(REPO / "tests/data/release/valid" / "conversation_5.json", tmp_path)
    cfg["cohorts"]["attunebench"]["path"] = str(tmp_path)
    from eibench.cohorts import simulated_on_real

    assert cfg["cohort"] != "synthetic" and simulated_on_real(cfg) is None
    _check(cfg)


def test_the_primary_resampling_scheme_must_be_one_of_the_schemes(default_config):
    cfg = copy.deepcopy(default_config)
    cfg["uncertainty"]["schemes"] = ["conversation"]
    assert "'uncertainty.primary': 'two_stage' is not one of 'uncertainty.schemes' (conversation)" in _problem(cfg)
    cfg["uncertainty"]["schemes"] = ["conversation", "bootstrap"]
    assert "uncertainty.schemes" in _problem(cfg)
