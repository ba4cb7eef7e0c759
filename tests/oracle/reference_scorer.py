"""Reference ("oracle") implementation of the benchmark metrics, written plainly from docs/metrics.md.

It is deliberately independent of workflow/eibench/metrics/: standard library only, per-turn loops
over the raw JSON, brute-force optimal VA matching. Tests compare the fast scorer against it.

Section names in the docstrings ("Rule sets", "Normalisation", "Emotion tracking", ...) refer to
the sections of docs/metrics.md.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
from pathlib import Path

NAN = float("nan")

INSTRUMENT_DIR = Path(__file__).resolve().parents[2] / "workflow/eibench/instrument"

RULE_SETS = ("parity", "strict")

# Turn-level metrics, in the order they appear in the rows.
TURN_METRICS = [
    "emotion_f1",
    "emotion_f1_intensity",
    "emotion_va",
    "emotion_va_intensity",
    "tracking",
    "binary_om_acc",
    "binary_hp_acc",
    "binary_om_acc_pw",
    "binary_hp_acc_pw",
    "pairwise_acc",
    "kendall_tau",
    "draft_judge",
    "response_similarity",
    "preference_alignment",
]

# The four binary tasks: (name, EM answer field, which gold).
BINARY_TASKS = [
    ("om", "em_binary_om_assessment", "om"),
    ("hp", "em_binary_human_prediction", "hp"),
    ("om_pw", "em_binary_om_assessment_hp", "om"),
    ("hp_pw", "em_binary_human_prediction_hp", "hp"),
]
ACCURACY_NAME = {
    "om": "binary_om_acc",
    "hp": "binary_hp_acc",
    "om_pw": "binary_om_acc_pw",
    "hp_pw": "binary_hp_acc_pw",
}

CONVERSATION_METRICS = [
    "perspective_gap",
    "panas_normalized",
    "panas_adjusted",
    "panas_part",
    "panas_items_normalized",
    "panas_items_adjusted",
    "cw_q1_f1",
    "cw_q2_exact",
    "cw_q3_exact",
    "cw_q3_distance",
    "cw_followup_f1",
    "conversation_wide",
    "four_branch_mae",
    "four_branch",
    "evaluation",
    "holistic",
    "composite",
    "composite_parts",
    "composite_equal",
]

JUDGE_KEYS = ["overall_score", "emotional_appropriateness", "helpfulness", "tone_match"]
INTENSITY_WORDS = {"mild": 2, "moderate": 4, "intense": 6}
YES_WORDS = {"true", "yes", "y", "1"}
NO_WORDS = {"false", "no", "n", "0"}
NA_WORDS = {"na", "n/a", "not_applicable"}
RESPONSE_LABELS = {
    "original": "original",
    "alternate": "alternate",
    "human": "human",
    "llmimproved": "alternate",
    "humanedited": "human",
}
PREDICTED_PA_KEYS = ["totalPositiveAffect", "positive", "PA", "pa"]
PREDICTED_NA_KEYS = ["totalNegativeAffect", "negative", "NA", "na"]


# ----------------------------------------------------------------------------------------------
# Instrument data
# ----------------------------------------------------------------------------------------------


def load_panas_table() -> dict[str, dict]:
    """Read panas_items.csv: lower-cased word -> {name, affect, valence, arousal} (Emotion tracking)."""
    table = {}
    with open(INSTRUMENT_DIR / "panas_items.csv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            table[row["item"].strip().lower()] = {
                "name": row["item"].strip(),
                "affect": row["affect"].strip().lower(),
                "valence": float(row["valence"]),
                "arousal": float(row["arousal"]),
            }
    return table


def load_fit_options() -> list[str]:
    """Read the four q3_modelFit options, best first, trimmed and lower-cased (cw_q3_distance)."""
    with open(INSTRUMENT_DIR / "survey_options.json", encoding="utf-8") as handle:
        options = json.load(handle)
    for key, values in options.items():
        if key.startswith("q3_modelFit"):
            return [value.strip().lower() for value in values]
    raise KeyError("q3_modelFit options not found in survey_options.json")


PANAS = load_panas_table()
FIT_OPTIONS = load_fit_options()


# ----------------------------------------------------------------------------------------------
# Small generic helpers
# ----------------------------------------------------------------------------------------------


def is_nan(value) -> bool:
    """True for None or a float NaN: the oracle's single notion of 'no value'."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def nan_mean(values) -> float:
    """Mean of the values that are not NaN; NaN when there are none (Aggregation)."""
    present = [value for value in values if not is_nan(value)]
    if not present:
        return NAN
    return sum(present) / len(present)


def weighted_renormalised(pairs) -> tuple[float, int]:
    """Sum of weight x value over present values divided by their weights (Aggregation: renormalise)."""
    total_weight = 0.0
    total = 0.0
    count = 0
    for weight, value in pairs:
        if is_nan(value):
            continue
        total_weight += weight
        total += weight * value
        count += 1
    if count == 0:
        return NAN, 0
    return total / total_weight, count


def clamp(value: float, low: float, high: float) -> float:
    """Clamp value into [low, high]."""
    return max(low, min(high, value))


