"""The synthetic cohort and the prediction simulator: valid, deterministic, with the design
of the published study and the planted effects recoverable."""

import copy
import math

import pandas as pd
import pytest
from eibench.metrics.score import score_model
from eibench.release.read import read_conversations, read_em_outputs
from eibench.release.tidy import em_tables, gold_tables
from eibench.release.write import dumps
from eibench.seeding import rng_for
from eibench.synthetic.cohort import generate_cohort, largest_remainder, topics
from eibench.synthetic.simulate import CAPABILITIES, draw_ability, human_subset, shared_effects, simulate_outputs

from ..conftest import write_files as _write


@pytest.fixture(scope="module")
def cohort(default_config, tmp_path_factory):
    files, truth = generate_cohort(default_config["cohorts"]["synthetic"], default_config["seed"])
    paths = _write(files, tmp_path_factory.mktemp("cohort"))
    return files, truth, gold_tables(read_conversations(paths))


def test_same_seed_same_bytes_other_seed_other_bytes(default_config):
    params = copy.deepcopy(default_config["cohorts"]["synthetic"]) | {"n_conversations": 15}
    a, _ = generate_cohort(params, 1)
    b, _ = generate_cohort(params, 1)
    c, _ = generate_cohort(params, 2)
    assert {k: dumps(v) for k, v in a.items()} == {k: dumps(v) for k, v in b.items()}
    assert {k: dumps(v) for k, v in a.items()} != {k: dumps(v) for k, v in c.items()}


def test_published_design(cohort, default_config):
    files, truth, gold = cohort
    params = default_config["cohorts"]["synthetic"]
    conv, turns, people = gold["conversations"], gold["turns"], gold["participants"]
    assert len(conv) == 200
    assert len(people) <= 11 and len(truth.participants) == 11
    assert people["has_diagnosis"].any() and (~people["has_diagnosis"]).any()
    assert set(people["diagnosis_group"]) == {"none", "anxiety_depression", "asd_adhd"}
    per = turns.groupby("conversation_id").size()
    assert per.min() >= 3 and per.max() <= 15
    assert conv["subtopic"].nunique() >= 45 and len(topics()) >= 50
    assert (conv["category"] == params["romantic_category"]).sum() > 10
    numbers = sorted(int(c.split("_")[1]) for c in conv["conversation_id"])
    assert numbers[-1] <= math.ceil(200 * params["id_span"]) and numbers != list(range(1, 201))
    legacy = sum(c["legacy_format"] for c in truth.conversations)
    assert 5 <= legacy <= 40  # ~10% of files use the older aliases
    assert (gold["mood_tags"]["in_panas"]).all()
    assert not gold["binary_judgements"]["gold_om"].isna().any()


def test_files_are_complete(cohort):
    files, _, _ = cohort
    conv = next(iter(files.values()))
    assert all(t["userMessage"] and t["llmResponse"] for t in conv["turns"])
    assert conv["participant_profile"]["participant_id"].startswith("P")


def test_largest_remainder():
    assert largest_remainder({"a": 0.45, "b": 0.35, "c": 0.2}, 11) == {"a": 5, "b": 4, "c": 2}
    assert sum(largest_remainder({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3}, 10).values()) == 10


def test_simulated_models_are_independent_of_each_other(cohort, default_config):
    _, _, gold = cohort
    sim, seed = default_config["simulation"], default_config["seed"]
    a = draw_ability("sim-01", "model", sim, seed)
    assert a == draw_ability("sim-01", "model", sim, seed)
    assert a != draw_ability("sim-02", "model", sim, seed)
    out1 = simulate_outputs(gold, a, "default", sim, seed, "Romantic relationships")
    out2 = simulate_outputs(gold, a, "default", sim, seed, "Romantic relationships")
    assert {k: dumps(v) for k, v in out1.items()} == {k: dumps(v) for k, v in out2.items()}


def test_human_raters_share_one_subset(cohort):
    _, _, gold = cohort
    ids = list(gold["conversations"]["conversation_id"])
    assert human_subset(ids, 30, 7) == human_subset(list(reversed(ids)), 30, 7)
    assert len(human_subset(ids, 30, 7)) == 30 and len(human_subset(ids, 500, 7)) == 200


@pytest.fixture(scope="module")
def planted(default_config, tmp_path_factory):
    """A larger cohort scored for three simulated models: the planted effects must show."""
    params = copy.deepcopy(default_config["cohorts"]["synthetic"]) | {"n_conversations": 400}
    seed, sim = default_config["seed"], default_config["simulation"]
    files, _ = generate_cohort(params, seed)
    root = tmp_path_factory.mktemp("planted")
    gold = gold_tables(read_conversations(_write(files, root / "conversations")))
    turns, convs = [], []
    for name in ("sim-01", "sim-02", "sim-03"):
        model = draw_ability(name, "model", sim, seed)
        outs = simulate_outputs(gold, model, "default", sim, seed, params["romantic_category"])
        em = em_tables(read_em_outputs(_write(outs, root / name), name, "default"))
        s = score_model(gold, em, "parity")
        turns.append(s.turn.assign(model=name))
        convs.append(s.conversation.assign(model=name))
    conv = pd.concat(convs).merge(
        gold["conversations"][["conversation_id", "participant_id", "category"]], on="conversation_id"
    )
    conv = conv.merge(gold["participants"][["participant_id", "has_diagnosis"]], on="participant_id")
    return pd.concat(turns), conv, params


