"""The human baseline: MASI, Krippendorff's alpha, the alternative-annotator test, the paired
human-vs-model comparison and the agreement table."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pandas as pd
import pytest
from eibench.stats import humans
from eibench.stats.bootstrap import cluster_weights
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import binary_distance, masi_distance
from scipy import stats

from .conftest import make_study

# ----------------------------------------------------------------- MASI

F = frozenset


@pytest.mark.parametrize(
    "a,b,expected",
    [
        (F("A"), F("A"), 0.0),  # identical
        (F("AB"), F("BA"), 0.0),
        (F("A"), F("B"), 1.0),  # disjoint
        (F("AB"), F("CD"), 1.0),
        (F("A"), F("AB"), 1 - (1 / 2) * (2 / 3)),  # subset: Jaccard 1/2, monotonicity 2/3 -> 0.667
        (F("AB"), F("AC"), 1 - (1 / 3) * (1 / 3)),  # overlap, neither a subset: 1/3 x 1/3 -> 0.889
        (F("AB"), F("ABCD"), 1 - (2 / 4) * (2 / 3)),
        (F(), F(), 0.0),  # both empty: agreement
        (F(), F("A"), 1.0),
    ],
)
def test_masi_on_passonneaus_cases(a, b, expected):
    assert humans.masi(a, b) == pytest.approx(expected, abs=1e-12)
    assert humans.masi(b, a) == pytest.approx(expected, abs=1e-12)


def test_masi_rounded_values_of_the_paper():
    assert round(humans.masi(F("A"), F("AB")), 3) == 0.667
    assert round(humans.masi(F("AB"), F("AC")), 3) == 0.889


def test_masi_matches_nltk_on_all_nonempty_subsets():
    labels = "ABCD"
    subsets = [F(c for i, c in enumerate(labels) if mask >> i & 1) for mask in range(1, 16)]
    for a in subsets:
        for b in subsets:
            assert humans.masi(a, b) == pytest.approx(masi_distance(set(a), set(b)), abs=1e-12)


# ----------------------------------------------------------------- Krippendorff's alpha

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the example of four coders and
# twelve units with missing values (None).
_ = None
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],  # coder A
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],  # coder B
    [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],  # coder C
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],  # coder D
]


def _units(matrix) -> dict:
    return {u: [row[u] for row in matrix if row[u] is not None] for u in range(len(matrix[0]))}


def test_krippendorff_published_nominal_and_interval_values():
    units = _units(KRIPPENDORFF_2011)
    assert round(humans.krippendorff_alpha(units, humans.nominal), 3) == 0.743
    assert round(humans.krippendorff_alpha(units, humans.interval), 3) == 0.849


def _alpha_by_coincidences(units: dict, delta) -> float:
    """The textbook computation through the coincidence matrix (Krippendorff 2011, section C)."""
    values = sorted({v for vs in units.values() for v in vs}, key=repr)
    index = {v: i for i, v in enumerate(values)}
    o = np.zeros((len(values), len(values)))
    for vs in units.values():
        m = len(vs)
        if m < 2:
            continue
        for i, j in permutations(range(m), 2):
            o[index[vs[i]], index[vs[j]]] += 1 / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    d = np.array([[delta(a, b) for b in values] for a in values])
    d_o = np.sum(o * d) / n
    d_e = np.sum(np.outer(n_c, n_c) * d) / (n * (n - 1))
    return 1 - d_o / d_e


def _random_units(seed: int, kind: str) -> dict:
    rng = np.random.default_rng(seed)
    units = {}
    for u in range(25):
        truth = rng.integers(1, 5)
        vs = []
        for _coder in range(4):
            if rng.random() < 0.25:
                continue  # missing
            if kind == "sets":
                vs.append(F(c for c in "ABCD" if rng.random() < 0.4) | F("ABCD"[truth - 1]))
            else:
                vs.append(int(truth if rng.random() < 0.6 else rng.integers(1, 5)))
        units[u] = vs
    return units


@pytest.mark.parametrize("seed", range(4))
def test_krippendorff_matches_the_coincidence_matrix_and_nltk(seed):
    units = _random_units(seed, "numbers")
    for delta in (humans.nominal, humans.interval):
        assert humans.krippendorff_alpha(units, delta) == pytest.approx(_alpha_by_coincidences(units, delta), abs=1e-12)
    triples = [(str(c), str(u), v) for u, vs in units.items() for c, v in enumerate(vs)]
    nltk_nominal = AnnotationTask(data=triples, distance=binary_distance).alpha()
    assert humans.krippendorff_alpha(units, humans.nominal) == pytest.approx(nltk_nominal, abs=1e-12)
    sets = _random_units(seed, "sets")
    triples = [(str(c), str(u), v) for u, vs in sets.items() for c, v in enumerate(vs)]
    nltk_masi = AnnotationTask(data=triples, distance=masi_distance).alpha()
    assert humans.krippendorff_alpha(sets, humans.masi) == pytest.approx(nltk_masi, abs=1e-12)
    assert humans.krippendorff_alpha(sets, humans.masi) == pytest.approx(
        _alpha_by_coincidences(sets, humans.masi), abs=1e-12
    )


@pytest.mark.parametrize("block", [1, 3, 1024])
def test_masi_expected_sum_equals_the_pairwise_sum(block):
    """The vectorised expected-disagreement sum (rows in blocks) is the sum of masi() over every
    ordered pair of distinct sets, empty sets and mixed label types included."""
    rng = np.random.default_rng(5)
    labels = ["joy", "calm", "fear", 3, ("x", 1), "anger"]
    sets = list({F(x for x in labels if rng.random() < 0.35) for _ in range(60)} | {F()})
    counts = rng.integers(1, 6, len(sets)).astype(float)
    pairwise = sum(counts[i] * counts[j] * humans.masi(a, b) for i, a in enumerate(sets) for j, b in enumerate(sets))
    assert humans._masi_expected(sets, counts, block=block) == pytest.approx(pairwise, rel=1e-12)


def test_krippendorff_trivial_cases():
    perfect = {0: [1, 1, 1], 1: [2, 2], 2: [3, 3, 3]}
    assert humans.krippendorff_alpha(perfect, humans.nominal) == 1.0
    assert humans.krippendorff_alpha(perfect, humans.interval) == 1.0
    sets = {0: [F("AB"), F("AB")], 1: [F("C"), F("C")], 2: [F(), F()]}
    assert humans.krippendorff_alpha(sets, humans.masi) == 1.0
    # Units with one value are not pairable and change nothing.
    units = _units(KRIPPENDORFF_2011)
    with_singletons = dict(units) | {"x": [5], "y": [1]}
    assert humans.krippendorff_alpha(with_singletons, humans.nominal) == humans.krippendorff_alpha(
        units, humans.nominal
    )
    # No variation at all, or fewer than two pairable values: undefined.
    assert np.isnan(humans.krippendorff_alpha({0: [1, 1], 1: [1, 1]}, humans.nominal))
    assert np.isnan(humans.krippendorff_alpha({0: [1], 1: [2]}, humans.nominal))
    # Systematic disagreement is below zero.
    assert humans.krippendorff_alpha({0: [1, 2], 1: [1, 2], 2: [2, 1]}, humans.nominal) < 0


# ----------------------------------------------------------------- alternative-annotator test


def _annotations(seed: int, n_annotators: int = 5, n_items: int = 80, accuracy: float = 0.8):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, size=n_items)
    names = [f"h{i}" for i in range(n_annotators)]
    answers = {h: np.where(rng.random(n_items) < accuracy, truth, 1 - truth) for h in names}
    annotations = {h: {item: int(a[item]) for item in range(n_items)} for h, a in answers.items()}
    majority = (np.mean([answers[h] for h in names], axis=0) > 0.5).astype(int)
    return annotations, {item: int(majority[item]) for item in range(n_items)}, rng


@pytest.mark.parametrize("seed", range(3))
def test_alt_test_a_model_that_copies_the_majority_passes(seed):
    annotations, majority, _ = _annotations(seed)
    out = humans.alt_test(annotations, majority, epsilon=0.2)
    assert out["passes"] is True and out["winning_rate"] >= 0.5
    assert out["advantage_probability"] > 0.8
    assert out["n_annotators"] == 5 and out["epsilon"] == 0.2


@pytest.mark.parametrize("seed", range(3))
def test_alt_test_a_random_model_fails(seed):
    annotations, majority, rng = _annotations(seed)
    random_model = {item: int(rng.integers(0, 2)) for item in range(80)}
    out = humans.alt_test(annotations, random_model, epsilon=0.2)
    assert out["passes"] is False and out["winning_rate"] == 0.0
    # Ties count as wins for both sides, so even a coin wins about two items in three here.
    assert out["advantage_probability"] < humans.alt_test(annotations, majority, epsilon=0.2)["advantage_probability"]


def _alt_test_reference(annotations, model, epsilon, alpha=0.05):
    """Calderon, Reichart and Dror (2025), written out: per annotator a one-sided paired t-test of
    the win indicators with margin epsilon, Benjamini-Yekutieli across annotators."""
    from statsmodels.stats.multitest import multipletests

    names = sorted(annotations)
    p, rho = [], []
    for j in names:
        wf, wh = [], []
        for item, answer in annotations[j].items():
            others = [annotations[k][item] for k in names if k != j and item in annotations[k]]
            if not others or item not in model:
                continue
            sf = np.mean([model[item] == o for o in others])
            sh = np.mean([answer == o for o in others])
            wf.append(sf >= sh)
            wh.append(sh >= sf)
        d = np.array(wf, float) - np.array(wh, float)
        p.append(stats.ttest_1samp(d, -epsilon, alternative="greater").pvalue)
        rho.append(np.mean(wf))
    rejected = multipletests(p, alpha=alpha, method="fdr_by")[0]
    return rejected.mean(), np.mean(rho)


def test_alt_test_matches_a_direct_implementation():
    rng = np.random.default_rng(11)
    annotations, majority, _ = _annotations(12, n_annotators=4, n_items=40, accuracy=0.75)
    # A model that is right two times in three: a borderline case, both outcomes possible per annotator.
    model = {item: v if rng.random() < 0.67 else 1 - v for item, v in majority.items()}
    for epsilon in (0.0, 0.1, 0.2, 0.3):
        omega, rho = _alt_test_reference(annotations, model, epsilon)
        out = humans.alt_test(annotations, model, epsilon)
        assert out["winning_rate"] == pytest.approx(omega)
        assert out["advantage_probability"] == pytest.approx(rho)
        assert out["passes"] == (omega >= 0.5)


@pytest.mark.parametrize("seed", range(3))
def test_alt_test_with_the_annotators_left_out_once_gives_the_same_result(seed):
    """alt_tests computes ``leave_one_out`` once for all models: the result is alt_test's own,
    bit for bit, for every model and similarity."""
    annotations, majority, rng = _annotations(seed, n_annotators=4, n_items=60, accuracy=0.7)
    del annotations["h1"][3], annotations["h2"][7]  # items some annotators did not answer
    models = [majority, {item: int(rng.integers(0, 2)) for item in range(50)}]  # the second skips items
    for similarity in (humans.same_answer, lambda a, b: 1.0 - 0.3 * abs(a - b)):
        left_out = humans.leave_one_out(annotations, similarity)
        for model in models:
            for epsilon in (0.0, 0.2):
                fresh = humans.alt_test(annotations, model, epsilon, similarity)
                assert humans.alt_test(annotations, model, epsilon, similarity, left_out=left_out) == fresh


def test_leave_one_out_keeps_the_items_another_annotator_answered():
    annotations = {"b": {1: "yes", 2: "no"}, "a": {1: "yes", 2: "yes", 9: "no"}, "c": {1: "no"}}
    left_out = humans.leave_one_out(annotations)
    # Annotators in name order; item 9 (only a's) is left out; others in name order.
    assert left_out == [
        [(1, ["yes", "no"], 0.5), (2, ["no"], 0.0)],
        [(1, ["yes", "no"], 0.5), (2, ["yes"], 0.0)],
        [(1, ["yes", "yes"], 0.0)],
    ]


def test_alt_test_skips_unshared_items_and_tiny_annotators():
    annotations = {
        "a": {1: 1, 2: 0, 3: 1, 4: 0, 99: 1},  # item 99: nobody else answered it
        "b": {1: 1, 2: 0, 3: 1, 4: 0},
        "c": {1: 1, 2: 0, 3: 1, 4: 0, 5: 0},  # item 5: the model did not answer it
        "d": {1: 1},  # one shared item: not testable, p = 1
    }
    model = {1: 1, 2: 0, 3: 1, 4: 0}  # agrees with the others as well as any annotator does
    out = humans.alt_test(annotations, model, epsilon=0.1)
    assert out["n_annotators"] == 4
    # a, b and c: the model wins every item (ties count for both): d = epsilon for all -> p = 0.
    # d: one item -> p = 1, not rejected. Three of four annotators rejected.
    assert out["winning_rate"] == 0.75 and out["passes"] is True
    assert out["advantage_probability"] == pytest.approx(1.0)


# ----------------------------------------------------------------- humans vs models


@pytest.fixture(scope="module")
def paired():
    rng = np.random.default_rng(21)
    n = 40
    values = np.full((5, n), np.nan)
    values[0] = 0.5 + rng.normal(0, 0.05, n)  # a weak model
    values[2] = 1.0 + rng.normal(0, 0.05, n)  # a strong model
    values[3, :10] = 0.8 + rng.normal(0, 0.05, 10)  # human 1: conversations 0..9
    values[4, 5:15] = 0.8 + rng.normal(0, 0.05, 10)  # human 2: conversations 5..14
    human = np.full(n, np.nan)
    human[:15] = np.nanmean(values[3:, :15], axis=0)
    values[1] = human + 0.01 * (-1.0) ** np.arange(n)  # as good as the humans, mean difference 0
    values[1, 15:] = 0.3
    models = ["weak", "equal", "strong", "human_1", "human_2"]
    roles = {m: ("human" if m.startswith("human") else "model") for m in models}
    study = make_study({"binary_hp_acc": values}, models=models, roles=roles)
    weights = cluster_weights(np.arange(n), 400, np.random.default_rng(22))
    table = humans.human_vs_models(study, "binary_hp_acc", study.with_role("human"), study.with_role("model"), weights)
    return study, human, table


def test_human_vs_models_compares_on_the_humans_conversations_only(paired):
    study, human, table = paired
    t = table.set_index("em_model")
    values = study.values["binary_hp_acc"]
    for i, name in enumerate(["weak", "equal", "strong"]):
        assert t.loc[name, "n_conversations"] == 15
        assert t.loc[name, "human_minus_model"] == pytest.approx(np.mean(human[:15] - values[i, :15]))
        assert t.loc[name, "lo"] <= t.loc[name, "human_minus_model"] <= t.loc[name, "hi"]


def test_human_vs_models_verdicts_and_holm(paired, multipletests):
    _, _, table = paired
    t = table.set_index("em_model")
    assert t.loc["weak", "verdict"] == "humans better"
    assert t.loc["strong", "verdict"] == "model better"
    assert t.loc["equal", "verdict"] == "no difference" and t.loc["equal", "p_boot"] > 0.5
    np.testing.assert_allclose(table["p_holm"], multipletests(table["p_boot"], method="holm")[1])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_human_vs_models_on_a_metric_the_humans_never_rated():
    values = np.random.default_rng(0).random((4, 6))
    values[2:] = np.nan  # two human raters without a single value of this metric
    study = make_study(
        {"cw_q1_f1": values},
        models=["a", "b", "human_1", "human_2"],
        roles={"a": "model", "b": "model", "human_1": "human", "human_2": "human"},
    )
    table = humans.human_vs_models(study, "cw_q1_f1", [2, 3], [0, 1], np.ones((3, 6)))
    assert (table["n_conversations"] == 0).all()
    assert table["p_boot"].isna().all() and table["p_holm"].isna().all()
    assert (table["verdict"] == "no difference").all()


# ----------------------------------------------------------------- agreement table


def _rater_tables(binary: list[str], picks: list[str], tags: list[set], ratings: list[float]) -> dict:
    cat = lambda values: pd.Series(values, dtype="category")  # noqa: E731 - the EM tables' dtype
    n = len(binary)
    return {
        "em_binary": pd.DataFrame(
            {
                "conversation_id": cat(["c1"] * n),
                "turn_number": pd.array(range(1, n + 1), "Int64"),
                "target": cat(["hp"] * n),
                "wording": cat(["observer"] * n),
                "question_id": cat(["q1"] * n),
                "value": cat(binary),
            }
        ),
        "em_pairwise": pd.DataFrame(
            {
                "conversation_id": cat(["c1"] * len(picks)),
                "turn_number": pd.array(range(1, len(picks) + 1), "Int64"),
                "key": cat(["k"] * len(picks)),
                "pick": cat(picks),
            }
        ),
        "em_emotion_tags": pd.DataFrame(
            {
                "conversation_id": cat([f"c{t}" for t, s in enumerate(tags) for _ in s]),
                "turn_number": pd.array([1 for s in tags for _ in s], "Int64"),
                "emotion": cat([e for s in tags for e in sorted(s)]),
            }
        ),
        "em_turns": pd.DataFrame(
            {
                "conversation_id": cat([f"c{t}" for t in range(len(tags))]),
                "turn_number": pd.array([1] * len(tags), "Int64"),
            }
        ),
        "em_four_branch": pd.DataFrame(
            {
                "conversation_id": cat(["c1"] * len(ratings)),
                "source": ["post"] * len(ratings),
                "turn_number": pd.array([None] * len(ratings), "Int64"),
                "branch": [f"b{i}" for i in range(len(ratings))],
                "rating": ratings,
            }
        ),
    }


def test_human_agreement_per_kind_of_answer():
    one = _rater_tables(["yes", "no", "yes", "na"], ["A", "B", "A"], [{"joy"}, {"sad", "calm"}, set()], [1.0, 4.0, 6.0])
    two = _rater_tables(["yes", "no", "no", "na"], ["A", "B", "A"], [{"joy"}, {"sad"}, set()], [2.0, 4.0, 6.0])
    table = humans.human_agreement({"r1": one, "r2": two}).set_index("answers")
    assert table.loc["pairwise", "krippendorff_alpha"] == 1.0
    assert table.loc["binary_hp", "krippendorff_alpha"] == pytest.approx(
        humans.krippendorff_alpha(
            {0: ["yes", "yes"], 1: ["no", "no"], 2: ["yes", "no"], 3: ["na", "na"]}, humans.nominal
        )
    )
    assert table.loc["emotion_tags", "krippendorff_alpha"] == pytest.approx(
        humans.krippendorff_alpha(
            {0: [F({"joy"}), F({"joy"})], 1: [F({"sad", "calm"}), F({"sad"})], 2: [F(), F()]}, humans.masi
        )
    )
    assert table.loc["four_branch", "krippendorff_alpha"] == pytest.approx(
        humans.krippendorff_alpha({0: [1.0, 2.0], 1: [4.0, 4.0], 2: [6.0, 6.0]}, humans.interval)
    )
    assert (table["raters"] == 2).all()
    assert table.loc["binary_hp", "units"] == 4 and table.loc["emotion_tags", "units"] == 3


def test_on_an_error_metric_the_lower_side_is_better(paired):
    study, _, _ = paired
    # The same numbers read as an error (lower is better): the verdicts swap.
    errors = make_study({"four_branch_mae": study.values["binary_hp_acc"]}, models=study.models, roles=study.roles)
    weights = cluster_weights(np.arange(errors.n_conversations), 400, np.random.default_rng(22))
    table = humans.human_vs_models(
        errors, "four_branch_mae", errors.with_role("human"), errors.with_role("model"), weights
    ).set_index("em_model")
    assert table.loc["weak", "verdict"] == "model better"  # the weak model's lower values are lower errors
    assert table.loc["strong", "verdict"] == "humans better"


def _em(rows_binary, rows_pairwise) -> dict[str, pd.DataFrame]:
    b = pd.DataFrame(
        rows_binary, columns=["conversation_id", "turn_number", "question_id", "target", "wording", "value"]
    )
    p = pd.DataFrame(rows_pairwise, columns=["conversation_id", "turn_number", "key", "pick"])
    return {"em_binary": b, "em_pairwise": p}


def test_answers_keep_the_preferred_observer_answers_and_clear_picks():
    t = _em(
        [
            ("c1", 1, "q1", "hp", "observer", "yes"),
            ("c1", 1, "q2", "om", "observer", "no"),
            ("c1", 2, "q1", "hp", "self", "no"),
            ("c1", 2, "q3", "hp", "observer", "maybe"),
        ],
        [("c1", 1, "k", "A"), ("c1", 2, "k", "tie")],
    )
    assert humans.hp_answers(t) == {("c1", 1, "q1"): "yes"}
    assert humans.pairwise_picks(t) == {("c1", 1, "k"): "A"}


def test_alt_tests_need_two_human_raters():
    t = _em([("c1", 1, "q1", "hp", "observer", "yes")], [("c1", 1, "k", "A")])
    assert humans.alt_tests({"h1": t}, {"m": t}.items(), 0.1, 0.05).empty


def test_alt_tests_read_one_model_at_a_time_and_keep_the_row_order():
    """Models given as a generator are taken one at a time (the rule reads each model's tables
    when the test asks for them); rows come task by task, models in the order given, as from a
    list of every model's tables."""
    rng = np.random.default_rng(5)
    units = [(f"c{c}", t, f"q{q}") for c in range(6) for t in (1, 2) for q in range(4)]

    def rater(p_keep: float) -> dict[str, pd.DataFrame]:
        binary = [(c, t, q, "hp", "observer", "yes" if rng.random() < p_keep else "no") for c, t, q in units]
        picks = [(c, t, "0", "A" if rng.random() < p_keep else "B") for c, t, _ in units[::4]]
        return _em(binary, picks)

    raters = {f"h{k}": rater(0.8) for k in range(3)}
    models = {name: rater(p) for name, p in (("m1", 0.9), ("m2", 0.5), ("m3", 0.2))}
    held = []

    def one_at_a_time():
        for name, tables in models.items():
            held.append(name)
            yield name, tables
            held.remove(name)

    streamed = humans.alt_tests(raters, one_at_a_time(), 0.1, 0.05)
    assert held == []
    expected = humans.alt_tests(raters, list(models.items()), 0.1, 0.05)
    pd.testing.assert_frame_equal(streamed, expected)
    assert list(zip(streamed["answers"], streamed["em_model"])) == [
        (task, m) for task in ("binary_hp", "pairwise") for m in ("m1", "m2", "m3")
    ]