def as_number(value):
    """A real number from an int/float (not bool, not NaN), else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        if isinstance(value, float) and math.isnan(value):
            return None
        return value
    return None


def first_present(mapping: dict, keys):
    """Value of the first alias key whose value is not null (format spec aliases)."""
    if not isinstance(mapping, dict):
        return None
    for key in keys:
        if key in mapping and mapping[key] is not None:
            return mapping[key]
    return None


def as_dict(value) -> dict:
    """A dict, or an empty dict for null / anything else (null annotations are empty)."""
    return value if isinstance(value, dict) else {}


def as_list(value) -> list:
    """A list, or an empty list for null / anything else (null lists are empty)."""
    return value if isinstance(value, list) else []


def answer_list(value) -> list:
    """A multi-select answer as a list: a bare string is a one-element list, null is empty."""
    if value is None:
        return []
    if isinstance(value, list):
        return [item for item in value if item is not None]
    return [value]


def tokens(text) -> set:
    """Whitespace tokens, lower-cased, as a set (token-Jaccard)."""
    return set(str(text).lower().split())


def token_jaccard(left, right) -> float:
    """|A ∩ B| / |A ∪ B| over whitespace tokens; 1 when both are empty (equal sets)."""
    a = tokens(left)
    b = tokens(right)
    union = a | b
    if not union:
        return 1.0
    return len(a & b) / len(union)


# ----------------------------------------------------------------------------------------------
# Normalisation
# ----------------------------------------------------------------------------------------------


def normalise_word(word):
    """Emotion word trimmed and lower-cased; None when empty (Normalisation: emotion words)."""
    if word is None:
        return None
    text = str(word).strip().lower()
    return text or None


def normalise_yes_no(value):
    """true/yes/y/1 -> yes; false/no/n/0 -> no; na/n/a/not_applicable -> na; other -> None."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        if value == 1:
            return "yes"
        if value == 0:
            return "no"
        return None
    text = str(value).strip().lower()
    if text in YES_WORDS:
        return "yes"
    if text in NO_WORDS:
        return "no"
    if text in NA_WORDS:
        return "na"
    return None


