"""metrics.cohort.score_cohort: every model ingested and scored, in worker processes or not.

The result must not depend on the number of workers: each table equal, value and dtype, to
what one process gives, and to rule score_model's own calls (ingest, score, summarise). Errors
must be those of one process: the first bad model in the order given, with its message.
"""

from __future__ import annotations

import copy
import gc
import json
import multiprocessing
import pickle
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest
from eibench.metrics.cohort import ModelScores, available_cores, score_cohort
from eibench.metrics.gold import GoldIndex
from eibench.metrics.score import model_summary, score_rule_sets
from eibench.release.ingest import ingest_em_outputs
from eibench.release.read import FolderEntryError, Problem, ReleaseFormatError, read_conversations
from eibench.release.tidy import gold_tables
from eibench.synthetic.cohort import generate_cohort
from eibench.synthetic.simulate import draw_ability, simulate_outputs

from ..conftest import write_files

MODELS = ("sim-01", "sim-02", "sim-03")


@pytest.fixture(scope="module")
def cohort(default_config, tmp_path_factory) -> tuple[dict[str, pd.DataFrame], dict[str, list[Path]], Path]:
    """A 20-conversation cohort's gold tables, three simulated models' folders (the third model
    answers 15 conversations only), and the root folder."""
    root = tmp_path_factory.mktemp("cohort")
    params = copy.deepcopy(default_config["cohorts"]["synthetic"]) | {"n_conversations": 20}
    seed, sim = default_config["seed"], default_config["simulation"]
    files, _ = generate_cohort(params, seed)
    gold = gold_tables(read_conversations(write_files(files, root / "conversations")))
    models = {}
    for k, name in enumerate(MODELS):
        outputs = simulate_outputs(
            gold, draw_ability(name, "model", sim, seed), "default", sim, seed, params["romantic_category"]
        )
        if k == 2:
            outputs = dict(sorted(outputs.items())[:15])
        write_files(outputs, root / name)
        models[name] = [root / name]
    return gold, models, root


def _assert_same(a: dict[str, ModelScores], b: dict[str, ModelScores]) -> None:
    assert list(a) == list(b)
    for model in a:
        x, y = a[model], b[model]
        assert x.model == y.model == model
        assert (x.ingest.n_files, x.ingest.off_position_keys, x.ingest.n_off_position) == (
            y.ingest.n_files,
            y.ingest.off_position_keys,
            y.ingest.n_off_position,
        )
        assert list(x.ingest.tables) == list(y.ingest.tables)
        for name in x.ingest.tables:
            pd.testing.assert_frame_equal(x.ingest.tables[name], y.ingest.tables[name], check_exact=True, obj=name)
        assert list(x.scores) == list(y.scores) and list(x.summary) == list(y.summary)
        for rule_set, s in x.scores.items():
            t = y.scores[rule_set]
            for part in ("turn", "conversation", "rule_counts", "missing"):
                pd.testing.assert_frame_equal(getattr(s, part), getattr(t, part), check_exact=True, obj=part)
            pd.testing.assert_frame_equal(x.summary[rule_set], y.summary[rule_set], check_exact=True)


def test_two_workers_give_what_one_process_gives(cohort):
    gold, models, _ = cohort
    _assert_same(score_cohort(gold, models, "default", workers=2), score_cohort(gold, models, "default", workers=1))


def test_one_process_gives_what_rule_score_model_computes(cohort):
    gold, models, _ = cohort
    known = set(gold["conversations"]["conversation_id"])
    out = score_cohort(gold, models, "default", ("parity", "strict"), "greedy", "port", workers=1)
    for model, sources in models.items():
        ingest = ingest_em_outputs(sources, model, "default", known)
        scores = score_rule_sets(gold, ingest.tables, ("parity", "strict"), "greedy", "port")
        expected = ModelScores(
            model,
            ingest,
            scores,
            {r: model_summary(s.turn, s.conversation, len(gold["conversations"])) for r, s in scores.items()},
        )
        _assert_same({model: out[model]}, {model: expected})
    assert out["sim-03"].summary["parity"].set_index("metric").loc["n_conversations", "n"] == 15


def test_models_come_back_in_the_order_given(cohort):
    gold, models, _ = cohort
    order = ["sim-03", "sim-01", "sim-02"]
    assert list(score_cohort(gold, {m: models[m] for m in order}, "default", ("parity",), workers=2)) == order


def _corrupt(root: Path, model: str, problem: str) -> dict[str, list[Path]]:
    """A copy of ``model``'s folder with its first file broken: a wrong em_model or a non-JSON
    byte."""
    src, dst = root / model, root / f"{model}-{problem}"
    dst.mkdir(exist_ok=True)
    files = sorted(src.glob("*.json"))
    for f in files:
        (dst / f.name).write_bytes(f.read_bytes())
    first = dst / files[0].name
    if problem == "model":
        obj = json.loads(first.read_text())
        obj["em_model"] = "someone-else"
        first.write_text(json.dumps(obj))
    else:
        first.write_bytes(b"\xff" + first.read_bytes())
    return {model: [dst]}