def test_alt_tests_leave_out_what_no_rater_labelled_with_the_same_result():
    """A model's answers on conversations no rater labelled are dropped before the test (the
    rule's memory at 50x): each row is the test on the model's whole answers."""
    rng = np.random.default_rng(11)
    rated = [(f"c{c}", t, f"q{q}") for c in range(5) for t in (1, 2) for q in range(3)]
    unrated = [(f"u{c}", t, f"q{q}") for c in range(40) for t in (1, 2) for q in range(3)]

    def answers(units, p_yes: float) -> dict[str, pd.DataFrame]:
        binary = [(c, t, q, "hp", "observer", "yes" if rng.random() < p_yes else "no") for c, t, q in units]
        picks = [(c, t, "0", "A" if rng.random() < p_yes else "B") for c, t, _ in units[::3]]
        return _em(binary, picks)

    raters = {f"h{k}": answers(rated, 0.7) for k in range(3)}
    models = {name: answers(rated + unrated, p) for name, p in (("m1", 0.9), ("m2", 0.4))}
    got = humans.alt_tests(raters, models.items(), 0.1, 0.05)
    for task, extract in (("binary_hp", humans.hp_answers), ("pairwise", humans.pairwise_picks)):
        annotations = {h: extract(t) for h, t in raters.items()}
        for name, tables in models.items():
            assert len(extract(tables)) > len(extract(tables, {f"c{c}" for c in range(5)}))
            row = got[(got["answers"] == task) & (got["em_model"] == name)].iloc[0]
            expected = humans.alt_test(annotations, extract(tables), 0.1, alpha=0.05)
            assert {k: row[k] for k in expected} == pytest.approx(expected, nan_ok=True)


