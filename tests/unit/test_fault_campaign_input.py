"""Regression tests of the input-side cases of issue 17 (an outside fault campaign): each bad
input stops with an error naming the file or config key, the JSON path and the fix, before
anything is written. One test (or one table row) per case, reproduced as the issue describes it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from eibench.release.read import ReleaseFormatError, SymlinkError, list_json_files, parse_file, read_conversations
from eibench.release.schema import ConversationFile

from ..conftest import RELEASE

VALID = (RELEASE / "valid" / "conversation_5.json").read_text(encoding="utf-8")


def _with_field(text: str) -> str:
    """The valid conversation file with ``text`` as the value of an unknown top-level field."""
    return VALID.rstrip().removesuffix("}") + f', "zz": {text}}}\n'


# --- Reader --------------------------------------------------------------------------------

READER_CASES = {
    # case id: (file text, JSON path, words of the message)
    "5000_digit_integer": (_with_field("9" * 5000), "$", "has more than 4300 digits"),
    "100000_nested_arrays": (_with_field("[" * 100_000 + "]" * 100_000), "$", "nested more than 100 levels"),
    "101_nested_arrays": (_with_field("[" * 101 + "]" * 101), "$.zz", "nested more than 100 levels"),
    "lone_surrogate_in_userMessage": (VALID.replace('"userMessage": "', '"userMessage": "\\ud800', 1),
                                      "$.turns[0].userMessage", "lone UTF-16 surrogate"),
    "lone_surrogate_in_a_key": (VALID.replace('"userMessage"', '"user\\udc00Message"', 1), "$.turns[0]",
                                "lone UTF-16 surrogate"),
}


@pytest.mark.parametrize("case", sorted(READER_CASES))
def test_reader_case_is_a_problem_of_the_file(case, tmp_path):
    text, path, words = READER_CASES[case]
    file = tmp_path / "conversation_1.json"
    file.write_text(text, encoding="utf-8")
    obj, problems = parse_file(file, ConversationFile)
    assert obj is None and len(problems) == 1, problems
    assert problems[0].file == str(file) and problems[0].json_path == path
    assert words in problems[0].message
    with pytest.raises(ReleaseFormatError, match="conversation_1.json"):
        read_conversations([file])


def test_a_surrogate_pair_is_one_character_and_is_read(tmp_path):
    file = tmp_path / "conversation_1.json"
    file.write_text(VALID.replace('"userMessage": "', '"userMessage": "\\ud83d\\ude00', 1), encoding="utf-8")
    obj, problems = parse_file(file, ConversationFile)
    assert problems == [] and obj.turns[0].userMessage.startswith("\U0001F600")


def test_nesting_at_the_limit_is_read(tmp_path):
    file = tmp_path / "conversation_1.json"
    file.write_text(_with_field("[" * 99 + "]" * 99), encoding="utf-8")  # 100 levels with the top object
    assert parse_file(file, ConversationFile)[1] == []


def test_a_symlink_in_the_folder_is_refused_naming_the_link(tmp_path):
    outside = tmp_path / "elsewhere" / "conversation_9.json"
    outside.parent.mkdir()
    outside.write_text(VALID, encoding="utf-8")
    folder = tmp_path / "cohort"
    folder.mkdir()
    (folder / "conversation_1.json").write_text(VALID, encoding="utf-8")
    os.symlink(outside, folder / "conversation_2.json")
    with pytest.raises(SymlinkError) as err:
        list_json_files(folder)
    message = str(err.value)
    assert str(folder / "conversation_2.json") in message and str(outside) in message
    assert "only regular files" in message and "cp --dereference" in message


def test_a_linked_folder_is_read(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "conversation_1.json").write_text(VALID, encoding="utf-8")
    os.symlink(real, tmp_path / "link")
    assert [p.name for p in list_json_files(tmp_path / "link")] == ["conversation_1.json"]


# --- Release folders at parse time (symlinks, braces, the empty mode folder) ---------------

def _config_problem(cfg: dict) -> str:
    from eibench.configuration import ConfigError, load_schema, validate_config

    from ..conftest import REPO

    with pytest.raises(ConfigError) as err:
        validate_config(cfg, load_schema(REPO / "config/schema/config.schema.yaml"), REPO)
    return str(err.value)


def _outputs_model(cfg: dict, root: Path) -> dict:
    cfg = json.loads(json.dumps(cfg))
    cfg["modes"] = ["default"]
    cfg["statistics"]["mode"] = "default"
    cfg["models"].append({"name": "mine", "kind": "outputs_dir", "path": str(root)})
    return cfg


def test_an_empty_mode_folder_is_refused_at_parse_time_naming_it(default_config, tmp_path):
    (tmp_path / "default").mkdir()
    message = _config_problem(_outputs_model(default_config, tmp_path))
    assert f"config key 'models[{len(default_config['models'])}].path' (mine)" in message
    assert f"no EM output files (*.json) for mode 'default' in {str(tmp_path / 'default')!r}" in message
    assert "remove 'default' from config key 'modes'" in message


def test_a_symlink_in_a_mode_folder_is_refused_at_parse_time(default_config, tmp_path):
    (tmp_path / "default").mkdir()
    os.symlink(RELEASE / "em_valid" / "conversation_5.json", tmp_path / "default" / "conversation_5.json")
    message = _config_problem(_outputs_model(default_config, tmp_path))
    assert str(tmp_path / "default" / "conversation_5.json") in message and "is a symbolic link" in message


def test_an_empty_release_folder_is_refused_at_parse_time(default_config, tmp_path):
    cfg = json.loads(json.dumps(default_config))
    cfg["cohort"] = "attunebench"
    cfg["cohorts"]["attunebench"]["path"] = str(tmp_path)
    assert "config key 'cohorts.attunebench.path': no conversation files (*.json)" in _config_problem(cfg)


def test_a_folder_with_a_brace_named_file_is_one_input_with_a_digest(tmp_path):
    from eibench.release.folders import listing_digest, rule_inputs

    (tmp_path / "conversation_1.json").write_text(VALID, encoding="utf-8")
    assert rule_inputs(tmp_path) == [str(tmp_path / "conversation_1.json")] and listing_digest(tmp_path) is None
    brace = tmp_path / "conversation_{model}.json"
    brace.write_text(VALID.replace('"conversation_5"', '"conversation_6"'), encoding="utf-8")
    assert rule_inputs(tmp_path) == [str(tmp_path)]
    before = listing_digest(tmp_path)
    brace.write_text(VALID.replace('"conversation_5"', '"conversation_7"'), encoding="utf-8")
    assert before is not None and listing_digest(tmp_path) != before  # editing the file reruns the rule


def _dry_run(*args: str) -> subprocess.CompletedProcess:
    from ..conftest import REPO

    exe = Path(sys.executable).with_name("snakemake")
    return subprocess.run([str(exe), "-n", "--cores", "1", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300)


def test_a_brace_named_release_file_does_not_stop_snakemake(tmp_path):
    shutil.copy(RELEASE / "valid" / "conversation_5.json", tmp_path / "conversation_5.json")
    (tmp_path / "conversation_{model}.json").write_text(VALID.replace('"conversation_5"', '"conversation_6"'),
                                                        encoding="utf-8")
    run = _dry_run("results/tables/gold/ingest_report.json", "--config", "cohort=attunebench",
                   f"cohorts={{attunebench: {{path: {tmp_path}}}}}")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "WildcardError" not in run.stdout + run.stderr and "ingest_conversations" in run.stdout
