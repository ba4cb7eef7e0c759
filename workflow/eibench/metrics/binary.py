"""Binary behaviour judgements per turn: accuracies and confusion counts of the four variants.

Variants: ``om`` (did the OM show the behaviour? gold = observed, else llmValue) and ``hp``
(what would the HP answer? gold = preferred, else observed), each asked with the observer
wording and with the participant wording (``_pw``). Only gold 'yes'/'no' items count.

Rule sets:
- parity: a missing, 'na', null or invalid prediction is read as 'no'; a turn with no
  judgement objects scores 1.0 with the observer wording and 0.0 with the participant wording
  (the public scorer's rule); a turn whose judgements all have gold 'na'/null scores 0.0.
- strict: a missing, 'na', null or invalid prediction is wrong (a false negative when the gold
  is 'yes', a false positive when it is 'no'); both kinds of empty turn are excluded (NaN).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .keys import first_value_table, lookup, mapped, take

VARIANTS = {
    # metric prefix: (target, wording)
    "om": ("om", "observer"),
    "hp": ("hp", "observer"),
    "om_pw": ("om", "participant"),
    "hp_pw": ("hp", "participant"),
}
ACCURACY_NAME = {"om": "binary_om_acc", "hp": "binary_hp_acc", "om_pw": "binary_om_acc_pw", "hp_pw": "binary_hp_acc_pw"}
YES, NO, NA = 1, 2, 3
_VALUE = {"yes": YES, "no": NO, "na": NA}
_STATUS = {"ok": 1, "null": 2, "invalid": 3, "unrecognised": 4}  # 0: no answer at all
_TARGET = {"om": 0, "hp": 1}
_WORDING = {"observer": 0, "participant": 1}


@dataclass
class BinaryRows:
    """The gold judgements of the scored turns with the EM's answer to each, per variant."""

    tid: np.ndarray  # turn id of each gold judgement
    gold: dict[str, np.ndarray]  # variant -> gold value code
    value: dict[str, np.ndarray]  # variant -> EM value code (0: none)
    status: dict[str, np.ndarray]  # variant -> EM status code (0: no answer)


@dataclass(frozen=True)
class EMAnswers:
    """A model's answers per variant, ready to be joined to gold judgements (``binary_rows``);
    they do not depend on the rule set, so a model's rule sets share them."""

    n_questions: int  # question codes are below this
    #: variant -> (dense [turn, question] table of packed answers, or None when too large;
    #: turn * n_questions + question of each answer; its packed value * 8 + status)
    lookups: dict[str, tuple[np.ndarray | None, np.ndarray, np.ndarray]]


def em_answers(
    answers: pd.DataFrame, ans_tid: np.ndarray, ans_question: np.ndarray, n: int, n_questions: int
) -> EMAnswers:
    """``answers`` (target, wording, value and status, with turn ids ``ans_tid`` below ``n`` and
    question codes ``ans_question`` below ``n_questions``, -1: a turn or question the gold does
    not have) by variant; at a turn asked the same question twice, the first answer counts."""
    a_keep = (ans_tid >= 0) & (ans_question >= 0)
    packed_answer = mapped(answers["value"], _VALUE) * 8 + mapped(answers["status"], _STATUS)
    a_variant = mapped(answers["target"], _TARGET, -9) * 2 + mapped(answers["wording"], _WORDING, -9)
    lookups = {}
    for prefix, (target, wording) in VARIANTS.items():
        mine = a_keep & (a_variant == _TARGET[target] * 2 + _WORDING[wording])
        tid, question, packed = ans_tid[mine], ans_question[mine], packed_answer[mine]
        table = first_value_table(tid, question, packed, n, n_questions)
        lookups[prefix] = (table, tid * n_questions + question, packed)
    return EMAnswers(n_questions, lookups)