def test_answers_of_some_conversations():
    t = _em(
        [("c1", 1, "q1", "hp", "observer", "yes"), ("c2", 1, "q1", "hp", "observer", "no")],
        [("c1", 1, "k", "A"), ("c2", 1, "k", "B")],
    )
    assert humans.hp_answers(t, {"c2"}) == {("c2", 1, "q1"): "no"}
    assert humans.pairwise_picks(t, ["c1"]) == {("c1", 1, "k"): "A"}
    assert humans.hp_answers(t, set()) == {}


def test_compared_metrics_add_the_claims_metrics_once():
    claims = [
        {"test": "humans_vs_models", "params": {"metric": "tracking"}},
        {"test": "humans_vs_models", "params": {"metric": "composite"}},
        {"test": "other", "params": {}},
    ]
    assert humans.compared_metrics(claims) == sorted(set(humans.HUMAN_METRICS) | {"tracking"})


# ----------------------------------------------------------------- ICC of the four-branch ratings
# Shrout and Fleiss (1979), Table 2: 6 targets rated by 4 judges; their ICC(2,1) is 0.29.
SHROUT_FLEISS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], float)


def _long(wide: np.ndarray) -> pd.DataFrame:
    n, k = wide.shape
    return pd.DataFrame(
        {
            "unit": np.repeat([f"u{i}" for i in range(n)], k),
            "rater": np.tile([f"r{j}" for j in range(k)], n),
            "rating": wide.ravel(),
        }
    )


