"""Scoring EmoBench-M-format per-item predictions (Hu et al., arXiv 2502.04424): upstream label
extraction, accuracy and weighted F1 with invalid-output accounting, joint emotion_intent scoring
(CEIA), offline generation metrics for Laughter Reasoning (LR: BLEU-4, ROUGE-L), an LLM-judge
hook, and the label set of every scenario (``emobench_m_labels.yaml`` beside this module, each
with its source). Pure functions; no network, no model (the live runs and the live judge are in
``eibench.public.emobench_m_live``). See docs/emobench_m_scoring.md.

Item shape (one JSON file, a list)::

    [{"id": ..., "video": ..., "conversations": [
        {"from": "human", "value": "<video>\\n...prompt"},
        {"from": "gpt", "value": gold}]}]

with, for live multimodal runs, the optional fields "frames" (image files sampled from the video,
in time order) and "audio" (the clip's audio track as a WAV or MP3 file), paths relative to a
media root.

Predictions are either a JSON object mapping id -> model output text, or a file in the same item
shape whose "gpt" turn holds the model's answer instead of the gold (:func:`read_predictions`).

Upstream scoring facts (the mirror's PROVENANCE.md): labels lower-cased and stripped; the first
label word found in the output by a word-boundary regex is the prediction; outputs with no label
are logged invalid and dropped from the denominator; accuracy and weighted F1 (sklearn,
zero_division=0); CEIA scored jointly as emotion_intent; LR scored with BLEU-4, ROUGE-L,
BERTScore and an LLM judge (logic, multimodal association). BERTScore is not implemented here (it
needs torch and a model download).
"""

from __future__ import annotations

import ast
import functools
import json
import math
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Mapping, Protocol, Sequence

VIDEO_TOKEN = "<video>"
INVALID = "<invalid>"
"""The prediction given to an invalid output in the strict variant (never a label)."""
JUDGE_DIMENSIONS = ("logic", "multimodal")
"""The two judge dimensions of LR upstream: logic and multimodal association."""


class ItemFormatError(ValueError):
    """A file that is not in the EmoBench-M item shape; the message names file, item and field."""


@dataclass(frozen=True)
class Item:
    """One EmoBench-M item: id, video path, the prompt (the "human" turn, without the leading
    ``<video>`` token), the gold (the "gpt" turn's value, as written) and, for live runs, the
    video's frames (image files, in time order) and its audio track (a file), if given."""

    id: str
    video: str | None
    prompt: str
    gold: Any
    frames: tuple[str, ...] = ()
    audio: str | None = None


# ------------------------------------------------------------------------------ reading


def _fail(path: Path | str, index: int | None, field_: str, problem: str) -> ItemFormatError:
    where = f"{path}" if index is None else f"{path}: item {index}"
    return ItemFormatError(f"{where}: field {field_!r}: {problem}")


def _load_json(path: Path | str) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as e:
        raise ItemFormatError(f"{path}: not valid JSON ({e})") from None