@pytest.mark.parametrize("workers", [1, 2])
def test_the_first_bad_model_in_order_raises_its_own_error(cohort, workers):
    gold, models, root = cohort
    bad2 = _corrupt(root, "sim-02", "model")
    bad3 = _corrupt(root, "sim-03", "bytes")
    given = {"sim-01": models["sim-01"], **bad2, **bad3}
    with pytest.raises(ReleaseFormatError) as raised:
        score_cohort(gold, given, "default", workers=workers)
    with pytest.raises(ReleaseFormatError) as alone:
        ingest_em_outputs(bad2["sim-02"], "sim-02", "default", set(gold["conversations"]["conversation_id"]))
    assert str(raised.value) == str(alone.value)
    assert "$.em_model" in str(raised.value) and "someone-else" in str(raised.value)
    assert raised.value.problems == alone.value.problems
    assert multiprocessing.active_children() == []


def _later(value, seconds: float = 1.0):
    """A gold function that takes ``seconds``: the workers read every model before it returns,
    so each read comes back and goes out again to be scored."""

    def gold():
        time.sleep(seconds)
        return value

    return gold


@pytest.mark.parametrize("seconds", [0.0, 1.0])
@pytest.mark.parametrize("form", ["tables", "index"])
def test_a_gold_function_gives_what_the_gold_tables_give(cohort, seconds, form):
    gold, models, _ = cohort
    value = gold if form == "tables" else GoldIndex.build(gold)
    _assert_same(
        score_cohort(_later(value, seconds), models, "default", workers=2),
        score_cohort(gold, models, "default", workers=1),
    )
    assert multiprocessing.active_children() == []


def test_a_gold_function_is_called_once_in_one_process(cohort):
    gold, models, _ = cohort
    calls = []
    out = score_cohort(lambda: calls.append(1) or gold, models, "default", ("parity",), workers=1)
    assert calls == [1] and list(out) == list(models)


def test_with_a_slow_gold_function_the_first_bad_model_in_order_still_raises_its_error(cohort):
    """sim-02's fault (a wrong em_model) shows only in the checks after the gold side is read;
    sim-03's (a byte that is not UTF-8) already in its read. sim-02 comes first, so its error."""
    gold, models, root = cohort
    given = {"sim-01": models["sim-01"], **_corrupt(root, "sim-02", "model"), **_corrupt(root, "sim-03", "bytes")}
    with pytest.raises(ReleaseFormatError) as deferred:
        score_cohort(_later(gold), given, "default", workers=2)
    with pytest.raises(ReleaseFormatError) as alone:
        score_cohort(gold, given, "default", workers=1)
    assert str(deferred.value) == str(alone.value) and "someone-else" in str(deferred.value)
    assert multiprocessing.active_children() == []


def test_an_error_of_the_gold_function_comes_first(cohort):
    gold, models, root = cohort
    given = {**_corrupt(root, "sim-03", "bytes"), "sim-01": models["sim-01"]}

    def failing():
        raise FileNotFoundError("no conversations")

    for workers in (1, 2):
        with pytest.raises(FileNotFoundError, match="no conversations"):
            score_cohort(failing, given, "default", workers=workers)
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("workers", [1, 2])
def test_the_collector_is_paused_for_the_call_and_restored_after(cohort, workers):
    """The gold function runs with the cyclic collector off (the whole call is paused); the
    collector is on again after the call, also after a failing one, and stays off after a
    call made with it off."""
    gold, models, _ = cohort
    seen = []

    def recording():
        seen.append(gc.isenabled())
        return gold

    assert gc.isenabled()
    score_cohort(recording, models, "default", ("parity",), workers=workers)
    assert seen == [False] and gc.isenabled()

    def failing():
        raise FileNotFoundError("no conversations")

    with pytest.raises(FileNotFoundError):
        score_cohort(failing, models, "default", ("parity",), workers=workers)
    assert gc.isenabled()
    gc.disable()
    try:
        score_cohort(gold, models, "default", ("parity",), workers=workers)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_results_handed_over_leave_no_file(cohort, tmp_path, monkeypatch):
    """The workers hand their results over in files of a temporary folder: none is left."""
    gold, models, _ = cohort
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    out = score_cohort(_later(gold, 0.5), models, "default", ("parity",), workers=2)
    assert list(out) == list(models)
    assert list(tmp_path.iterdir()) == []


def test_no_worker_is_left_behind(cohort):
    gold, models, _ = cohort
    score_cohort(gold, models, "default", ("parity",), workers=2)
    assert multiprocessing.active_children() == []


def test_workers_must_be_positive(cohort):
    gold, models, _ = cohort
    with pytest.raises(ValueError, match="at least 1"):
        score_cohort(gold, models, "default", workers=0)


def test_available_cores_is_at_least_one():
    assert available_cores() >= 1


@pytest.mark.parametrize("cls", [ReleaseFormatError, FolderEntryError])
def test_release_format_errors_survive_pickling(cls):
    """A worker raises them to its parent through pickle."""
    error = cls([Problem("a.json", "$.turns[0]", "is not an object"), Problem("b.json", "$", "bad")], "fix it", 5, 2)
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is cls
    assert str(again) == str(error) and again.problems == error.problems