def normalise_intensity(value):
    """mild/moderate/intense -> 2/4/6; numbers rounded half-to-even, clamped 1..7; else None."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip().lower()
        if text in INTENSITY_WORDS:
            return INTENSITY_WORDS[text]
        try:
            value = float(text)
        except ValueError:
            return None
    number = as_number(value)
    if number is None:
        return None
    return clamp(round(number), 1, 7)


def normalise_winner(value):
    """Gold winner or EM pick 'a'/'b' (any case, trimmed) -> 'A'/'B'; anything else None."""
    if not isinstance(value, str):
        return None
    text = value.strip().upper()
    return text if text in ("A", "B") else None


def normalise_response_label(value):
    """original/alternate/human, also llmImproved -> alternate, humanEdited -> human (any case)."""
    if not isinstance(value, str):
        return None
    return RESPONSE_LABELS.get(value.strip().lower())


def normalise_survey(value) -> str:
    """Survey answer trimmed and lower-cased (Normalisation: survey answers)."""
    return str(value).strip().lower()


def normalise_panas_total(value):
    """PANAS total rounded half-to-even and clamped to 10..70; None when not a number."""
    number = as_number(value)
    if number is None:
        return None
    return clamp(round(number), 10, 70)


def normalise_four_branch(value):
    """Four-branch rating clamped to 1..7, not rounded; None when missing."""
    number = as_number(value)
    if number is None:
        return None
    return clamp(float(number), 1.0, 7.0)


# ----------------------------------------------------------------------------------------------
# Reading the files
# ----------------------------------------------------------------------------------------------


def read_json(path: Path) -> dict:
    """Load one JSON file."""
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def conversation_id(document: dict) -> str:
    """conversationId as a string (it may be an int in legacy files)."""
    return str(document.get("conversationId"))


def turn_number(turn: dict):
    """turnNumber as an int, None when unusable."""
    value = turn.get("turnNumber") if isinstance(turn, dict) else None
    if isinstance(value, bool) or value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def read_tags(tags) -> list[tuple[str, object]]:
    """Emotion tags as a list of (word, intensity) in the given order; empty words dropped."""
    result = []
    for tag in as_list(tags):
        if isinstance(tag, dict):
            word = normalise_word(tag.get("emotion"))
            intensity = normalise_intensity(tag.get("intensity"))
        else:
            word = normalise_word(tag)
            intensity = None
        if word is not None:
            result.append((word, intensity))
    return result


def read_panas_items(block) -> dict[str, float]:
    """PANAS items from 'items' or 'responses', names case-insensitive -> canonical; nulls dropped."""
    block = as_dict(block)
    raw = block.get("items")
    if not isinstance(raw, dict):
        raw = block.get("responses")
    items = {}
    for name, value in as_dict(raw).items():
        entry = PANAS.get(str(name).strip().lower())
        number = as_number(value)
        if entry is not None and number is not None:
            items[entry["name"]] = number
    return items


def affect_item_names(affect: str) -> list[str]:
    """The ten canonical PANAS item names of one affect ('positive' or 'negative')."""
    return [entry["name"] for entry in PANAS.values() if entry["affect"] == affect]


def read_gold_panas(block, rule_set: str = "strict") -> dict:
    """Gold PANAS: items and totals PA/NA (given total rounded+clamped, else sum of all ten items;
    parity, D15: else the sum of the items present, if any)."""
    block = as_dict(block)
    items = read_panas_items(block)
    totals = {}
    for affect_key, field, affect in (
        ("PA", "totalPositiveAffect", "positive"),
        ("NA", "totalNegativeAffect", "negative"),
    ):
        given = normalise_panas_total(block.get(field))
        if given is not None:
            totals[affect_key] = given
            continue
        names = affect_item_names(affect)
        present = [items[name] for name in names if name in items]
        if all(name in items for name in names) or (rule_set == "parity" and present):
            totals[affect_key] = normalise_panas_total(sum(present))
        else:
            totals[affect_key] = None
    return {"items": items, "totals": totals}


def read_predicted_totals(block) -> dict:
    """Predicted totals {'PA', 'NA'} from a {items, totals} object, raw numbers (None if missing):
    under 'totals', else beside the items as totalPositiveAffect / totalNegativeAffect (the public
    port's layout; the reader refuses a file that gives one total twice with two values)."""
    block = as_dict(block)
    totals = as_dict(block.get("totals"))
    out = {}
    for key, spellings, beside in (
        ("PA", PREDICTED_PA_KEYS, "totalPositiveAffect"),
        ("NA", PREDICTED_NA_KEYS, "totalNegativeAffect"),
    ):
        nested = as_number(first_present(totals, spellings))
        out[key] = nested if nested is not None else as_number(block.get(beside))
    return out


def read_predicted_panas(post: dict, gold_pre: dict, rule_set: str = "strict") -> dict:
    """Predicted post PANAS: absolute predicted_post_panas when given, else pre + predicted_panas_delta.

    Applied value by value: a total / item is taken from the absolute prediction when present there,
    otherwise from the delta added to the gold pre value (when both are present).
    """
    absolute = post.get("predicted_post_panas")
    delta = post.get("predicted_panas_delta")
    absolute_totals = read_predicted_totals(absolute)
    delta_totals = read_predicted_totals(delta)
    absolute_items = read_panas_items(absolute)
    delta_items = read_panas_items(delta)

    totals = {}
    for affect_key in ("PA", "NA"):
        if absolute_totals[affect_key] is not None:
            totals[affect_key] = normalise_panas_total(absolute_totals[affect_key])
        elif delta_totals[affect_key] is not None and gold_pre["totals"].get(affect_key) is not None:
            totals[affect_key] = normalise_panas_total(gold_pre["totals"][affect_key] + delta_totals[affect_key])
        else:
            totals[affect_key] = None

    items = {}
    for entry in PANAS.values():
        name = entry["name"]
        if name in absolute_items:
            items[name] = absolute_items[name]
        elif name in delta_items and name in gold_pre["items"]:
            items[name] = gold_pre["items"][name] + delta_items[name]
    items = {name: clamp(value, 1, 7) for name, value in items.items()}  # predicted items live on 1..7
    if rule_set == "parity":  # D15: the predicted items present stand in for a missing total
        for affect_key, affect in (("PA", "positive"), ("NA", "negative")):
            present = [items[name] for name in affect_item_names(affect) if name in items]
            if totals[affect_key] is None and present:
                totals[affect_key] = normalise_panas_total(sum(present))
    return {"items": items, "totals": totals}


def read_cw(block) -> dict:
    """Conversation-wide answers with Q1/Q2/Q3 aliases: q1 list, q2 list, q3 list, followup list, four-branch."""
    block = as_dict(block)
    return {
        "q1": answer_list(first_present(block, ["q1_lookingFor", "Q1"])),
        "q2": answer_list(first_present(block, ["q2_emotionClarity", "Q2"])),
        "q3": answer_list(first_present(block, ["q3_modelFit", "Q3"])),
        "followup": answer_list(block.get("q3_followUp_whatFeltOff")),
        "four_branch": block.get("fourBranchScores"),
    }


def read_four_branch(scores) -> dict[str, float]:
    """Four-branch ratings: branch (lower-cased) -> rating clamped 1..7; null ratings skipped."""
    result = {}
    for branch, value in as_dict(scores).items():
        rating = normalise_four_branch(value)
        if rating is not None:
            result[str(branch).strip().lower()] = rating
    return result


def gold_judgement_values(judgement: dict) -> tuple:
    """(gold_om, gold_hp) of one judgement: observed else llmValue; preferred else observed."""
    observed = normalise_yes_no(
        first_present(judgement, ["observedBehavior", "did_occur", "humanValue", "actualValue"])
    )
    preferred = normalise_yes_no(first_present(judgement, ["preferredBehavior", "should_occur", "humanPreference"]))
    llm_value = normalise_yes_no(judgement.get("llmValue"))
    gold_om = observed if observed is not None else llm_value
    gold_hp = preferred if preferred is not None else observed
    return gold_om, gold_hp


def read_comparisons(annotations: dict) -> list[dict]:
    """Pairwise comparisons in list order: {a, b (labels), winner 'A'/'B'/None}."""
    result = []
    for comparison in as_list(annotations.get("pairwiseComparisons")):
        comparison = as_dict(comparison)
        result.append(
            {
                "a": normalise_response_label(first_present(comparison, ["responseA", "response_1"])),
                "b": normalise_response_label(first_present(comparison, ["responseB", "response_2"])),
                "winner": normalise_winner(comparison.get("winner")),
            }
        )
    return result


# ----------------------------------------------------------------------------------------------
# Emotion tracking (per turn)
# ----------------------------------------------------------------------------------------------


def emotion_f1(gold: list, predicted: list) -> float:
    """emotion_f1: both empty 1, else 2|G∩P| / (|G| + |P|) over word sets."""
    gold_set = {word for word, _ in gold}
    predicted_set = {word for word, _ in predicted}
    if not gold_set and not predicted_set:
        return 1.0
    return 2 * len(gold_set & predicted_set) / (len(gold_set) + len(predicted_set))


def first_intensity(tags: list, last: bool = False) -> dict:
    """word -> intensity of its first occurrence, or of its last with ``last`` (parity, D11)."""
    result = {}
    for word, intensity in tags:
        if last or word not in result:
            result[word] = intensity
    return result


def emotion_f1_intensity(gold: list, predicted: list, rule_set: str = "strict") -> float:
    """emotion_f1_intensity: F1 x mean(1 - |ig - ip|/6) over matched words with both intensities;
    1 when both lists are empty (as F1), else 0 when there is no such word (the public scorer's rule)."""
    if not gold and not predicted:
        return 1.0
    gold_first = first_intensity(gold, rule_set == "parity")
    predicted_first = first_intensity(predicted, rule_set == "parity")
    closeness = []
    for word in gold_first:
        if word in predicted_first:
            gold_intensity = gold_first[word]
            predicted_intensity = predicted_first[word]
            if gold_intensity is not None and predicted_intensity is not None:
                closeness.append(1 - abs(gold_intensity - predicted_intensity) / 6)
    if not closeness:
        return 0.0
    return emotion_f1(gold, predicted) * (sum(closeness) / len(closeness))


def word_similarity(word_a: str, word_b: str, rule_set: str = "strict") -> float:
    """sim = 1 - euclidean VA distance / sqrt(2); 0 when either word is outside the PANAS table;
    parity rounds it to 4 decimals (D3, the public scorer's table)."""
    if word_a not in PANAS or word_b not in PANAS:
        return 0.0
    a = PANAS[word_a]
    b = PANAS[word_b]
    distance = math.sqrt((a["valence"] - b["valence"]) ** 2 + (a["arousal"] - b["arousal"]) ** 2)
    similarity = 1 - distance / math.sqrt(2)
    return round(similarity, 4) if rule_set == "parity" else similarity


def intensity_similarity(gold_intensity, predicted_intensity) -> float:
    """1 - |ig - ip|/6, 0 when either intensity is missing (emotion_va_intensity)."""
    if gold_intensity is None or predicted_intensity is None:
        return 0.0
    return 1 - abs(gold_intensity - predicted_intensity) / 6


def best_assignment_total(similarity: list[list[float]]) -> float:
    """Largest total similarity of a one-to-one match of min(n_rows, n_cols) pairs (brute force)."""
    n_rows = len(similarity)
    n_cols = len(similarity[0]) if n_rows else 0
    best = -math.inf
    if n_rows <= n_cols:
        for columns in itertools.permutations(range(n_cols), n_rows):
            total = sum(similarity[row][columns[row]] for row in range(n_rows))
            best = max(best, total)
    else:
        for rows in itertools.permutations(range(n_rows), n_cols):
            total = sum(similarity[rows[col]][col] for col in range(n_cols))
            best = max(best, total)
    return best


def emotion_va(gold: list, predicted: list, with_intensity: bool, rule_set: str = "strict") -> float:
    """emotion_va(_intensity): both empty 1, one empty 0, else optimal total / max(n_g, n_p)."""
    if not gold and not predicted:
        return 1.0
    if not gold or not predicted:
        return 0.0
    matrix = []
    for gold_word, gold_intensity in gold:
        row = []
        for predicted_word, predicted_intensity in predicted:
            similarity = word_similarity(gold_word, predicted_word, rule_set)
            if with_intensity:
                similarity = 0.7 * similarity + 0.3 * intensity_similarity(gold_intensity, predicted_intensity)
            row.append(similarity)
        matrix.append(row)
    return best_assignment_total(matrix) / max(len(gold), len(predicted))


def emotion_metrics(gold_tags: list, em_turn, rule_set: str) -> dict:
    """The four emotion metrics and tracking of a turn, with the strict zero rules (Rule sets)."""
    zero = em_turn is None and rule_set == "strict"
    if em_turn is not None and rule_set == "strict" and em_turn.get("em_emotion_tags_invalid") is True:
        zero = True
    if zero:
        values = {"emotion_f1": 0.0, "emotion_f1_intensity": 0.0, "emotion_va": 0.0, "emotion_va_intensity": 0.0}
    else:
        predicted_tags = read_tags(em_turn.get("em_emotion_tags")) if em_turn is not None else []
        values = {
            "emotion_f1": emotion_f1(gold_tags, predicted_tags),
            "emotion_f1_intensity": emotion_f1_intensity(gold_tags, predicted_tags, rule_set),
            "emotion_va": emotion_va(gold_tags, predicted_tags, False, rule_set),
            "emotion_va_intensity": emotion_va(gold_tags, predicted_tags, True, rule_set),
        }
    values["tracking"] = 0.5 * values["emotion_f1"] + 0.5 * values["emotion_va"]
    return values


# ----------------------------------------------------------------------------------------------
# Evaluation quality (per turn)
# ----------------------------------------------------------------------------------------------


def lookup_answer(answers: dict, question_id):
    """The EM's answer to a question id (tried as given, then as a string)."""
    if question_id in answers:
        return answers[question_id]
    return answers.get(str(question_id))


def confusion_cell(gold: str, answer, rule_set: str) -> str:
    """tp/fp/tn/fn of one counted item: parity reads non-yes/no as 'no'; strict makes it wrong."""
    predicted = normalise_yes_no(answer)
    if predicted not in ("yes", "no"):
        if rule_set == "parity":
            predicted = "no"
        else:
            return "fn" if gold == "yes" else "fp"
    if gold == "yes":
        return "tp" if predicted == "yes" else "fn"
    return "fp" if predicted == "yes" else "tn"


def binary_metrics(judgements: list, em_turn, rule_set: str) -> dict:
    """Accuracies and confusion counts of the four binary tasks at a turn (binary_*_acc, Rule sets).
    Parity (D10): a question id listed twice counts once, with its last judgement."""
    if rule_set == "parity":
        judgements = list({judgement.get("questionId"): judgement for judgement in judgements}.values())
    result = {}
    for task, field, gold_kind in BINARY_TASKS:
        answers = as_dict(em_turn.get(field)) if em_turn is not None else {}
        counts = {"tp": 0, "fp": 0, "tn": 0, "fn": 0}
        for judgement in judgements:
            gold_om, gold_hp = gold_judgement_values(judgement)
            gold = gold_om if gold_kind == "om" else gold_hp
            if gold not in ("yes", "no"):
                continue
            answer = lookup_answer(answers, judgement.get("questionId"))
            counts[confusion_cell(gold, answer, rule_set)] += 1
        counted = sum(counts.values())
        if not judgements:  # parity: the public 1.0 covers the observer wording; participant wording 0.0
            accuracy = (1.0 if not task.endswith("_pw") else 0.0) if rule_set == "parity" else NAN
        elif counted == 0:
            accuracy = 0.0 if rule_set == "parity" else NAN
        else:
            accuracy = (counts["tp"] + counts["tn"]) / counted
        result[ACCURACY_NAME[task]] = accuracy
        for cell, count in counts.items():
            result[f"{task}_{cell}"] = count
    return result


def pairwise_accuracy(comparisons: list, picks: dict, rule_set: str) -> float:
    """pairwise_acc: matches of the EM pick (keyed by position) with the gold winner / comparisons."""
    if not comparisons:
        return 1.0 if rule_set == "parity" else NAN
    matches = 0
    for position, comparison in enumerate(comparisons):
        pick = normalise_winner(picks.get(str(position)))
        if comparison["winner"] is not None and pick == comparison["winner"]:
            matches += 1
    return matches / len(comparisons)


def ranking(labels: list[str], wins: dict) -> list[str]:
    """Labels sorted alphabetically, then stably by descending wins (ties alphabetical)."""
    alphabetical = sorted(labels)
    return sorted(alphabetical, key=lambda label: -wins.get(label, 0))


def kendall_tau(comparisons: list, picks: dict) -> float:
    """kendall_tau between HP and EM win rankings; NaN with < 2 labels or no valid EM pick."""
    labels = set()
    for comparison in comparisons:
        for label in (comparison["a"], comparison["b"]):
            if label is not None:
                labels.add(label)
    hp_wins = {}
    em_wins = {}
    valid_picks = 0
    for position, comparison in enumerate(comparisons):
        if comparison["winner"] is not None:
            winner_label = comparison["a"] if comparison["winner"] == "A" else comparison["b"]
            if winner_label is not None:
                hp_wins[winner_label] = hp_wins.get(winner_label, 0) + 1
        pick = normalise_winner(picks.get(str(position)))
        if pick is not None:
            valid_picks += 1
            picked_label = comparison["a"] if pick == "A" else comparison["b"]
            if picked_label is not None:
                em_wins[picked_label] = em_wins.get(picked_label, 0) + 1
    if len(labels) < 2 or valid_picks == 0:
        return NAN
    hp_order = ranking(list(labels), hp_wins)
    em_order = ranking(list(labels), em_wins)
    concordant = 0
    discordant = 0
    for first, second in itertools.combinations(sorted(labels), 2):
        hp_sign = hp_order.index(first) < hp_order.index(second)
        em_sign = em_order.index(first) < em_order.index(second)
        if hp_sign == em_sign:
            concordant += 1
        else:
            discordant += 1
    return (concordant - discordant) / (concordant + discordant)


# ----------------------------------------------------------------------------------------------
# Draft (reported apart)
# ----------------------------------------------------------------------------------------------


def draft_judge(em_turn) -> float:
    """draft_judge = clip((mean of present judge scores - 1) / 6, 0, 1); NaN with no score."""
    if em_turn is None:
        return NAN
    scores = first_present(em_turn, ["em_draft_judge", "judge_scores", "draft_judge_scores"])
    present = []
    for key in JUDGE_KEYS:
        number = as_number(as_dict(scores).get(key))
        if number is not None:
            present.append(number)
    if not present:
        return NAN
    return clamp((sum(present) / len(present) - 1) / 6, 0.0, 1.0)


def reply_texts(turn: dict) -> dict:
    """The three replies of a gold turn by label: original, alternate (improved), human (edited)."""
    alternates = as_dict(as_dict(turn.get("annotations")).get("alternateResponses"))
    texts = {
        "original": turn.get("llmResponse"),
        "alternate": first_present(alternates, ["llmImproved", "alternate1"]),
        "human": first_present(alternates, ["humanEdited", "alternate2"]),
    }
    return {label: text for label, text in texts.items() if isinstance(text, str)}


def draft_text(em_turn):
    """The EM's drafted reply, None when missing."""
    if em_turn is None:
        return None
    draft = em_turn.get("em_drafted_response")
    return draft if isinstance(draft, str) else None


def response_similarity(turn: dict, em_turn, rule_set: str = "strict") -> float:
    """response_similarity = best token-Jaccard of the draft with the replies present; parity
    (D6): no draft, or an empty one, scores 0."""
    draft = draft_text(em_turn)
    replies = reply_texts(turn)
    if rule_set == "parity" and not draft:
        return 0.0
    if draft is None or not replies:
        return NAN
    return max(token_jaccard(draft, text) for text in replies.values())


def preference_alignment(turn: dict, comparisons: list, em_turn, rule_set: str = "strict") -> float:
    """preference_alignment = Σ over replies of (share of gold wins) x token-Jaccard(draft, reply).
    Parity: no draft 0 (D6); no gold winner: the response similarity (D7a); winners without text
    left out and the shares renormalised, 0 when none is left (D7b)."""
    draft = draft_text(em_turn)
    if rule_set == "parity" and not draft:
        return 0.0
    if draft is None:
        return NAN
    wins = {}
    for comparison in comparisons:
        if comparison["winner"] is None:
            continue
        label = comparison["a"] if comparison["winner"] == "A" else comparison["b"]
        if label is not None:
            wins[label] = wins.get(label, 0) + 1
    total_wins = sum(wins.values())
    if total_wins == 0:
        return response_similarity(turn, em_turn, rule_set) if rule_set == "parity" else NAN
    replies = reply_texts(turn)
    if rule_set == "parity":
        with_text = {label: count for label, count in wins.items() if replies.get(label)}
        weight = sum(count / total_wins for count in with_text.values())
        if weight == 0:
            return 0.0
        return (
            sum((count / total_wins) * token_jaccard(draft, replies[label]) for label, count in with_text.items())
            / weight
        )
    total = 0.0
    for label, count in wins.items():
        similarity = token_jaccard(draft, replies[label]) if label in replies else 0.0
        total += (count / total_wins) * similarity
    return total


# ----------------------------------------------------------------------------------------------
# One turn
# ----------------------------------------------------------------------------------------------


def score_turn(conversation: str, turn: dict, em_turn, rule_set: str) -> dict:
    """Every turn-level metric and confusion count of one scored turn (em_turn None = missing)."""
    annotations = as_dict(turn.get("annotations"))
    gold_tags = read_tags(turn.get("moodShiftTags"))
    judgements = [item for item in as_list(annotations.get("binaryJudgements")) if isinstance(item, dict)]
    comparisons = read_comparisons(annotations)
    picks = as_dict(em_turn.get("em_pairwise_selections")) if em_turn is not None else {}

    row = {"conversation_id": conversation, "turn_number": turn_number(turn)}
    row.update(emotion_metrics(gold_tags, em_turn, rule_set))
    row.update(binary_metrics(judgements, em_turn, rule_set))
    row["pairwise_acc"] = pairwise_accuracy(comparisons, picks, rule_set)
    row["kendall_tau"] = kendall_tau(comparisons, picks)
    row["draft_judge"] = draft_judge(em_turn)
    row["response_similarity"] = response_similarity(turn, em_turn, rule_set)
    row["preference_alignment"] = preference_alignment(turn, comparisons, em_turn, rule_set)
    return row


# ----------------------------------------------------------------------------------------------
# Holistic comprehension (per conversation)
# ----------------------------------------------------------------------------------------------


def farthest_value(gold: float, low: float, high: float) -> float:
    """The value on [low, high] farthest from gold (strict reading of a missing prediction)."""
    return low if gold - low >= high - gold else high


def adjusted_score(pre, post, predicted, max_error: float) -> float:
    """Baseline-adjusted score: clip((raw - naive) / (1 - naive), -1, 1); NaN when post = pre."""
    if pre is None or post is None or predicted is None or post == pre:
        return NAN
    naive = max(0.0, 1 - abs(post - pre) / max_error)
    raw = max(0.0, 1 - abs(post - predicted) / max_error)
    if naive == 1:
        return NAN
    return clamp((raw - naive) / (1 - naive), -1.0, 1.0)


def panas_metrics(gold_pre: dict, gold_post: dict, predicted: dict, rule_set: str) -> dict:
    """panas_normalized, panas_adjusted, panas_part, panas_items_normalized, panas_items_adjusted."""
    errors = []
    adjusted = []
    for affect in ("PA", "NA"):
        gold = gold_post["totals"].get(affect)
        guess = predicted["totals"].get(affect)
        pre = gold_pre["totals"].get(affect)
        if rule_set == "parity":
            if gold is None and guess is None:
                continue  # D14: an affect missing on both sides is left out of the MAE
            gold_for_error = 40 if gold is None else gold
            guess_for_error = 40 if guess is None else guess
            errors.append(abs(gold_for_error - guess_for_error))
            adjusted.append(adjusted_score(pre, gold, guess, 60))
        else:
            if gold is None:
                continue
            if guess is None:
                guess = farthest_value(gold, 10, 70)
            errors.append(abs(gold - guess))
            adjusted.append(adjusted_score(pre, gold, guess, 60))
    if errors:
        panas_normalized = max(0.0, 1 - (sum(errors) / len(errors)) / 60)
    else:
        panas_normalized = 1.0 if rule_set == "parity" else NAN  # parity: MAE 0 over no affect
    panas_adjusted = nan_mean(adjusted)
    if is_nan(panas_adjusted):
        panas_part = 0.5 if rule_set == "parity" else NAN
    else:
        panas_part = (panas_adjusted + 1) / 2

    item_errors = []
    item_adjusted = []
    for entry in PANAS.values():
        name = entry["name"]
        if name in gold_post["items"] and name in predicted["items"]:
            item_errors.append(abs(gold_post["items"][name] - predicted["items"][name]))
            item_adjusted.append(
                adjusted_score(gold_pre["items"].get(name), gold_post["items"][name], predicted["items"][name], 6)
            )
    panas_items_normalized = max(0.0, 1 - (sum(item_errors) / len(item_errors)) / 6) if item_errors else NAN
    return {
        "panas_normalized": panas_normalized,
        "panas_adjusted": panas_adjusted,
        "panas_part": panas_part,
        "panas_items_normalized": panas_items_normalized,
        "panas_items_adjusted": nan_mean(item_adjusted),
    }


def survey_set(answers: list) -> set:
    """A multi-select answer as a set of trimmed lower-cased strings (empties dropped)."""
    return {normalise_survey(item) for item in answers if normalise_survey(item)}


def set_f1(gold: set, predicted: set) -> float:
    """Set F1: both empty 1, one empty 0, else 2|G∩P| / (|G| + |P|) (cw_q1_f1)."""
    if not gold and not predicted:
        return 1.0
    if not gold or not predicted:
        return 0.0
    return 2 * len(gold & predicted) / (len(gold) + len(predicted))


def first_answer(answers: list) -> str:
    """The first answer trimmed and lower-cased, '' when missing (cw_q2_exact, cw_q3_exact)."""
    return normalise_survey(answers[0]) if answers else ""


def fit_position(answer: str):
    """Position of a q3 answer among the four fit options, None when unknown (cw_q3_distance)."""
    return FIT_OPTIONS.index(answer) if answer in FIT_OPTIONS else None


def q3_distance(gold: str, predicted: str) -> float:
    """|position difference|; both unknown 0, one unknown 3 (cw_q3_distance)."""
    gold_position = fit_position(gold)
    predicted_position = fit_position(predicted)
    if gold_position is None and predicted_position is None:
        return 0.0
    if gold_position is None or predicted_position is None:
        return 3.0
    return float(abs(gold_position - predicted_position))


def fuzzy_item_score(item: str, others: list[str]) -> float:
    """1 for an exact match in others, else the best token-Jaccard if >= 0.3, else 0 (cw_followup_f1)."""
    if item in others:
        return 1.0
    best = max((token_jaccard(item, other) for other in others), default=0.0)
    return best if best >= 0.3 else 0.0


def fuzzy_f1(gold_answers: list, predicted_answers: list, as_lists: bool = False) -> float:
    """Follow-up fuzzy F1 on the trimmed lower-cased item sets; both empty 1, one empty 0.
    ``as_lists`` (parity, D20): the lists as given, duplicates and '' counted."""
    if as_lists:
        gold = [normalise_survey(item) for item in gold_answers]
        predicted = [normalise_survey(item) for item in predicted_answers]
    else:
        gold = sorted(survey_set(gold_answers))
        predicted = sorted(survey_set(predicted_answers))
    if not gold and not predicted:
        return 1.0
    if not gold or not predicted:
        return 0.0
    precision = sum(fuzzy_item_score(item, gold) for item in predicted) / len(predicted)
    recall = sum(fuzzy_item_score(item, predicted) for item in gold) / len(gold)
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def has_any_answer(answers: dict) -> bool:
    """True when a predicted q1, q2, q3 or follow-up answer is present (strict 'no predicted answers')."""
    return any(answers[key] for key in ("q1", "q2", "q3", "followup"))


def conversation_wide_metrics(gold_block, predicted_block, rule_set: str) -> dict:
    """cw_q1_f1, cw_q2_exact, cw_q3_exact, cw_q3_distance, cw_followup_f1 and conversation_wide.
    No gold survey: NaN, or (parity, D19) the predictions scored against empty answers."""
    names = ["cw_q1_f1", "cw_q2_exact", "cw_q3_exact", "cw_q3_distance", "cw_followup_f1", "conversation_wide"]
    if not isinstance(gold_block, dict):
        if rule_set != "parity":
            return {name: NAN for name in names}
        gold_block = {}
    gold = read_cw(gold_block)
    predicted = read_cw(predicted_block)
    if rule_set == "strict" and not has_any_answer(predicted):
        return {
            "cw_q1_f1": 0.0,
            "cw_q2_exact": 0.0,
            "cw_q3_exact": 0.0,
            "cw_q3_distance": 3.0,
            "cw_followup_f1": 0.0,
            "conversation_wide": 0.0,
        }
    if rule_set == "parity":  # D20: emptiness of the lists as given; '' is a member
        if not gold["q1"] or not predicted["q1"]:
            q1 = 1.0 if not gold["q1"] and not predicted["q1"] else 0.0
        else:
            q1 = set_f1({normalise_survey(x) for x in gold["q1"]}, {normalise_survey(x) for x in predicted["q1"]})
    else:
        q1 = set_f1(survey_set(gold["q1"]), survey_set(predicted["q1"]))
    q2 = 1.0 if first_answer(gold["q2"]) == first_answer(predicted["q2"]) else 0.0
    q3 = 1.0 if first_answer(gold["q3"]) == first_answer(predicted["q3"]) else 0.0
    distance = q3_distance(first_answer(gold["q3"]), first_answer(predicted["q3"]))
    followup = fuzzy_f1(gold["followup"], predicted["followup"], as_lists=rule_set == "parity")
    return {
        "cw_q1_f1": q1,
        "cw_q2_exact": q2,
        "cw_q3_exact": q3,
        "cw_q3_distance": distance,
        "cw_followup_f1": followup,
        "conversation_wide": (q1 + q2 + q3 + followup) / 4,
    }


#: Turn metrics that are optional by nature (docs/metrics.md, Aggregation): NaN, never 0, when
#: a conversation has no scored turn.
OPTIONAL_TURN_METRICS = ("kendall_tau", "draft_judge", "response_similarity", "preference_alignment")


def predicted_four_branch(post: dict, em_turns: list, rule_set: str = "strict") -> dict:
    """Four-branch prediction: predicted_conversation_wide.fourBranchScores if it holds a rating, else (strict only,
    D18) the last EM turn that rates."""
    predicted_cw = as_dict(post.get("predicted_conversation_wide"))
    scores = (
        read_four_branch(predicted_cw.get("fourBranchScores"))
        if isinstance(predicted_cw.get("fourBranchScores"), dict)
        else {}
    )
    if scores or rule_set == "parity":
        return scores
    rated = [
        turn
        for turn in em_turns
        if isinstance(turn, dict)
        and turn_number(turn) is not None
        and isinstance(turn.get("em_four_branch_scores"), dict)
        and read_four_branch(turn.get("em_four_branch_scores"))
    ]
    if not rated:
        return {}
    return read_four_branch(max(rated, key=turn_number).get("em_four_branch_scores"))


def four_branch_metrics(gold_block, predicted: dict, rule_set: str) -> dict:
    """four_branch_mae over branches with a gold rating and four_branch = 1 - MAE/6 (Rule sets)."""
    gold = read_four_branch(as_dict(gold_block).get("fourBranchScores"))
    if not gold:
        if rule_set == "parity":
            return {"four_branch_mae": 0.0, "four_branch": 1.0}
        return {"four_branch_mae": NAN, "four_branch": NAN}
    errors = []
    for branch, rating in gold.items():
        guess = predicted.get(branch)
        if guess is None:
            guess = 4.0 if rule_set == "parity" else farthest_value(rating, 1.0, 7.0)
        errors.append(abs(rating - guess))
    mae = sum(errors) / len(errors)
    return {"four_branch_mae": mae, "four_branch": 1 - mae / 6}


# ----------------------------------------------------------------------------------------------
# One conversation
# ----------------------------------------------------------------------------------------------


def em_turns_by_number(em_document: dict) -> dict:
    """EM turns keyed by turnNumber (the first one wins on a duplicate)."""
    result = {}
    for turn in as_list(em_document.get("turns")):
        number = turn_number(turn)
        if number is not None and number not in result:
            result[number] = turn
    return result


def score_conversation(gold_document: dict, em_document: dict, rule_set: str) -> tuple[list[dict], dict]:
    """Turn rows and the conversation row of one conversation for one EM output file."""
    conversation = conversation_id(gold_document)
    em_turns = em_turns_by_number(em_document)

    turn_rows = []
    for turn in as_list(gold_document.get("turns")):
        number = turn_number(turn)
        em_turn = em_turns.get(number)
        if em_turn is None and rule_set == "parity":
            continue  # Rule sets: parity skips a gold turn missing from the EM output.
        turn_rows.append(score_turn(conversation, turn, em_turn, rule_set))

    row = {"conversation_id": conversation}
    for metric in TURN_METRICS:
        if not turn_rows:  # parity: no scored turn gives 0 for the core turn metrics
            row[metric] = 0.0 if rule_set == "parity" and metric not in OPTIONAL_TURN_METRICS else NAN
        else:
            row[metric] = nan_mean(turn_row[metric] for turn_row in turn_rows)
    row["n_turns_scored"] = len(turn_rows)
    row["perspective_gap"] = row["binary_hp_acc"] - row["binary_hp_acc_pw"]

    post = as_dict(em_document.get("post_conversation"))
    gold_pre = read_gold_panas(gold_document.get("prePanas"), rule_set)
    gold_post = read_gold_panas(gold_document.get("postPanas"), rule_set)
    predicted_panas = read_predicted_panas(post, gold_pre, rule_set)
    row.update(panas_metrics(gold_pre, gold_post, predicted_panas, rule_set))

    gold_cw = gold_document.get("conversationWideQuestions")
    row.update(conversation_wide_metrics(gold_cw, post.get("predicted_conversation_wide"), rule_set))
    row.update(
        four_branch_metrics(gold_cw, predicted_four_branch(post, as_list(em_document.get("turns")), rule_set), rule_set)
    )

    binary_mean = nan_mean([row["binary_om_acc"], row["binary_hp_acc"]])
    row["evaluation"], _ = weighted_renormalised([(0.5, binary_mean), (0.5, row["pairwise_acc"])])
    row["holistic"], _ = weighted_renormalised(
        [(0.4, row["panas_part"]), (0.3, row["conversation_wide"]), (0.3, row["four_branch"])]
    )
    composite, parts = weighted_renormalised(
        [(0.24, row["tracking"]), (0.49, row["evaluation"]), (0.27, row["holistic"])]
    )
    row["composite"] = NAN if is_nan(composite) else round(round(100 * composite, 9), 2)
    row["composite_parts"] = parts

    turn_level_average = nan_mean([row["tracking"], binary_mean, row["pairwise_acc"]])
    cw_average = nan_mean([row["panas_part"], row["conversation_wide"], row["four_branch"]])
    equal = nan_mean([turn_level_average, cw_average])
    row["composite_equal"] = NAN if is_nan(equal) else 100 * equal
    if rule_set == "parity" and not is_nan(equal):  # D5: rounded as the composite
        row["composite_equal"] = round(round(100 * equal, 9), 2)
    return turn_rows, row


# ----------------------------------------------------------------------------------------------
# Public interface
# ----------------------------------------------------------------------------------------------


def reference_scores(
    conversation_files: list[Path], em_files: list[Path], rule_set: str
) -> tuple[list[dict], list[dict]]:
    """Score one EM (one model, one mode) whose output files are em_files, against the cohort conversation_files.
    Returns (turn_rows, conversation_rows)."""
    if rule_set not in RULE_SETS:
        raise ValueError(f"rule_set must be one of {RULE_SETS}, got {rule_set!r}")
    em_by_id = {}
    for path in em_files:
        document = read_json(Path(path))
        em_by_id.setdefault(conversation_id(document), document)

    turn_rows = []
    conversation_rows = []
    for path in conversation_files:
        gold_document = read_json(Path(path))
        em_document = em_by_id.get(conversation_id(gold_document))
        if em_document is None:
            continue  # A conversation is scored only when the model has an output file for it.
        rows, conversation_row = score_conversation(gold_document, em_document, rule_set)
        turn_rows.extend(rows)
        conversation_rows.append(conversation_row)
    return turn_rows, conversation_rows


def reference_model_means(conversation_rows: list[dict]) -> dict[str, float]:
    """Mean over conversations of each metric, skipping NaN (NaN if none) (Aggregation)."""
    names = []
    for row in conversation_rows:
        for key in row:
            if key != "conversation_id" and key not in names:
                names.append(key)
    return {name: nan_mean(row.get(name, NAN) for row in conversation_rows) for name in names}


def pooled_from_counts(tp: int, fp: int, tn: int, fn: int) -> tuple[float, float, float, float]:
    """Precision, recall, F1 and MCC from confusion counts; 0 when undefined (pooled metrics)."""
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    denominator = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    mcc = (tp * tn - fp * fn) / math.sqrt(denominator) if denominator else 0.0
    return precision, recall, f1, mcc


def reference_pooled(turn_rows: list[dict]) -> dict[str, float]:
    """Pooled precision / recall / F1 / MCC per binary task from confusion counts summed over turns."""
    result = {}
    for task, _, _ in BINARY_TASKS:
        sums = {cell: sum(row[f"{task}_{cell}"] for row in turn_rows) for cell in ("tp", "fp", "tn", "fn")}
        precision, recall, f1, mcc = pooled_from_counts(sums["tp"], sums["fp"], sums["tn"], sums["fn"])
        result[f"{task}_precision"] = precision
        result[f"{task}_recall"] = recall
        result[f"{task}_f1"] = f1
        result[f"{task}_mcc"] = mcc
    return result