def _parse_items(data: Any, path: Path | str) -> list[Item]:
    if not isinstance(data, list):
        raise ItemFormatError(f"{path}: expected a JSON list of items, got {type(data).__name__}")
    items: list[Item] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(data):
        if not isinstance(raw, dict):
            raise _fail(path, i, "<item>", f"expected an object, got {type(raw).__name__}")
        if "id" not in raw or raw["id"] is None or isinstance(raw["id"], (dict, list, bool)):
            raise _fail(path, i, "id", "missing or not a string/number")
        item_id = str(raw["id"])
        if item_id in seen:
            raise _fail(path, i, "id", f"duplicate id {item_id!r} (first at item {seen[item_id]})")
        seen[item_id] = i
        turns = raw.get("conversations")
        if not isinstance(turns, list):
            raise _fail(path, i, "conversations", "missing or not a list")
        by_role: dict[str, Any] = {}
        for j, turn in enumerate(turns):
            if not isinstance(turn, dict) or "from" not in turn or "value" not in turn:
                raise _fail(path, i, f"conversations[{j}]", "expected an object with 'from' and 'value'")
            if turn["from"] in by_role:
                raise _fail(path, i, f"conversations[{j}].from", f"a second {turn['from']!r} turn")
            by_role[turn["from"]] = turn["value"]
        for role in ("human", "gpt"):
            if role not in by_role:
                raise _fail(path, i, "conversations", f"no turn with from={role!r}")
        prompt = by_role["human"]
        if not isinstance(prompt, str):
            raise _fail(path, i, "conversations.human.value", "not a string")
        prompt = prompt.strip()
        if prompt.startswith(VIDEO_TOKEN):
            prompt = prompt[len(VIDEO_TOKEN) :].lstrip()
        video = raw.get("video")
        frames = raw.get("frames", [])
        if not isinstance(frames, list) or not all(isinstance(f, str) and f for f in frames):
            raise _fail(path, i, "frames", "not a list of file paths")
        audio = raw.get("audio")
        if audio is not None and not (isinstance(audio, str) and audio):
            raise _fail(path, i, "audio", "not a file path")
        items.append(Item(item_id, None if video is None else str(video), prompt, by_role["gpt"], tuple(frames), audio))
    return items


def read_items(path: Path | str) -> list[Item]:
    """Items of a JSON file in the EmoBench-M shape (gold from the "gpt" turn, prompt from the
    "human" turn). :class:`ItemFormatError` names the file, the item index and the field."""
    return _parse_items(_load_json(path), path)


def read_predictions(path: Path | str) -> dict[str, str | None]:
    """Model outputs by item id, from either
    - a JSON object ``{id: output text}`` (``null`` allowed: an empty answer, counted invalid), or
    - a JSON list in the item shape, the model's answer in the "gpt" turn (the prompt is ignored).
    """
    data = _load_json(path)
    if isinstance(data, dict):
        out: dict[str, str | None] = {}
        for key, value in data.items():
            if value is not None and not isinstance(value, str):
                raise ItemFormatError(f"{path}: field {key!r}: the output is not a string or null")
            out[str(key)] = value
        return out
    items = _parse_items(data, path)
    for i, item in enumerate(items):
        if item.gold is not None and not isinstance(item.gold, str):
            raise _fail(path, i, "conversations.gpt.value", "the model output is not a string or null")
    return {item.id: item.gold for item in items}


def align(items: Sequence[Item], predictions: Mapping[str, str | None], missing: str = "error") -> list[str | None]:
    """The outputs in the order of ``items``. An item without a prediction raises KeyError
    (``missing="error"``) or is counted as an invalid output (``missing="invalid"``)."""
    if missing not in ("error", "invalid"):
        raise ValueError(f"missing must be 'error' or 'invalid', not {missing!r}")
    absent = [it.id for it in items if it.id not in predictions]
    if absent and missing == "error":
        raise KeyError(f"{len(absent)} item(s) have no prediction: {absent[:10]}")
    return [predictions.get(it.id) for it in items]


# ------------------------------------------------------------------------------ labels


def normalise_label(label: str) -> str:
    """Upstream: lower-cased and stripped (inner whitespace also collapsed to one space)."""
    return " ".join(str(label).lower().split())


def parse_label_list(text: str) -> list[str]:
    """``"happy, sad, and neutral"`` -> ["happy", "sad", "neutral"] (commas, "and", "or")."""
    parts = re.split(r",|\band\b|\bor\b", text)
    labels = [normalise_label(p.strip(" .'\"")) for p in parts]
    return list(dict.fromkeys(p for p in labels if p))


