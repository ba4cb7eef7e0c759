"""The cost and time estimate a collection prints before its first request.

``estimate(pending_chars, cached, model, observed)``: ``pending_chars`` lists the character
count of every first request still to ask (one per request and sample, repairs not counted:
they are only known once an answer fails), ``cached`` how many are answered already, and
``observed`` the stored answers of this model seen so far (their latencies and output tokens
make the time estimate). Input tokens are estimated as characters / 4 (the usual rule of thumb
for English text with BPE tokenizers; a tokenizer of the model is not at hand for every API);
output tokens are bounded by ``max_tokens`` per request, and estimated by the mean of the
observed answers when there are some. Without observed answers the time is unknown (None): the
progress bar's rate tells it after the first answers.
"""

from __future__ import annotations

import statistics
from typing import Any, Sequence

from .adapters import LiveModel
from .cache import Entry

CHARS_PER_TOKEN = 4.0


def estimate(
    pending_chars: Sequence[int], cached: int, model: LiveModel, observed: Sequence[Entry] = ()
) -> dict[str, Any]:
    """Requests to ask, estimated tokens, cost (USD: expected and at most) and wall time (s)."""
    n = len(pending_chars)
    tokens_in = int(round(sum(pending_chars) / CHARS_PER_TOKEN))
    outs = [e.output_tokens for e in observed if e.output_tokens is not None]
    tokens_out_max = n * model.max_tokens
    tokens_out = int(round(n * statistics.fmean(outs))) if outs else None
    latency = statistics.fmean(e.latency_seconds for e in observed) if observed else None
    return {
        "requests": n + cached,
        "cached": cached,
        "to_ask": n,
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "output_tokens_max": tokens_out_max,
        "cost_usd": model.cost(tokens_in, tokens_out) if tokens_out is not None else None,
        "cost_usd_max": model.cost(tokens_in, tokens_out_max),
        "seconds": n * latency / max(1, model.concurrency) if latency is not None else None,
        "mean_latency_seconds": latency,
        "observed": len(observed),
    }


def format_estimate(name: str, mode: str, e: dict[str, Any]) -> str:
    """One line for the log and the terminal."""
    out = e["output_tokens"] if e["output_tokens"] is not None else "unknown"
    cost = f"${e['cost_usd']:.2f}" if e["cost_usd"] is not None else "unknown"
    if e["seconds"] is not None:
        time = (
            f"about {e['seconds'] / 60:.1f} min ({e['mean_latency_seconds']:.2f} s a request, mean of "
            f"{e['observed']} stored answers, at concurrency)"
        )
    else:
        time = "unknown until the first answers (see the progress bar's rate)"
    return (
        f"{name} ({mode}): {e['requests']} requests, {e['cached']} cached, {e['to_ask']} to ask "
        f"(+ repairs); about {e['input_tokens']} input tokens (characters / 4), output tokens {out} "
        f"(at most {e['output_tokens_max']}); cost {cost} (at most ${e['cost_usd_max']:.2f}); time {time}"
    )