def _icc_a1_textbook(x: np.ndarray) -> float:
    """McGraw and Wong's ICC(A,1) from the two-way ANOVA mean squares."""
    n, k = x.shape
    grand = x.mean()
    msr = k * np.sum((x.mean(axis=1) - grand) ** 2) / (n - 1)
    msc = n * np.sum((x.mean(axis=0) - grand) ** 2) / (k - 1)
    resid = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + grand
    mse = np.sum(resid**2) / ((n - 1) * (k - 1))
    return (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)


def test_icc_matches_shrout_and_fleiss():
    icc, units = humans.icc_absolute_agreement(_long(SHROUT_FLEISS))
    assert units == 6
    assert round(icc, 2) == 0.29
    assert icc == pytest.approx(_icc_a1_textbook(SHROUT_FLEISS), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_icc_uses_the_units_every_rater_rated(seed):
    rng = np.random.default_rng(seed)
    wide = rng.integers(0, 11, size=(12, 3)).astype(float)
    long = _long(wide)
    dropped = long.drop(index=[1, 5])  # unit u0 loses rater r1, unit u1 rater r2
    icc, units = humans.icc_absolute_agreement(dropped)
    assert units == 10
    assert icc == pytest.approx(_icc_a1_textbook(wide[2:]), abs=1e-12)


def test_icc_edge_cases_are_nan():
    assert np.isnan(humans.icc_absolute_agreement(_long(np.full((5, 3), 4.0)))[0])  # no variance at all
    icc, units = humans.icc_absolute_agreement(_long(np.array([[1.0, 2.0]])))  # one unit
    assert np.isnan(icc) and units == 1
    icc, units = humans.icc_absolute_agreement(_long(np.arange(5.0)[:, None]))  # one rater
    assert np.isnan(icc) and units == 0
    perfect, _ = humans.icc_absolute_agreement(_long(np.repeat(np.arange(6.0)[:, None], 3, axis=1)))
    assert perfect == pytest.approx(1.0)


def test_the_agreement_table_gives_the_icc_of_the_four_branch_ratings_only():
    one = _rater_tables(["yes", "no"], ["A", "B"], [{"joy"}], [1.0, 4.0, 6.0, 3.0])
    two = _rater_tables(["yes", "no"], ["A", "B"], [{"joy"}], [2.0, 4.0, 6.0, 2.0])
    table = humans.human_agreement({"r1": one, "r2": two}).set_index("answers")
    expected = _icc_a1_textbook(np.array([[1.0, 2.0], [4.0, 4.0], [6.0, 6.0], [3.0, 2.0]]))
    assert table.loc["four_branch", "icc_a1"] == pytest.approx(expected, abs=1e-12)
    assert table.loc["four_branch", "icc_units"] == 4
    assert table.drop(index="four_branch")["icc_a1"].isna().all()
    assert (table.drop(index="four_branch")["icc_units"] == 0).all()


def test_mean_of_is_np_mean_bit_for_bit():
    """alt_test's per-item means: the same floats np.mean gives, for few values and for many."""
    from eibench.stats.humans import mean_of

    rng = np.random.default_rng(0)
    for n in [*range(1, 8), 8, 9, 30]:
        for _ in range(300):
            values = (rng.normal(size=n) * 10.0 ** rng.integers(-5, 5, size=n)).tolist()
            assert mean_of(values) == np.mean(values)
