"""Binary behaviour judgements per turn: accuracies and confusion counts of the four variants.

Variants: ``om`` (did the OM show the behaviour? gold = observed, else llmValue) and ``hp``
(what would the HP answer? gold = preferred, else observed), each asked with the observer
wording and with the participant wording (``_pw``). Only gold 'yes'/'no' items count.

Rule sets:
- parity: a missing, 'na', null or invalid prediction is read as 'no'; a turn with no
  judgement objects scores 1.0; a turn whose judgements all have gold 'na'/null scores 0.0.
- strict: a missing, 'na', null or invalid prediction is wrong (a false negative when the gold
  is 'yes', a false positive when it is 'no'); both kinds of empty turn are excluded (NaN).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from .keys import codes, lookup, mapped, take, vocabulary

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


def binary_scores(
    gold: pd.DataFrame, gold_tid: np.ndarray, answers: pd.DataFrame, ans_tid: np.ndarray,
    n: int, rule_set: str, counts: Counter,
) -> dict[str, np.ndarray]:
    """Per-turn accuracies and confusion counts (tp, fp, tn, fn) for every variant.

    ``gold``: question_id, gold_om, gold_hp (rows with ``gold_tid`` -1 are not scored).
    ``answers``: target, wording, question_id, value, status. ``counts`` receives how often
    each parity rule fired.
    """
    g_keep, a_keep = gold_tid >= 0, ans_tid >= 0
    questions = vocabulary(gold["question_id"], answers["question_id"])
    nq = max(len(questions), 1)
    g_tid = gold_tid[g_keep]
    g_key = g_tid * nq + codes(gold["question_id"], questions)[g_keep]
    a_key = ans_tid * nq + codes(answers["question_id"], questions)
    a_value, a_status = mapped(answers["value"], _VALUE), mapped(answers["status"], _STATUS)
    a_variant = mapped(answers["target"], _TARGET, -9) * 2 + mapped(answers["wording"], _WORDING, -9)
    n_objects = np.bincount(g_tid, minlength=n)[:n]
    out: dict[str, np.ndarray] = {}
    for prefix, (target, wording) in VARIANTS.items():
        k = _TARGET[target] * 2 + _WORDING[wording]
        g = mapped(gold["gold_om" if target == "om" else "gold_hp"], _VALUE)[g_keep]
        mine = a_keep & (a_variant == k)
        row = lookup(g_key, a_key[mine])
        v, status = take(a_value[mine], row, 0), take(a_status[mine], row, 0)
        counted = (g == YES) | (g == NO)
        pred_yes, pred_no = v == YES, v == NO
        unanswered = counted & ~pred_yes & ~pred_no
        counts[f"binary_{prefix}_prediction_missing"] += int((unanswered & (status == 0)).sum())
        counts[f"binary_{prefix}_prediction_na"] += int((unanswered & (v == NA)).sum())
        counts[f"binary_{prefix}_prediction_invalid"] += int((unanswered & (status == 3)).sum())
        counts[f"binary_{prefix}_prediction_unrecognised"] += int((unanswered & ((status == 2) | (status == 4))).sum())
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
            acc = np.where(no_objects, 1.0, acc)
        else:
            acc = np.where(no_objects | all_na, np.nan, acc)
        counts[f"binary_{prefix}_turn_without_judgements"] += int(no_objects.sum())
        counts[f"binary_{prefix}_turn_all_gold_na"] += int(all_na.sum())
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
