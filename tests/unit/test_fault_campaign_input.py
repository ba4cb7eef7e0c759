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
from eibench.release.read import FolderEntryError, ReleaseFormatError, list_json_files, parse_file, read_conversations
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
    "lone_surrogate_in_userMessage": (
        VALID.replace('"userMessage": "', '"userMessage": "\\ud800', 1),
        "$.turns[0].userMessage",
        "lone UTF-16 surrogate",
    ),
    "lone_surrogate_in_a_key": (
        VALID.replace('"userMessage"', '"user\\udc00Message"', 1),
        "$.turns[0]",
        "lone UTF-16 surrogate",
    ),
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
    assert problems == [] and obj.turns[0].userMessage.startswith("\U0001f600")


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
    with pytest.raises(FolderEntryError) as err:
        list_json_files(folder)
    message = str(err.value)
    assert str(folder / "conversation_2.json") in message and str(outside) in message
    assert "only regular files" in message and "cp --dereference" in message


def test_a_file_name_that_is_not_utf8_is_refused_naming_it(tmp_path):
    name = os.fsdecode(b"conversation_\xff.json")  # Python holds the byte as a lone surrogate
    (tmp_path / name).write_text(VALID, encoding="utf-8")
    with pytest.raises(FolderEntryError) as err:
        list_json_files(tmp_path)
    message = str(err.value)
    message.encode("utf-8")  # printable: no lone surrogate in the message itself
    assert f"{tmp_path}/conversation_\\xff.json:" in message
    assert "at $: the file name is not UTF-8 text: rename the file" in message