def labels_from_prompt(prompt: str, kind: str = "labels") -> list[str]:
    """The label set printed in an EmoBench-M prompt: ``kind="labels"`` reads "...following labels
    as your final answer: a, b, c."; ``kind="emotion"``/``"intent"`` read "Choose one emotion: ...".
    ValueError if the prompt has no such list."""
    if kind == "labels":
        pattern = r"labels?(?: as your final answer)?\s*:\s*([^.]+)\."
    else:
        pattern = rf"choose one {re.escape(kind)}\s*:\s*([^.]+)\."
    match = re.search(pattern, prompt, flags=re.IGNORECASE)
    if not match:
        raise ValueError(f"no {kind} list found in the prompt: {prompt[:80]!r}...")
    return parse_label_list(match.group(1))


def _label_pattern(label: str) -> re.Pattern[str]:
    words = normalise_label(label).split(" ")
    return re.compile(r"\b" + r"\s+".join(re.escape(w) for w in words) + r"\b")


def find_label(output: str | None, labels: Iterable[str]) -> tuple[str, int, int] | None:
    """(label, start, end) of the first label in ``output`` (lower-cased and stripped), or None.
    Each label matches as whole words (``\\b`` at both ends; a multi-word label matches across any
    run of whitespace). Ties: the earliest start wins; at the same start the longest label wins
    (so "weak negative" beats "weak" if both were labels); at the same start and length, the
    label listed first."""
    if output is None:
        return None
    text = str(output).lower().strip()
    best: tuple[int, int, int, str, int] | None = None  # (start, -length, order, label, end)
    for order, label in enumerate(dict.fromkeys(normalise_label(lb) for lb in labels)):
        if not label:
            continue
        m = _label_pattern(label).search(text)
        if m:
            key = (m.start(), -(m.end() - m.start()), order, label, m.end())
            if best is None or key[:3] < best[:3]:
                best = key
    return None if best is None else (best[3], best[0], best[4])


def extract_label(output: str | None, labels: Iterable[str]) -> str | None:
    """The upstream rule: the first label found in the output by a word-boundary regex (see
    :func:`find_label` for ties), normalised; None when there is none (an invalid output)."""
    found = find_label(output, labels)
    return None if found is None else found[0]


def normalise_gold(gold: Any, labels: Sequence[str]) -> str:
    """A classification gold as a label: lower-cased and stripped; a gold written in the answer
    format (``"{'emotion': 'positive'}"``) goes through :func:`extract_label`. ValueError if the
    gold holds no label of the set."""
    label = normalise_label(gold)
    norm = [normalise_label(lb) for lb in labels]
    if label in norm:
        return label
    found = extract_label(str(gold), norm)
    if found is None:
        raise ValueError(f"gold {gold!r} is not one of the labels {norm}")
    return found


# ------------------------------------------------------------------------------ metrics


def weighted_f1(golds: Sequence[str], preds: Sequence[str]) -> float:
    """Weighted F1 as sklearn's ``f1_score(average="weighted", zero_division=0)``: per-class F1
    (0 where precision or recall is undefined) averaged with the gold supports as weights."""
    if len(golds) != len(preds):
        raise ValueError(f"{len(golds)} golds but {len(preds)} predictions")
    if not golds:
        return math.nan
    support = Counter(golds)
    total = 0.0
    for label, n_true in support.items():
        tp = sum(1 for g, p in zip(golds, preds) if g == label and p == label)
        n_pred = sum(1 for p in preds if p == label)
        precision = tp / n_pred if n_pred else 0.0
        recall = tp / n_true
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        total += n_true * f1
    return total / len(golds)


def _accuracy(golds: Sequence[str], preds: Sequence[str]) -> float:
    return sum(g == p for g, p in zip(golds, preds)) / len(golds) if golds else math.nan


