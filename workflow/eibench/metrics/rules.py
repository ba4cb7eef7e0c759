"""The rules a scoring run follows where scorers disagree: one flag per divergence of
docs/metrics.md ('Divergences from the public port'), so each scorer function asks a question
(``rules.va_rounding``) instead of testing a rule-set name.

Three settings:
- ``parity`` (default): the public scorer's rules, except where the public TypeScript port's
  behaviour is an artefact of JavaScript or a bug of its reader;
- ``strict``: the principled rules (missing predictions wrong, empty turns excluded);
- ``parity`` with ``compat='port'`` (config ``scoring.compat: port``): the port's behaviour as
  closely as the tidy tables and Python allow, JavaScript artefacts included (greedy VA
  matching, Math.round, JavaScript whitespace), for comparisons with results of that port.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

COMPAT = ("none", "port")

#: JavaScript's \\s and String.prototype.trim: Unicode White_Space minus U+0085, U+001C..U+001F,
#: plus U+FEFF (ECMA-262 WhiteSpace and LineTerminator).
JS_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_SPLIT = re.compile(f"[{JS_SPACE}]+")
_JS_TRIM = re.compile(f"^[{JS_SPACE}]+|[{JS_SPACE}]+$")


def js_trim(text: str) -> str:
    """JavaScript's ``text.trim()``."""
    return _JS_TRIM.sub("", text)


def js_tokens(text: str) -> list[str]:
    """JavaScript's ``text.toLowerCase().split(/\\s+/).filter(Boolean)`` (duplicates kept)."""
    return [t for t in _JS_SPLIT.split(text.lower()) if t]


def js_round(x: float) -> float:
    """JavaScript's Math.round: the nearest integer, halves toward +infinity (exact for doubles)."""
    if math.isnan(x):
        return x
    lower = math.floor(x)
    return float(lower + 1 if x - lower >= 0.5 else lower)


def py_round(x: float, digits: int) -> float:
    """Python's round(x, digits): correctly rounded, halves to even (the Python scorer's rule)."""
    return x if math.isnan(x) else round(x, digits)


@dataclass(frozen=True)
class Rules:
    """Every rule choice of one scoring run (see the divergence table of docs/metrics.md)."""

    rule_set: str  # 'parity' or 'strict': names the output rows
    compat: str  # 'none' or 'port'
    va_matching: str  # 'optimal' or 'greedy'
    va_rounding: str | None  # D3: None (exact), 'python' or 'js': the similarity table to 4 decimals
    round_half: str  # D5/D16: 'even' (Python's round) or 'up' (JavaScript's Math.round)
    round_equal_composite: bool  # D5
    gold_items_block: bool  # D4: gold PANAS items under 'items' are read (False: the port's reader)
    draft_missing_zero: bool  # D6: no draft scores 0 (and '' is no draft) instead of null
    alignment_fallback: bool  # D7a: no gold winner: preference alignment = response similarity
    alignment_renormalise: bool  # D7b: winners without text left out and the shares renormalised
    last_duplicate_question: bool  # D10: a question id twice at a turn: the last one, counted once
    last_duplicate_intensity: bool  # D11: a word twice: the last intensity (else the first)
    js_text: bool  # D12: JavaScript trim and whitespace in words, tokens and survey answers
    skip_missing_affect: bool  # D14: an affect missing on both sides is left out of the MAE
    totals_from_present_items: bool  # D15: a missing total is the sum of the items present
    four_branch_turn_fallback: bool  # D18
    empty_survey_when_missing: bool  # D19: no gold survey: predictions scored against empty answers
    raw_survey_lists: bool  # D20: q1 emptiness on the raw list, '' kept, follow-up duplicates count
    port_panas_prediction: bool  # the port reads predictions unnormalised (no rounding or clamping)
    nested_predicted_totals: bool  # D28: predicted totals under 'totals' are read (False: the port's reader)


def rules_for(rule_set: str, va_matching: str = "optimal", compat: str = "none") -> Rules:
    """The rules of ``rule_set`` ('parity' or 'strict') under ``compat`` ('none' or 'port');
    ``compat='port'`` changes the parity rule set only and implies greedy VA matching."""
    if rule_set not in ("parity", "strict"):
        raise ValueError(f"rule_set must be 'parity' or 'strict', got {rule_set!r}")
    if compat not in COMPAT:
        raise ValueError(f"scoring.compat must be one of {', '.join(COMPAT)}, got {compat!r}")
    if va_matching not in ("optimal", "greedy"):
        raise ValueError(f"scoring.va_matching must be 'optimal' or 'greedy', got {va_matching!r}")
    port = compat == "port" and rule_set == "parity"
    parity = rule_set == "parity"
    return Rules(
        rule_set=rule_set,
        compat=compat if parity else "none",
        va_matching="greedy" if port else va_matching,
        va_rounding="js" if port else ("python" if parity else None),
        round_half="up" if port else "even",
        round_equal_composite=parity,
        gold_items_block=not port,
        draft_missing_zero=parity,
        alignment_fallback=parity,
        alignment_renormalise=parity,
        last_duplicate_question=parity,
        last_duplicate_intensity=parity,
        js_text=port,
        skip_missing_affect=parity,
        totals_from_present_items=parity,
        four_branch_turn_fallback=not parity,
        empty_survey_when_missing=parity,
        raw_survey_lists=parity,
        port_panas_prediction=port,
        nested_predicted_totals=not port,
    )
