"""Conversation by conversation, our scores against the public port's, on the same files.

Runs the port (harness.js, built as README.md says) on a built cohort with ``PORT_DUMP``, scores
every model's EM outputs here under the parity rule set (``--compat port``, the default: the
port setting, with greedy VA matching; ``--compat none``: parity itself, optimal matching), and
compares the 44 conversation-level quantities of docs/metrics.md ("Divergences from the public
port") on every (model, conversation) pair. Prints, per quantity, the pairs compared, those that
differ by more than ``--tol`` (a NaN against a number counts), the largest difference and a few
examples; then each model's mean composite on both sides.

    .venv/bin/python benchmarks/port/compare_port.py [--compat port|none] [--reuse-dump]

Exits with 1 when a quantity differs under ``--compat port`` (the setting claims to reproduce
the port), else 0. Only the default mode's outputs are read (``<predictions>/<model>/default``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
RATES = ("tp", "tn", "fp", "fn")

#: (our conversation column, the port's ConversationScore field, flattened). "turns:<column>"
#: is the sum of our turn column over the conversation's scored turns (the port pools the
#: counts); "derived:<name>" is worked out from the port's fields in ``_derived``.
QUANTITIES: list[tuple[str, str]] = [
    ("emotion_f1", "avg_emotion_f1"),
    ("emotion_f1_intensity", "avg_emotion_f1_intensity"),
    ("emotion_va", "avg_emotion_va_score"),
    ("emotion_va_intensity", "avg_emotion_va_intensity_score"),
    ("binary_om_acc", "avg_binary_om_accuracy"),
    ("binary_hp_acc", "avg_binary_human_accuracy"),
    ("binary_om_acc_pw", "avg_binary_om_accuracy_hp"),
    ("binary_hp_acc_pw", "avg_binary_human_accuracy_hp"),
    ("pairwise_acc", "avg_pairwise_accuracy"),
    ("kendall_tau", "avg_pairwise_kendall_tau"),
    *(
        (f"turns:{ours}_{rate}", f"pooled_binary_{port}.{rate}")
        for ours, port in (
            ("om", "om_metrics"),
            ("hp", "human_metrics"),
            ("om_pw", "om_metrics_hp"),
            ("hp_pw", "human_metrics_hp"),
        )
        for rate in RATES
    ),
    ("perspective_gap", "hp_perspective_gap"),
    ("response_similarity", "avg_response_similarity"),
    ("preference_alignment", "avg_response_preference_alignment"),
    ("panas_normalized", "post_score.panas_normalized"),
    ("panas_adjusted", "post_score.panas_baseline_adjusted"),
    ("panas_part", "derived:panas_part"),
    ("panas_items_normalized", "post_score.panas_item_normalized"),
    ("panas_items_adjusted", "post_score.panas_item_baseline_adjusted"),
    ("cw_q1_f1", "post_score.q1_looking_for_score"),
    ("cw_q2_exact", "post_score.q2_emotion_clarity_match"),
    ("cw_q3_exact", "post_score.q3_model_fit_match"),
    ("cw_q3_distance", "post_score.q3_model_fit_ordinal_distance"),
    ("cw_followup_f1", "post_score.q3_follow_up_score"),
    ("conversation_wide", "derived:conversation_wide"),
    ("four_branch_mae", "post_score.four_branch_mae"),
    ("four_branch", "post_score.four_branch_normalized"),
    ("composite", "composite_score"),
    ("composite_equal", "equal_weight_composite"),
]
_SURVEY = ("q1_looking_for_score", "q2_emotion_clarity_match", "q3_model_fit_match", "q3_follow_up_score")


def _number(value: object) -> float:
    """A dumped value as a float: null -> NaN; the strings "NaN", "Infinity" as floats."""
    return math.nan if value is None else float(value)  # type: ignore[arg-type]


def _derived(score: dict) -> dict:
    """The port's fields that our columns hold in another form: the PANAS composite part
    ((adjusted + 1) / 2, or 0.5 when null) and the survey score (the mean of its four answers)."""
    adjusted = score.get("post_score.panas_baseline_adjusted")
    return {
        "derived:panas_part": 0.5 if adjusted is None else (adjusted + 1.0) / 2.0,
        "derived:conversation_wide": sum(_number(score[f"post_score.{k}"]) for k in _SURVEY) / len(_SURVEY),
    }


def run_port(node: str, harness: Path, conversations: Path, predictions: Path, dump: Path) -> None:
    """The port's scores of every model, one JSON line per (model, conversation), in ``dump``."""
    if not harness.is_file():
        sys.exit(f"{harness} does not exist: build it as benchmarks/port/README.md says")
    dump.parent.mkdir(parents=True, exist_ok=True)
    cmd = [node, str(harness), str(conversations), str(predictions)]
    proc = subprocess.run(cmd, env=dict(os.environ, PORT_DUMP=str(dump)), capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"the port harness failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    if proc.stderr.strip():
        print(f"the port skipped or rejected something:\n{proc.stderr[-3000:]}", file=sys.stderr)


def read_port(dump: Path) -> dict[tuple[str, str], dict]:
    """(model folder, conversation id) -> the port's flattened ConversationScore."""
    out: dict[tuple[str, str], dict] = {}
    for line in dump.read_text(encoding="utf-8").splitlines():
        score = json.loads(line)
        key = (score["model"], score["conversationId"])
        if key in out:
            sys.exit(f"{dump}: the port scored {key} twice")
        out[key] = {**score, **_derived(score)}
    return out


def score_ours(conversations: Path, predictions: Path, compat: str) -> dict[tuple[str, str], dict]:
    """(model folder, conversation id) -> our conversation row, with the per-turn confusion
    counts summed over the conversation's scored turns (as ``turns:<column>``)."""
    from eibench.metrics.gold import GoldIndex
    from eibench.metrics.score import score_rule_sets
    from eibench.release.read import list_json_files, read_conversations, read_em_files
    from eibench.release.tidy import em_tables, gold_tables

    index = GoldIndex.build(gold_tables(read_conversations(list_json_files(conversations))))
    matching = "greedy" if compat == "port" else "optimal"
    out: dict[tuple[str, str], dict] = {}
    for model_dir in sorted(p for p in predictions.iterdir() if (p / "default").is_dir()):
        files = sorted((model_dir / "default").rglob("*.json"))
        tables = em_tables(read_em_files(files, model_dir.name, "default"))
        scores = score_rule_sets(index, tables, ("parity",), matching, compat)["parity"]
        counts = [c for c in scores.turn.columns if c.rsplit("_", 1)[-1] in RATES]
        sums = scores.turn.groupby("conversation_id", observed=True)[counts].sum(min_count=1)
        for row in scores.conversation.to_dict("records"):
            summed = sums.loc[row["conversation_id"]] if row["conversation_id"] in sums.index else {}
            out[(model_dir.name, str(row["conversation_id"]))] = {
                **row,
                **{f"turns:{c}": float(summed[c]) if c in summed else math.nan for c in counts},
            }
    return out


def differences(ours: float, port: float) -> float:
    """|ours - port|; 0 when both are NaN, infinite when only one is."""
    if math.isnan(ours) or math.isnan(port):
        return 0.0 if math.isnan(ours) and math.isnan(port) else math.inf
    return abs(ours - port)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=Path, default=REPO / "results/cohort/synthetic/conversations")
    parser.add_argument("--predictions", type=Path, default=REPO / "results/predictions")
    parser.add_argument("--compat", choices=("port", "none"), default="port")
    parser.add_argument("--harness", type=Path, default=HERE / "harness.js")
    parser.add_argument("--node", default="node")
    parser.add_argument("--dump", type=Path, default=REPO / "benchmarks/results/port/scores.jsonl")
    parser.add_argument("--reuse-dump", action="store_true", help="read --dump as it is instead of rerunning the port")
    parser.add_argument("--tol", type=float, default=1e-9)
    parser.add_argument("--examples", type=int, default=3)
    args = parser.parse_args()
    if not args.reuse_dump:
        run_port(args.node, args.harness, args.conversations, args.predictions, args.dump)
    port = read_port(args.dump)
    ours = score_ours(args.conversations, args.predictions, args.compat)
    if set(port) != set(ours):
        print(f"pairs scored by the port only: {len(set(port) - set(ours))}, by us only: {len(set(ours) - set(port))}")
    pairs = sorted(set(port) & set(ours))
    print(f"{len(pairs)} (model, conversation) pairs; compat {args.compat}; tolerance {args.tol:g}")
    print(f"{'quantity':24s} {'pairs':>6s} {'differ':>6s} {'max |d|':>9s}  examples (model/conversation: ours vs port)")
    agree = 0
    for column, field in QUANTITIES:
        found = [(key, _number(ours[key].get(column)), _number(port[key].get(field))) for key in pairs]
        differ = [(key, o, p, differences(o, p)) for key, o, p in found]
        differ = [d for d in differ if d[3] > args.tol]
        agree += not differ
        examples = "; ".join(f"{k[0]}/{k[1]}: {o:.6g} vs {p:.6g}" for k, o, p, _ in differ[: args.examples])
        largest = max((d[3] for d in differ), default=0.0)
        print(f"{column.removeprefix('turns:'):24s} {len(found):6d} {len(differ):6d} {largest:9.3g}  {examples}")
    print(f"{agree} of {len(QUANTITIES)} quantities agree on every pair")
    print("mean composite per model (ours, port):")
    for model in sorted({m for m, _ in pairs}):
        keys = [k for k in pairs if k[0] == model]
        means = [
            sum(_number(side[k][name]) for k in keys) / len(keys)
            for side, name in ((ours, "composite"), (port, "composite_score"))
        ]
        print(f"  {model:12s} {means[0]:9.4f} {means[1]:9.4f}")
    return 1 if args.compat == "port" and agree < len(QUANTITIES) else 0


if __name__ == "__main__":
    sys.exit(main())