@dataclass
class ClassificationScore:
    """Upstream metrics over the valid outputs (invalid dropped from the denominator) and the
    strict variant over all n (an invalid output counts as a wrong answer, prediction ``INVALID``)."""

    n: int
    n_valid: int
    n_invalid: int
    invalid_rate: float
    accuracy: float
    weighted_f1: float
    accuracy_strict: float
    weighted_f1_strict: float
    predictions: list[str | None] = field(repr=False, default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("predictions")
        return d


def _score_labels(golds: Sequence[str], preds: Sequence[str | None]) -> ClassificationScore:
    n = len(golds)
    valid = [(g, p) for g, p in zip(golds, preds) if p is not None]
    vg, vp = [g for g, _ in valid], [p for _, p in valid]
    strict = [INVALID if p is None else p for p in preds]
    return ClassificationScore(
        n=n,
        n_valid=len(valid),
        n_invalid=n - len(valid),
        invalid_rate=(n - len(valid)) / n if n else math.nan,
        accuracy=_accuracy(vg, vp),
        weighted_f1=weighted_f1(vg, vp),
        accuracy_strict=_accuracy(golds, strict),
        weighted_f1_strict=weighted_f1(list(golds), strict),
        predictions=list(preds),
    )


def score_classification(
    golds: Sequence[Any], outputs: Sequence[str | None], labels: Sequence[str]
) -> ClassificationScore:
    """Accuracy and weighted F1 of model outputs against golds, labels extracted by
    :func:`extract_label`; golds normalised by :func:`normalise_gold`."""
    if len(golds) != len(outputs):
        raise ValueError(f"{len(golds)} golds but {len(outputs)} outputs")
    gold_labels = [normalise_gold(g, labels) for g in golds]
    return _score_labels(gold_labels, [extract_label(o, labels) for o in outputs])


# ------------------------------------------------------------------------------ emotion_intent (CEIA)


def _key_pattern(part: str) -> re.Pattern[str]:
    # "emotion", 'emotion label', emotion_label, "Emotion:" followed by ':' or '='
    return re.compile(rf"\b{re.escape(part)}(?:[ _]label)?\b['\"]?\s*[:=]", flags=re.IGNORECASE)


def parse_emotion_intent_gold(gold: Any) -> tuple[str, str]:
    """A CEIA gold as (emotion, intent): a mapping or a string holding one (JSON or Python literal,
    keys containing "emotion" and "intent", e.g. ``{'emotion label': 'happy', 'intent label':
    'encouraging'}``), or a 2-sequence (emotion, intent). Values normalised."""
    value = gold
    if isinstance(value, str):
        text = value.strip()
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                raise ValueError(f"CEIA gold {gold!r} is neither a mapping nor an (emotion, intent) pair") from None
    if isinstance(value, Mapping):
        emo = [v for k, v in value.items() if "emotion" in str(k).lower()]
        intent = [v for k, v in value.items() if "intent" in str(k).lower()]
        if len(emo) == 1 and len(intent) == 1:
            return normalise_label(emo[0]), normalise_label(intent[0])
    elif isinstance(value, (list, tuple)) and len(value) == 2:
        return normalise_label(value[0]), normalise_label(value[1])
    raise ValueError(f"CEIA gold {gold!r}: expected one emotion key and one intent key, or a pair")


def extract_emotion_intent(
    output: str | None, emotions: Sequence[str], intents: Sequence[str]
) -> tuple[str | None, str | None]:
    """(emotion, intent) of an output, each None when not found. Rule (ours; upstream's exact
    CEIA parser is not public): where the output names a part as a key ("emotion label": ...,
    Emotion: ...), the first label of that part's set after the key (and before the other key, if
    it follows) is taken; a part without a key falls back to the upstream rule on the whole text,
    except that a fallback intent is searched only after the emotion's match (the two sets share
    "neutral", and the requested order is emotion then intent)."""
    if output is None:
        return None, None
    text = str(output)
    keys = {part: _key_pattern(part).search(text) for part in ("emotion", "intent")}
    found: dict[str, tuple[str, int, int] | None] = {}
    for part, other, labels in (("emotion", "intent", emotions), ("intent", "emotion", intents)):
        key = keys[part]
        if key is None:
            continue
        end, next_key = len(text), keys[other]
        if next_key is not None and next_key.start() > key.end():
            end = next_key.start()
        hit = find_label(text[key.end() : end], labels)
        found[part] = None if hit is None else (hit[0], key.end() + hit[1], key.end() + hit[2])
    if "emotion" not in found:
        found["emotion"] = find_label(text, emotions)
    if "intent" not in found:
        after = found["emotion"][2] if found["emotion"] is not None else 0
        hit = find_label(text[after:], intents)
        found["intent"] = None if hit is None else (hit[0], after + hit[1], after + hit[2])
    return (
        None if found["emotion"] is None else found["emotion"][0],
        None if found["intent"] is None else found["intent"][0],
    )


@dataclass
class EmotionIntentScore:
    """Joint (emotion_intent) scores: an item is correct only if both parts are right, invalid if
    either part is missing; plus each part scored on its own (its own valid items)."""

    joint: ClassificationScore
    emotion: ClassificationScore
    intent: ClassificationScore

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in ("joint", "emotion", "intent"):
            out.update({f"{name}_{k}": v for k, v in getattr(self, name).as_dict().items()})
        return out


def score_emotion_intent(
    golds: Sequence[Any], outputs: Sequence[str | None], emotions: Sequence[str], intents: Sequence[str]
) -> EmotionIntentScore:
    """CEIA scored jointly as upstream: the label is ``f"{emotion}_{intent}"``; accuracy and
    weighted F1 over the joint labels, plus per-part accuracies and F1."""
    if len(golds) != len(outputs):
        raise ValueError(f"{len(golds)} golds but {len(outputs)} outputs")
    emo_set = [normalise_label(x) for x in emotions]
    int_set = [normalise_label(x) for x in intents]
    pairs = [parse_emotion_intent_gold(g) for g in golds]
    for e, i in pairs:
        if e not in emo_set or i not in int_set:
            raise ValueError(f"CEIA gold ({e!r}, {i!r}) is not in the emotion/intent label sets")
    preds = [extract_emotion_intent(o, emo_set, int_set) for o in outputs]
    joint_gold = [f"{e}_{i}" for e, i in pairs]
    joint_pred = [None if e is None or i is None else f"{e}_{i}" for e, i in preds]
    return EmotionIntentScore(
        joint=_score_labels(joint_gold, joint_pred),
        emotion=_score_labels([e for e, _ in pairs], [e for e, _ in preds]),
        intent=_score_labels([i for _, i in pairs], [i for _, i in preds]),
    )


# ------------------------------------------------------------------------------ generation (LR)


def tokenize(text: str) -> list[str]:
    """Lower-cased; runs of word characters and single punctuation marks are tokens."""
    return re.findall(r"\w+|[^\w\s]", str(text).lower())


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _bleu_stats(reference: Sequence[str], hypothesis: Sequence[str], max_n: int) -> tuple[list[int], list[int]]:
    matches, totals = [], []
    for n in range(1, max_n + 1):
        hyp, ref = _ngrams(hypothesis, n), _ngrams(reference, n)
        matches.append(sum(min(c, ref[g]) for g, c in hyp.items()))
        totals.append(max(len(hypothesis) - n + 1, 0))
    return matches, totals


def _bleu(matches: Sequence[int], totals: Sequence[int], hyp_len: int, ref_len: int, epsilon: float) -> float:
    if hyp_len == 0 or matches[0] == 0:  # no common word: 0 even with smoothing (as NLTK)
        return 0.0
    log_p = 0.0
    for m, t in zip(matches, totals):
        if t == 0:
            return 0.0
        if m == 0 and epsilon == 0:
            return 0.0
        log_p += math.log((m or epsilon) / t)
    bp = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    return bp * math.exp(log_p / len(matches))


def corpus_bleu(references: Sequence[str], hypotheses: Sequence[str], max_n: int = 4) -> float:
    """Corpus BLEU-4 (Papineni et al. 2002): one reference per item; clipped n-gram matches and
    n-gram counts summed over the corpus; geometric mean of the 1..4-gram precisions (uniform
    weights); brevity penalty exp(1 - r/c) when the total hypothesis length c <= the total
    reference length r. No smoothing: 0 when some order has no match."""
    if len(references) != len(hypotheses):
        raise ValueError(f"{len(references)} references but {len(hypotheses)} hypotheses")
    matches, totals, c, r = [0] * max_n, [0] * max_n, 0, 0
    for ref, hyp in zip(references, hypotheses):
        rt, ht = tokenize(ref), tokenize(hyp or "")
        m, t = _bleu_stats(rt, ht, max_n)
        matches = [a + b for a, b in zip(matches, m)]
        totals = [a + b for a, b in zip(totals, t)]
        c, r = c + len(ht), r + len(rt)
    return _bleu(matches, totals, c, r, epsilon=0.0)


def sentence_bleu(reference: str, hypothesis: str | None, max_n: int = 4, epsilon: float = 0.1) -> float:
    """Sentence BLEU-4 with smoothing "method 1" of Chen & Cherry (2014) as in NLTK: an n-gram
    order with no match gets ``epsilon`` matches instead of 0; no unigram match at all, or a
    hypothesis shorter than ``max_n`` tokens, scores 0."""
    rt, ht = tokenize(reference), tokenize(hypothesis or "")
    m, t = _bleu_stats(rt, ht, max_n)
    return _bleu(m, t, len(ht), len(rt), epsilon=epsilon)


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (dynamic programming, O(len(a) len(b)))."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def rouge_l(reference: str, hypothesis: str | None, beta: float = 1.0) -> float:
    """ROUGE-L F (Lin 2004): P = LCS/|hyp|, R = LCS/|ref|, F = (1 + b^2) P R / (R + b^2 P).
    ``beta=1`` is the F1 of the rouge-score package; pycocoevalcap uses beta=1.2."""
    rt, ht = tokenize(reference), tokenize(hypothesis or "")
    lcs = lcs_length(rt, ht)
    if lcs == 0:
        return 0.0
    p, r = lcs / len(ht), lcs / len(rt)
    return (1 + beta**2) * p * r / (r + beta**2 * p)


def score_generation(references: Sequence[str], outputs: Sequence[str | None]) -> dict[str, float]:
    """LR offline metrics: corpus BLEU-4, the mean smoothed sentence BLEU-4 and the mean ROUGE-L F
    (on 0-1; the paper prints them x100). A None output scores 0. No BERTScore (needs torch)."""
    if len(references) != len(outputs):
        raise ValueError(f"{len(references)} references but {len(outputs)} outputs")
    n = len(references)
    if n == 0:
        return {"n": 0, "bleu4": math.nan, "bleu4_sentence_mean": math.nan, "rouge_l": math.nan}
    return {
        "n": n,
        "bleu4": corpus_bleu(references, [o or "" for o in outputs]),
        "bleu4_sentence_mean": sum(sentence_bleu(r, o) for r, o in zip(references, outputs)) / n,
        "rouge_l": sum(rouge_l(r, o) for r, o in zip(references, outputs)) / n,
    }


# ------------------------------------------------------------------------------ LLM judge hook


class Judge(Protocol):
    """An LLM judge for LR: called with the item's prompt, the reference explanation and the
    model's output; returns scores for "logic" and "multimodal" (multimodal association), each
    on the scale given to :func:`judge_generation`. The live judge (a model of the config
    registry, the versioned judge prompt, invalid replies accounted) is
    ``eibench.public.emobench_m_live.judge_live``. Nothing here calls a model."""

    def __call__(self, prompt: str, reference: str, output: str) -> Mapping[str, float]: ...


def _check_judge_scores(scores: Any, scale: tuple[float, float], where: str) -> dict[str, float]:
    if not isinstance(scores, Mapping):
        raise ValueError(f"{where}: the judge returned {type(scores).__name__}, not a mapping")
    out = {}
    for dim in JUDGE_DIMENSIONS:
        value = scores.get(dim)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not scale[0] <= value <= scale[1]:
            raise ValueError(f"{where}: judge score {dim!r} = {value!r} is not a number in {list(scale)}")
        out[dim] = float(value)
    return out


def judge_generation(
    prompts: Sequence[str],
    references: Sequence[str],
    outputs: Sequence[str | None],
    judge: Judge,
    scale: tuple[float, float] = (0, 10),
) -> dict[str, Any]:
    """Calls ``judge(prompt, reference, output)`` once per item, in order (a None output is
    passed as ""), checks the scores, and returns the per-item scores and the means of logic,
    multimodal and total (= logic + multimodal, as the paper's "Total")."""
    if not len(prompts) == len(references) == len(outputs):
        raise ValueError("prompts, references and outputs differ in length")
    per_item = []
    for i, (p, r, o) in enumerate(zip(prompts, references, outputs)):
        scores = _check_judge_scores(judge(p, r, o or ""), scale, f"item {i}")
        per_item.append({**scores, "total": scores["logic"] + scores["multimodal"]})
    n = len(per_item)
    means = {k: (sum(s[k] for s in per_item) / n if n else math.nan) for k in ("logic", "multimodal", "total")}
    return {"n": n, **means, "per_item": per_item}


# ------------------------------------------------------------------------------ scenarios

TASKS = ("classification", "emotion_intent", "generation")


@dataclass(frozen=True)
class ScenarioSpec:
    """A scenario's scoring spec from ``emobench_m_labels.yaml``: its task, label set(s) (labels
    for classification; emotions and intents for emotion_intent; none for generation), the
    source of the labels and, where sources disagree, the recorded conflict."""

    scenario: str
    name: str
    dimension: str
    task: str
    labels: tuple[str, ...] = ()
    emotions: tuple[str, ...] = ()
    intents: tuple[str, ...] = ()
    source: str = ""
    conflict: str | None = None


@functools.cache
def scenario_specs() -> dict[str, ScenarioSpec]:
    """Every scenario's spec, keyed by abbreviation (aliases included, e.g. SCEA -> SEA)."""
    import yaml

    path = resources.files(__package__).joinpath("emobench_m_labels.yaml")
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    specs: dict[str, ScenarioSpec] = {}
    for key, entry in raw["scenarios"].items():
        if entry["task"] not in TASKS:
            raise ValueError(f"{path}: scenario {key}: field 'task': {entry['task']!r} is not one of {TASKS}")
        spec = ScenarioSpec(
            key,
            entry["name"],
            entry["dimension"],
            entry["task"],
            tuple(normalise_label(x) for x in entry.get("labels", ())),
            tuple(normalise_label(x) for x in entry.get("emotions", ())),
            tuple(normalise_label(x) for x in entry.get("intents", ())),
            entry["source"],
            entry.get("conflict"),
        )
        needed = {"classification": ("labels",), "emotion_intent": ("emotions", "intents"), "generation": ()}
        for name in needed[spec.task]:
            if not getattr(spec, name):
                raise ValueError(f"{path}: scenario {key}: field {name!r} is missing or empty")
        for name in (key, *entry.get("aliases", ())):
            specs[name] = spec
    return specs


def scenario_spec(scenario: str) -> ScenarioSpec:
    """The spec of one scenario (abbreviation, case-insensitive; "SCEA" is the stock scenario SEA).
    KeyError naming the known scenarios."""
    specs = scenario_specs()
    found = specs.get(scenario.strip().upper())
    if found is None:
        raise KeyError(f"unknown EmoBench-M scenario {scenario!r}; known: {', '.join(sorted(specs))}")
    return found


def check_prompt_labels(items: Sequence[Item], spec: ScenarioSpec) -> None:
    """ValueError when an item's prompt prints a label set other than the scenario's (as sets):
    the outputs would be read against labels the model was not offered. Prompts that print no
    list are not checked."""
    kinds = {
        "classification": (("labels", spec.labels),),
        "emotion_intent": (("emotion", spec.emotions), ("intent", spec.intents)),
    }.get(spec.task, ())
    for item in items:
        for kind, expected in kinds:
            try:
                printed = labels_from_prompt(item.prompt, kind)
            except ValueError:
                continue
            if set(printed) != set(expected):
                raise ValueError(
                    f"item {item.id!r}: its prompt offers the {kind} {printed}, but scenario {spec.scenario}'s set "
                    f"(emobench_m_labels.yaml: {spec.source}) is {list(expected)}; fix the items or the label file"
                )


def score_scenario(scenario: str, items: Sequence[Item], outputs: Sequence[str | None]) -> dict[str, Any]:
    """Scores of one scenario with its label set from ``emobench_m_labels.yaml``: accuracy and
    weighted F1 (classification), joint emotion_intent (CEIA), or the offline generation metrics
    (LR). The items' prompts are checked against the set first (:func:`check_prompt_labels`)."""
    spec = scenario_spec(scenario)
    if len(items) != len(outputs):
        raise ValueError(f"{len(items)} items but {len(outputs)} outputs")
    check_prompt_labels(items, spec)
    golds = [it.gold for it in items]
    head = {"scenario": spec.scenario, "task": spec.task}
    if spec.task == "classification":
        return {**head, **score_classification(golds, outputs, spec.labels).as_dict()}
    if spec.task == "emotion_intent":
        return {**head, **score_emotion_intent(golds, outputs, spec.emotions, spec.intents).as_dict()}
    return {**head, **score_generation([str(g) for g in golds], outputs)}


# ------------------------------------------------------------------------------ format_examples


@dataclass(frozen=True)
class FormatExample:
    """One of the mirror's illustrative ``format_examples/*.json`` files (not the item shape: an
    object with "instruction" and "examples" holding expected and predicted values)."""

    task: str  # "classification" | "emotion_intent" | "generation"
    instruction: str
    golds: list[Any]
    predictions: list[Any]


def read_format_example(path: Path | str) -> FormatExample:
    """Reads an illustrative file: expected_value/predicted_value (classification),
    expected_/predicted_emotion and _intent (emotion_intent, as pairs), reference/prediction
    (generation)."""
    data = _load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("examples"), list):
        raise ItemFormatError(f"{path}: field 'examples': missing or not a list")
    instruction = data.get("instruction")
    if not isinstance(instruction, str):
        raise ItemFormatError(f"{path}: field 'instruction': missing or not a string")
    shapes = {
        "classification": (("expected_value",), ("predicted_value",)),
        "emotion_intent": (("expected_emotion", "expected_intent"), ("predicted_emotion", "predicted_intent")),
        "generation": (("reference",), ("prediction",)),
    }
    examples = data["examples"]
    for task, (gold_keys, pred_keys) in shapes.items():
        if examples and all(isinstance(e, dict) and set(gold_keys + pred_keys) <= set(e) for e in examples):
            pick = (lambda e, ks: e[ks[0]]) if len(gold_keys) == 1 else (lambda e, ks: tuple(e[k] for k in ks))
            return FormatExample(
                task, instruction, [pick(e, gold_keys) for e in examples], [pick(e, pred_keys) for e in examples]
            )
    raise ItemFormatError(
        f"{path}: field 'examples': no known shape (expected_value/predicted_value, "
        "expected_emotion/.../predicted_intent, or reference/prediction) in every example"
    )