def test_a_json_file_in_other_letters_is_refused_not_left_out(tmp_path):
    """conversation_10.JSON was skipped without a word, and the cohort read one file short."""
    (tmp_path / "conversation_1.json").write_text(VALID, encoding="utf-8")
    (tmp_path / "conversation_10.JSON").write_text(VALID, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a release file", encoding="utf-8")
    with pytest.raises(FolderEntryError) as err:
        list_json_files(tmp_path)
    message = str(err.value)
    assert f"{tmp_path}/conversation_10.JSON:" in message
    assert "ends in '.JSON', not '.json', and would not be read: rename it to conversation_10.json" in message
    assert "notes.txt" not in message


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


def test_a_missing_mode_folder_is_refused_with_where_the_files_go(default_config, tmp_path):
    message = _config_problem(_outputs_model(default_config, tmp_path))
    assert f"outputs folder {str(tmp_path / 'default')!r} does not exist" in message
    assert "(<path>/<mode>/, one file per conversation it answers: a subset of the cohort is allowed)" in message
    assert "create it, or remove 'default' from config key 'modes'" in message


def test_a_symlink_in_a_mode_folder_is_refused_at_parse_time(default_config, tmp_path):
    (tmp_path / "default").mkdir()
    os.symlink(RELEASE / "em_valid" / "conversation_5.json", tmp_path / "default" / "conversation_5.json")
    message = _config_problem(_outputs_model(default_config, tmp_path))
    assert str(tmp_path / "default" / "conversation_5.json") in message and "is a symbolic link" in message


def test_an_upper_case_json_file_in_a_mode_folder_is_refused_at_parse_time(default_config, tmp_path):
    (tmp_path / "default").mkdir()
    shutil.copy(RELEASE / "em_valid" / "conversation_5.json", tmp_path / "default" / "conversation_5.Json")
    message = _config_problem(_outputs_model(default_config, tmp_path))
    assert (
        str(tmp_path / "default" / "conversation_5.Json") in message and "rename it to conversation_5.json" in message
    )


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
    return subprocess.run(
        [str(exe), "-n", "--cores", "1", *args], cwd=REPO, capture_output=True, text=True, timeout=300
    )


def test_a_brace_named_release_file_does_not_stop_snakemake(tmp_path):
    shutil.copy(RELEASE / "valid" / "conversation_5.json", tmp_path / "conversation_5.json")
    (tmp_path / "conversation_{model}.json").write_text(
        VALID.replace('"conversation_5"', '"conversation_6"'), encoding="utf-8"
    )
    run = _dry_run(
        "results/tables/gold/ingest_report.json",
        "--configfile",
        "config/attunebench.yaml",
        "--config",
        f"cohorts={{attunebench: {{path: {tmp_path}}}}}",
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "WildcardError" not in run.stdout + run.stderr and "ingest_conversations" in run.stdout


# --- Config --------------------------------------------------------------------------------


def _set(cfg: dict, key: str, value) -> dict:
    cfg = json.loads(json.dumps(cfg))
    node = cfg
    *parents, last = key.split(".")
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    node[int(last) if last.isdigit() else last] = value
    return cfg


LIVE = {"name": "live-1", "kind": "openai_compatible", "model_id": "m", "api_key_env": "KEY"}

CONFIG_CASES = {
    # case id: (config key, value, words of the message)
    "seed_7.0": ("seed", 7.0, "config key 'seed': 7.0 is not of type 'integer' (write 7, without a decimal point"),
    "n_conversations_20.0": (
        "cohorts.synthetic.n_conversations",
        20.0,
        "config key 'cohorts.synthetic.n_conversations': 20.0 is not of type 'integer'",
    ),
    "seed_quoted": ("seed", "7", "config key 'seed': '7' is not of type 'integer' (a quoted string; write 7 without"),
    "seed_true": ("seed", True, "config key 'seed': True is not of type 'integer'"),
    "api_key_env_trailing_newline": (
        "models",
        [LIVE | {"api_key_env": "KEY\n"}],
        "config key 'models[0].api_key_env': 'KEY\\n' does not match",
    ),
    "prompt_version_trailing_newline": (
        "collection.prompt_version",
        "v1\n",
        "config key 'collection.prompt_version': 'v1\\n' does not match",
    ),
    "timestamp_1e15": (
        "paper.timestamp",
        10**15,
        "config key 'paper.timestamp': 1000000000000000 is greater than the maximum of 253402300799",
    ),
    "timestamp_1e15_float": (
        "paper.timestamp",
        1e15,
        "config key 'paper.timestamp': 1000000000000000.0 is not of type 'integer'",
    ),
    "timestamp_1e15_yaml": (
        "paper.timestamp",
        "1e15",
        "config key 'paper.timestamp': '1e15' is not of type "
        "'integer' (YAML reads 1e15 as a string; write 1000000000000000)",
    ),
    "model_without_kind": (
        "models",
        [{"name": "a"}],
        "config key 'models[0]' is missing a required key: 'kind' is a required property; allowed "
        "values of 'kind': simulated, baseline, openai_compatible, anthropic, outputs_dir",
    ),
    "names_differ_only_in_case": (
        "models",
        [{"name": "Sim-01", "kind": "simulated"}, {"name": "sim-01", "kind": "simulated"}],
        "models[0].name ('Sim-01'), models[1].name ('sim-01') differ only in case",
    ),
}


@pytest.mark.parametrize("case", sorted(CONFIG_CASES))
def test_config_case_names_the_key_and_the_fix(case, default_config):
    key, value, words = CONFIG_CASES[case]
    message = _config_problem(_set(default_config, key, value))
    assert words in message, message


def test_a_model_without_kind_lists_no_unrelated_keys(default_config):
    message = _config_problem(_set(default_config, "models", [{"name": "a"}]))
    assert message.count("\n  - ") == 1 and "method" not in message and "model_id" not in message


def test_the_timestamp_bound_is_what_typst_accepts(tmp_path):
    typst = pytest.importorskip("typst")
    from eibench.configuration import load_schema

    from ..conftest import REPO

    bound = load_schema(REPO / "config/schema/config.schema.yaml")["properties"]["paper"]["properties"]["timestamp"]
    main = tmp_path / "main.typ"
    main.write_text("= Title\n#datetime.today().display()\n", encoding="utf-8")
    assert typst.compile(str(main), timestamp=bound["maximum"])
    with pytest.raises(ValueError, match="out of range"):
        typst.compile(str(main), timestamp=bound["maximum"] + 1)


def test_every_schema_pattern_refuses_a_trailing_newline():
    import yaml

    from ..conftest import REPO

    schema = yaml.safe_load((REPO / "config/schema/config.schema.yaml").read_text(encoding="utf-8"))
    patterns = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                patterns.append(node["pattern"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(schema)
    assert patterns
    for pattern in patterns:
        assert not pattern.endswith("$"), f"{pattern!r}: '$' matches before a final newline; end it with \\Z"


def test_cli_strings_are_still_read_as_numbers_but_config_file_strings_are_not():
    from eibench.configuration import coerce_cli_strings, load_schema

    from ..conftest import REPO

    schema = load_schema(REPO / "config/schema/config.schema.yaml")
    assert coerce_cli_strings({"cohorts": {"synthetic": {"n_conversations": "20"}}}, schema) == {
        "cohorts": {"synthetic": {"n_conversations": 20}}
    }
    run = _dry_run("--config", "cohorts={synthetic: {n_conversations: 20}}", "seed=5")
    assert run.returncode == 0, run.stderr


DUPLICATE = "seed: 3\ncohorts:\n  synthetic:\n    n_conversations: 4\n    n_conversations: 5\n"


def test_a_key_given_twice_names_the_file_the_key_and_both_lines(tmp_path):
    from eibench.config_files import ConfigFileError, read_config_file

    file = tmp_path / "mine.yaml"
    file.write_text(DUPLICATE, encoding="utf-8")
    with pytest.raises(ConfigFileError) as err:
        read_config_file(file)
    assert str(err.value) == (
        f"config file {file}: key 'cohorts.synthetic.n_conversations' is given twice "
        "(lines 4 and 5); Snakemake would keep only the last, so delete one of them"
    )


def test_merge_keys_may_be_overridden(tmp_path):
    from eibench.config_files import read_config_file

    file = tmp_path / "mine.yaml"
    file.write_text("base: &b {x: 1}\nother:\n  <<: *b\n  x: 2\n", encoding="utf-8")
    assert read_config_file(file)["other"] == {"x": 2}


def test_a_binary_config_file_is_named(tmp_path):
    from eibench.config_files import main

    file = tmp_path / "mine.yaml"
    file.write_bytes(b"\xff\xfe\x00\x01binary\n")
    run = subprocess.run([sys.executable, "-m", "eibench.config_files", str(file)], capture_output=True, text=True)
    assert run.returncode == 1 and f"config file {file}: not UTF-8 text (invalid start byte at byte 0)" in run.stderr
    assert main([str(RELEASE.parents[2] / "config" / "config.yaml")]) == 0


DRY_RUN_CASES = {
    # case id: (config file text, words of the message)
    # {file}: the config file's path (a schema error names the file that set the key)
    "seed_7.0": ("seed: 7.0\n", "config key 'seed' (set in {file}): 7.0 is not of type 'integer'"),
    "seed_quoted": ('seed: "7"\n', "config key 'seed' (set in {file}): '7' is not of type 'integer'"),
    "duplicate_key": (DUPLICATE, "key 'cohorts.synthetic.n_conversations' is given twice (lines 4 and 5)"),
    "model_named_leaderboard.csv": (
        "models:\n  - {name: leaderboard.csv, kind: simulated}\n  - {name: chance, kind: baseline, method: chance}\n",
        # the first clash found: the null cohort's copy (results/null/scores/, truth.smk) sorts first
        "config key 'models[0].name': 'leaderboard.csv' would be the folder results/null/scores/leaderboard.csv/, "
        "but the workflow writes results/null/scores/leaderboard.csv there",
    ),
    "model_named_like_a_log": (
        "models:\n  - {name: Aggregate_Scores.log, kind: simulated}\n",
        "writes logs/null/score/aggregate_scores.log there",
    ),
}


@pytest.mark.parametrize("case", sorted(DRY_RUN_CASES))
def test_snakemake_stops_at_parse_time(case, tmp_path):
    text, words = DRY_RUN_CASES[case]
    file = tmp_path / "mine.yaml"
    file.write_text(text, encoding="utf-8")
    run = _dry_run("--configfile", str(file))
    out = run.stdout + run.stderr
    words = words.replace("{file}", str(file))
    assert run.returncode != 0 and words in out, out
    if case == "duplicate_key":
        assert str(file) in out
    assert "Building DAG" not in out and "Traceback" not in out


# --- Faults: a file where a folder should be -------------------------------------------------


def test_a_file_where_a_folder_should_be_is_named_before_any_job(tmp_path):
    from ..conftest import REPO

    (tmp_path / "results").write_text("", encoding="utf-8")
    (tmp_path / "logs").symlink_to(tmp_path / "nowhere")
    exe = Path(sys.executable).with_name("snakemake")
    run = subprocess.run(
        [
            str(exe),
            "-n",
            "--cores",
            "1",
            "-s",
            str(REPO / "Snakefile"),
            "--configfile",
            str(REPO / "config" / "config.yaml"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    assert "results is a file, but the workflow writes its outputs into the folder results/" in out
    assert "logs is a broken symbolic link" in out and "Traceback" not in out


def test_files_in_the_way_checks_only_folders_before_a_wildcard(tmp_path):
    from eibench.workflow_paths import files_in_the_way

    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "scores").write_text("", encoding="utf-8")
    (tmp_path / "results" / "x").mkdir()
    (tmp_path / "results" / "x" / "{model}").write_text("", encoding="utf-8")
    problems = files_in_the_way(["results/scores/leaderboard.csv", "results/x/{model}/y.csv"], tmp_path)
    assert problems == [
        "results/scores is a file, but the workflow writes its outputs into the folder "
        "results/scores/ (e.g. results/scores/leaderboard.csv); move or rename it, then rerun"
    ]


# --- Faults: temporary folders of killed jobs --------------------------------------------------

KILLED_JOB = """
import os, signal, sys
from types import SimpleNamespace
import eibench.report  # its matplotlib folder, made at import
from eibench.runlog import job_tmpdir
with job_tmpdir(SimpleNamespace(rule="score_model", resources=SimpleNamespace(tmpdir=sys.argv[1]))) as mine:
    (mine / "half-written").write_text("x")
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_the_folders_of_a_killed_job_are_swept_by_the_next_job(tmp_path):
    from types import SimpleNamespace

    from eibench.runlog import job_tmpdir

    env = {**os.environ, "TMPDIR": str(tmp_path)}
    env.pop("MPLCONFIGDIR", None)
    run = subprocess.run([sys.executable, "-c", KILLED_JOB, str(tmp_path)], env=env, capture_output=True, timeout=120)
    assert run.returncode == -9
    left = sorted(p.name.split("-")[1] for p in tmp_path.iterdir())
    assert left == ["matplotlib", "score_model"]  # what the issue saw: the killed job's folders stay
    other_host = tmp_path / f"eibench-paper-{os.getpid() + 1}@another-host-abc123"
    other_host.mkdir()
    with job_tmpdir(SimpleNamespace(rule="paper", resources=SimpleNamespace(tmpdir=str(tmp_path)))) as current:
        remaining = sorted(tmp_path.iterdir())
    assert remaining == sorted([other_host, current]), remaining
    assert other_host.exists()


def test_a_sweep_leaves_folders_of_live_processes_and_other_names(tmp_path):
    from eibench.tmpdirs import owned_tmpdir, sweep_stale

    alive = owned_tmpdir("paper", tmp_path)  # this process
    parent = Path(str(owned_tmpdir("paper", tmp_path)).replace(f"-{os.getpid()}@", f"-{os.getppid()}@"))
    os.rename(next(p for p in tmp_path.iterdir() if p != alive), parent)
    old_style = tmp_path / "eibench-paper-abc123"
    old_style.mkdir()
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    dead = tmp_path / alive.name.replace(f"-{os.getpid()}@", f"-{child.pid}@")
    dead.mkdir()
    assert sweep_stale(tmp_path) == [dead]
    assert alive.exists() and parent.exists() and old_style.exists()


@pytest.mark.parametrize(
    "text, words",
    [
        ('{"seed": 3,\n "seed": 4}\n', "key 'seed' is given twice (lines 1 and 2)"),
        ('{\t"seed": 3, "seed": 5}\n', "key 'seed' is given twice in one object"),  # JSON that is not YAML
        ('{\t"seed": 3}\n', None),
    ],
)
def test_json_config_files_are_read_as_snakemake_reads_them(tmp_path, text, words):
    from eibench.config_files import check_config_files

    file = tmp_path / "mine.json"
    file.write_text(text, encoding="utf-8")
    problems = check_config_files([file])
    if words is None:
        assert problems == []
    else:
        assert len(problems) == 1 and words in problems[0] and str(file) in problems[0]