def binary_rows(
    gold_tid: np.ndarray, gold_question: np.ndarray, gold_om: np.ndarray, gold_hp: np.ndarray, em: EMAnswers
) -> BinaryRows:
    """Join every scored gold judgement with the EM's answer (``em_answers``), for the four
    variants.

    Gold judgements come as arrays (turn id, question code below ``em.n_questions``, gold_om and
    gold_hp value codes); rows with turn id -1 are not scored.
    """
    g_keep = gold_tid >= 0
    g_tid, g_q = gold_tid[g_keep], gold_question[g_keep]
    rows = BinaryRows(g_tid, {}, {}, {})
    for prefix, (target, _) in VARIANTS.items():
        table, keys, packed_answer = em.lookups[prefix]
        # Status codes are >= 1 for every answer row, so 0 in the table means "no answer".
        if table is not None:
            packed = table[g_tid, g_q]
        else:
            packed = take(packed_answer, lookup(g_tid * em.n_questions + g_q, keys), 0)
        rows.gold[prefix] = (gold_om if target == "om" else gold_hp)[g_keep]
        rows.value[prefix], rows.status[prefix] = packed // 8, packed % 8
    return rows


def binary_scores(rows: BinaryRows, n: int, rule_set: str, turns: np.ndarray, counts: Counter) -> dict[str, np.ndarray]:
    """Per-turn accuracies and confusion counts (tp, fp, tn, fn) for every variant.

    ``turns`` marks the turn ids this rule set scores; the rule counts cover those only.
    """
    in_set = turns[rows.tid]
    g_tid = rows.tid
    n_objects = np.bincount(g_tid, minlength=n)[:n]
    out: dict[str, np.ndarray] = {}
    for prefix in VARIANTS:
        g, v, status = rows.gold[prefix], rows.value[prefix], rows.status[prefix]
        counted = (g == YES) | (g == NO)
        pred_yes, pred_no = v == YES, v == NO
        unanswered = counted & ~pred_yes & ~pred_no
        counted_here = unanswered & in_set
        counts[f"binary_{prefix}_prediction_missing"] += int((counted_here & (status == 0)).sum())
        counts[f"binary_{prefix}_prediction_na"] += int((counted_here & (v == NA)).sum())
        counts[f"binary_{prefix}_prediction_invalid"] += int((counted_here & (status == 3)).sum())
        counts[f"binary_{prefix}_prediction_unrecognised"] += int(
            (counted_here & ((status == 2) | (status == 4))).sum()
        )
        if rule_set == "parity":
            eff_yes = pred_yes  # everything but 'yes' is read as 'no'
        else:
            eff_yes = np.where(unanswered, g == NO, pred_yes)  # unanswered: the wrong side
        gy, gn = counted & (g == YES), counted & (g == NO)
        tp = np.bincount(g_tid, weights=gy & eff_yes, minlength=n)[:n]
        fn = np.bincount(g_tid, weights=gy & ~eff_yes, minlength=n)[:n]
        fp = np.bincount(g_tid, weights=gn & eff_yes, minlength=n)[:n]
        tn = np.bincount(g_tid, weights=gn & ~eff_yes, minlength=n)[:n]
        n_counted = tp + fn + fp + tn
        acc = np.divide(tp + tn, n_counted, out=np.zeros(n), where=n_counted > 0)
        no_objects = n_objects == 0
        all_na = ~no_objects & (n_counted == 0)
        if rule_set == "parity":
            # The public 1.0 for a turn without judgements covers the observer wording only; the
            # participant-wording accuracies come from empty confusion counts: 0.0.
            acc = np.where(no_objects, 1.0 if VARIANTS[prefix][1] == "observer" else 0.0, acc)
        else:
            acc = np.where(no_objects | all_na, np.nan, acc)
        counts[f"binary_{prefix}_turn_without_judgements"] += int((no_objects & turns).sum())
        counts[f"binary_{prefix}_turn_all_gold_na"] += int((all_na & turns).sum())
        out[ACCURACY_NAME[prefix]] = acc
        for name, arr in (("tp", tp), ("fp", fp), ("tn", tn), ("fn", fn)):
            out[f"{prefix}_{name}"] = arr.astype(np.int64)
    return out


def pooled(tp: float, fp: float, tn: float, fn: float) -> dict[str, float]:
    """Precision, recall, F1 and MCC of pooled confusion counts; 0 when undefined."""
    precision = tp / (tp + fp) if tp + fp > 0 else 0.0
    recall = tp / (tp + fn) if tp + fn > 0 else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    denom = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    mcc = (tp * tn - fp * fn) / np.sqrt(denom) if denom > 0 else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "mcc": float(mcc)}