def test_diagnosis_lowers_emotion_tracking(planted):
    _, conv, _ = planted
    by = conv.groupby("has_diagnosis")["emotion_f1"].mean()
    assert by[True] < by[False] - 0.03


def test_romantic_topics_are_harder(planted):
    _, conv, params = planted
    romantic = conv["category"] == params["romantic_category"]
    assert conv.loc[romantic, "composite"].mean() < conv.loc[~romantic, "composite"].mean() - 1.0


def test_behaviour_accuracy_drifts_down_emotion_stays_flat(planted):
    turns, _, _ = planted
    early, late = turns[turns["rel_position"] <= 0.25], turns[turns["rel_position"] >= 0.75]
    assert early["binary_om_acc"].mean() > late["binary_om_acc"].mean() + 0.05
    assert abs(early["emotion_f1"].mean() - late["emotion_f1"].mean()) < 0.03


def test_one_uniform_per_answer_draws_what_the_generator_would_one_by_one():
    """simulate_outputs draws a turn's yes/no answers and picks as one rng.random(n): the same
    numbers as n calls of rng.random(), and a missing gold's answer picked from one uniform as
    Generator.choice(p=...) picks it, so the outputs of the batched draws are those of the
    one-by-one draws (the default run's files were compared byte for byte too)."""
    import numpy as np
    from eibench.synthetic.simulate import ANSWERS_WHEN_NA, _answer, _na_cdf

    batched, single = np.random.default_rng(7), np.random.default_rng(7)
    assert batched.random(50).tolist() == [single.random() for _ in range(50)]
    when_na = [0.35, 0.35, 0.3]  # the default config's
    cdf = _na_cdf(when_na)
    for k in range(2000):
        by_choice = str(np.random.default_rng(k).choice(list(ANSWERS_WHEN_NA), p=when_na))
        assert _answer(np.random.default_rng(k).random(), "na", 0.9, cdf) == by_choice
        assert _answer(np.random.default_rng(k).random(), None, 0.9, cdf) == by_choice
    assert _answer(0.49, "yes", 0.5, cdf) == "yes" and _answer(0.5, "yes", 0.5, cdf) == "no"
    assert _answer(0.5, "no", 0.5, cdf) == "yes"


def test_a_neighbour_is_picked_from_one_uniform_as_the_generator_picks_it():
    """_neighbour looks up a cached cumulative distribution per word and bisects one uniform:
    the item Generator.choice(p=...) picks from the same weights, with the stream left where
    choice leaves it (the simulated outputs stay byte for byte the same)."""
    import math

    import numpy as np
    from eibench import instrument
    from eibench.synthetic.simulate import _neighbour

    items = instrument.panas_items()

    def by_choice(word: str, rng: np.random.Generator, kernel: float) -> str:
        me = instrument.panas_by_word()[word]
        dist = np.array(
            [math.hypot(i.valence - me.valence, i.arousal - me.arousal) if i.word != word else np.inf for i in items]
        )
        w = np.exp(-dist / kernel)
        return items[int(rng.choice(len(items), p=w / w.sum()))].word

    for kernel in (0.1, 1.0):  # the default config's, and a wide one
        for word in (i.word for i in items):
            for seed in range(60):
                ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
                assert _neighbour(word, ours, kernel) == by_choice(word, theirs, kernel)
                assert ours.random() == theirs.random()
    assert _neighbour("not-a-panas-word", np.random.default_rng(1), 0.3) in {i.word for i in items}


def test_shared_effects_are_each_ids_own_draw_computed_once_and_read_only():
    """Each id's difficulties come from its own generator (rng_for(seed, what, id)), whatever
    the order the ids are given in; a process computes them once for every model and redraw
    (the same mapping is returned), so that mapping cannot be changed by one of them."""
    ids = [f"conversation_{k:03d}" for k in range(30)]
    first = shared_effects(ids, 0.7, 11, "conversation-difficulty")
    again = shared_effects(list(reversed(ids)), 0.7, 11, "conversation-difficulty")
    assert again is first and list(first) == sorted(ids)
    for i in ids:
        expected = rng_for(11, "conversation-difficulty", i).normal(0.0, 0.7, size=4)
        assert dict(first[i]) == {k: float(v) for k, v in zip(CAPABILITIES, expected)}
    assert shared_effects(ids, 0.7, 12, "conversation-difficulty") != first
    with pytest.raises(TypeError):
        first[ids[0]]["emotion"] = 0.0  # type: ignore[index]
    with pytest.raises(TypeError):
        first["someone"] = {}  # type: ignore[index]
