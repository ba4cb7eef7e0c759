"""Live runs of EmoBench-M-format items through the prediction adapters, and the live LLM judge.

- :func:`predict_items`: every item to a live model of the config registry as one request (the
  video's frames and the audio track as content parts where the run asks for them, then the
  item's prompt), through the response cache; the outputs by item id, in the shape that
  ``emobench_m_scoring.read_predictions`` reads. Every item is checked (media files present,
  readable, within the size limit, of a modality the model accepts) before the first call.
- :func:`judge_live`: the Laughter Reasoning judge: one request per item and dimension (logic,
  multimodal association), rendered from the versioned judge prompt
  (``eibench/predict/prompts/emobench_m_judge_<version>.yaml``), through the cache, with repair
  requests for unreadable replies; a reply still unreadable is invalid and accounted.

Cache keys: ``request_key(identity, prompt version, messages, sample)`` of
``eibench.predict.cache`` over ``media.cache_form(messages)``: a media part enters the key and
the stored request as its sha256, type and size, never as its path or bytes.

Command line (thin wrapper)::

    python -m eibench.public.emobench_m_live predict --model NAME --items ITEMS.json --out OUT.json
        [--media-root DIR] [--modalities text image audio] [--max-frames 8] [--configfile config/config.yaml]
    python -m eibench.public.emobench_m_live judge --judge NAME --items smile.json --predictions OUT.json --out J.json
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import sys
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from string import Template
from typing import Any, Mapping, Sequence

import httpx
import yaml

from ..predict import media
from ..predict.adapters import ADAPTERS, Adapter, Completion, LiveModel, RequestRefused
from ..predict.cache import Entry, ResponseCache, request_key
from ..predict.prompts import read_prompt_file
from ..predict.settings import request_bounds
from . import emobench_m_scoring as S

ITEM_PROMPT_VERSION = "emobench-m-items/v1"
"""How an item becomes a request (part of its cache key): one user message, the frames in time
order, then the audio, then the prompt text (the position of upstream's ``<video>`` token)."""
LIVE_KINDS = ("openai_compatible", "anthropic")


@dataclass
class RunStats:
    """Calls made, answers from the cache, requests refused for good, tokens and USD spent (known
    counts only; ``usage_unknown``: calls whose token usage the endpoint did not give)."""

    calls: int = 0
    cache_hits: int = 0
    refused: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    usage_unknown: int = 0


def live_model(config: Mapping[str, Any], name: str) -> LiveModel:
    """The live model ``name`` of the config registry (``models``); ValueError when it is absent
    or not of a live kind."""
    entries = {m["name"]: m for m in config["models"]}
    if name not in entries:
        raise ValueError(
            f"config key 'models' has no model {name!r}; add an entry of kind openai_compatible or "
            f"anthropic (known: {', '.join(entries)})"
        )
    if entries[name]["kind"] not in LIVE_KINDS:
        raise ValueError(
            f"config key 'models' ({name}): kind {entries[name]['kind']!r} is not a live model "
            f"({' or '.join(LIVE_KINDS)})"
        )
    return LiveModel.from_config(entries[name], request_bounds(config.get("collection", {})))


async def cached_complete(
    adapter: Adapter,
    cache: ResponseCache,
    prompt_version: str,
    messages: list[dict[str, Any]],
    stats: RunStats,
    where: str,
    sample: int = 0,
) -> Completion:
    """One answer from the cache, or from the model (then stored with the digest form of the
    request). The stored answer is the one returned, as in the collector."""
    model = adapter.model
    digest_form = media.cache_form(messages)
    key = request_key(model.identity(), prompt_version, digest_form, sample)
    entry = cache.get(key)
    if entry is None:
        done = await adapter.complete(messages, where)
        stats.calls += 1
        stats.input_tokens += done.input_tokens or 0
        stats.output_tokens += done.output_tokens or 0
        stats.usage_unknown += done.input_tokens is None or done.output_tokens is None
        stats.cost_usd += model.cost(done.input_tokens, done.output_tokens) or 0.0
        cache.put(
            key,
            {"identity": model.identity(), "prompt_version": prompt_version, "messages": digest_form, "sample": sample},
            Entry(done.text, done.input_tokens, done.output_tokens, done.latency_seconds, done.created_at),
        )
        entry = cache.get(key, count=False)
        if entry is None:
            return done
    else:
        stats.cache_hits += 1
    return Completion(entry.text, entry.input_tokens, entry.output_tokens, entry.latency_seconds, entry.created_at)


# ------------------------------------------------------------------------------ items -> requests


def _media_plan(item: S.Item, modalities: Sequence[str], max_frames: int, where: str) -> list[tuple[str, str]]:
    """(kind, relative path) of the media an item sends, in request order."""
    plan: list[tuple[str, str]] = []
    video = item.video or "<video>"
    if "image" in modalities:
        if not item.frames:
            raise S.ItemFormatError(
                f"{where}: field 'frames': the run sends images, but the item lists no frames of its video; extract "
                f"them (e.g. ffmpeg -i {video} -vf fps=1 frames/{item.id}_%03d.jpg) and list the files in 'frames', "
                "or leave 'image' out of the run's modalities"
            )
        plan += [("image", f) for f in media.select_frames(item.frames, max_frames)]
    if "audio" in modalities:
        if not item.audio:
            raise S.ItemFormatError(
                f"{where}: field 'audio': the run sends audio, but the item has no audio file; extract it (e.g. "
                f"ffmpeg -i {video} -vn -ac 1 -ar 16000 audio/{item.id}.wav) and set 'audio', or leave 'audio' "
                "out of the run's modalities"
            )
        plan.append(("audio", item.audio))
    return plan


def item_messages(
    item: S.Item, media_root: Path, modalities: Sequence[str], max_frames: int, where: str = "item"
) -> list[dict[str, Any]]:
    """The request of one item: one user message; text only when the run sends no media."""
    plan = _media_plan(item, modalities, max_frames, where)
    if not plan:
        return [{"role": "user", "content": item.prompt}]
    try:
        parts = [media.read_media(media_root / rel, kind) for kind, rel in plan]
    except media.MediaError as e:
        raise media.MediaError(f"{where}: {e}") from None
    return [{"role": "user", "content": [*parts, item.prompt]}]


def check_items(
    items: Sequence[S.Item], model: LiveModel, media_root: Path, modalities: Sequence[str], max_frames: int, source: str
) -> None:
    """Every problem an item could meet before its call, checked for all items before the first
    call: a requested modality the model does not accept (``media.ModalityError``), media absent
    from the item, or a file missing, of an unknown type or over the size limit
    (``media.MediaError``). The media are read one item at a time, never all at once."""
    unknown = set(modalities) - set(media.MODALITIES)
    if unknown:
        raise ValueError(f"unknown modalities {sorted(unknown)}; known: {list(media.MODALITIES)}")
    for item in items:
        where = f"item {item.id!r} of {source}"
        media.check_request(model, item_messages(item, media_root, modalities, max_frames, where), where)


async def predict_items(
    items: Sequence[S.Item],
    model: LiveModel,
    adapter: Adapter,
    cache: ResponseCache,
    media_root: Path,
    modalities: Sequence[str] | None = None,
    max_frames: int = 8,
    source: str = "the items",
) -> tuple[dict[str, str | None], RunStats]:
    """The model's output for every item (None when the endpoint refused the request for good:
    an invalid output), and the run's stats. ``modalities``: what to send (default: what the
    model accepts); all items are checked first (:func:`check_items`)."""
    modalities = tuple(modalities or model.modalities)
    check_items(items, model, media_root, modalities, max_frames, source)
    stats = RunStats()
    limit = asyncio.Semaphore(max(1, model.concurrency))  # bounds the media held in memory too

    async def one(item: S.Item) -> str | None:
        async with limit:
            where = f"item {item.id!r} of {source}"
            messages = item_messages(item, media_root, modalities, max_frames, where)
            try:
                return (await cached_complete(adapter, cache, ITEM_PROMPT_VERSION, messages, stats, where)).text
            except RequestRefused:
                stats.refused += 1
                return None

    outputs = await asyncio.gather(*(one(item) for item in items))
    return {item.id: out for item, out in zip(items, outputs)}, stats


# ------------------------------------------------------------------------------ the live judge


@dataclass(frozen=True)
class JudgePrompt:
    """The versioned judge prompt (``predict/prompts/emobench_m_judge_<version>.yaml``)."""

    version: str
    raw: dict[str, Any]
    digest: str  # sha256 (first 16 hex) of the file

    @classmethod
    @cache
    def load(cls, version: str = "v1") -> "JudgePrompt":
        text, raw = read_prompt_file(f"emobench_m_judge_{version}.yaml", version, "judge prompt")
        if set(raw.get("dimensions", {})) != set(S.JUDGE_DIMENSIONS):
            raise ValueError(
                f"judge prompt emobench_m_judge_{version}.yaml: field 'dimensions' must hold {list(S.JUDGE_DIMENSIONS)}"
            )
        return cls(version, raw, hashlib.sha256(text.encode()).hexdigest()[:16])

    @property
    def scale(self) -> tuple[int, int]:
        low, high = self.raw["scale"]
        return int(low), int(high)

    @property
    def cache_version(self) -> str:
        """The prompt-version part of a judge request's cache key."""
        return f"emobench-m-judge/{self.version}/{self.digest}"

    def name(self, dimension: str) -> str:
        return self.raw["dimensions"][dimension]["name"]

    def messages(self, dimension: str, reference: str, candidate: str) -> list[dict[str, str]]:
        spec = self.raw["dimensions"][dimension]
        low, high = self.scale
        criteria = "\n".join(f"{k}: {v}" for k, v in spec["criteria"].items())
        system = Template(self.raw["system"]).substitute(low=low, high=high).strip()
        user = Template(self.raw["user"]).substitute(
            name=spec["name"],
            description=spec["description"],
            criteria=criteria,
            reference=reference,
            candidate=candidate,
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user.strip()}]

    def repair(self, dimension: str) -> str:
        low, high = self.scale
        return Template(self.raw["repair"]).substitute(name=self.name(dimension), low=low, high=high).strip()


def parse_judge_score(text: str | None, name: str, scale: tuple[float, float]) -> float | None:
    """The score on the first line ``<name>: <number>`` of a judge reply (case-insensitive;
    markdown bold around the name or the number allowed), or None when there is none or it lies
    outside ``scale`` (an invalid reply)."""
    if not text:
        return None
    match = re.search(rf"{re.escape(name)}\W{{0,3}}\s*:\s*\**\s*(-?\d+(?:\.\d+)?)", text, flags=re.IGNORECASE)
    if not match:
        return None
    value = float(match.group(1))
    return value if scale[0] <= value <= scale[1] else None


def summarise_judge(per_item: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Means of the judge scores with invalid accounting. An item is valid when both dimensions
    were read. ``logic`` and ``multimodal``: means over the items where that dimension was read;
    ``total``: mean of logic + multimodal over the valid items; ``*_upstream``: over all items
    with an unread score counted as 0, as the upstream script does. NaN where nothing is read."""
    n = len(per_item)
    nan = float("nan")

    def mean(values: list[float]) -> float:
        return sum(values) / len(values) if values else nan

    out: dict[str, Any] = {"n": n}
    valid = [s for s in per_item if all(s[d] is not None for d in S.JUDGE_DIMENSIONS)]
    out.update(n_valid=len(valid), n_invalid=n - len(valid), invalid_rate=(n - len(valid)) / n if n else nan)
    for d in S.JUDGE_DIMENSIONS:
        read = [s[d] for s in per_item if s[d] is not None]
        out[d] = mean(read)
        out[f"{d}_n_invalid"] = n - len(read)
        out[f"{d}_upstream"] = sum(read) / n if n else nan
    out["total"] = mean([sum(s[d] for d in S.JUDGE_DIMENSIONS) for s in valid])
    out["total_upstream"] = sum(out[f"{d}_upstream"] for d in S.JUDGE_DIMENSIONS) if n else nan
    return out


async def judge_live(
    ids: Sequence[str],
    references: Sequence[str],
    outputs: Sequence[str | None],
    judge: LiveModel,
    adapter: Adapter,
    cache: ResponseCache,
    prompt: JudgePrompt | None = None,
) -> tuple[dict[str, Any], RunStats]:
    """The live judge of LR outputs: per item and dimension one request (a None output is
    graded as ""), up to ``judge.max_repairs`` repair requests when the score cannot be read;
    per-item scores (None where unread, the raw reply kept) and :func:`summarise_judge`."""
    if not len(ids) == len(references) == len(outputs):
        raise ValueError("ids, references and outputs differ in length")
    prompt = prompt or JudgePrompt.load()
    stats = RunStats()
    limit = asyncio.Semaphore(max(1, judge.concurrency))

    async def grade(item_id: str, reference: str, output: str | None, dimension: str) -> tuple[float | None, str]:
        messages: list[dict[str, Any]] = prompt.messages(dimension, str(reference), output or "")
        where = f"the judge request ({dimension}) for item {item_id!r}"
        reply = ""
        async with limit:
            for attempt in range(judge.max_repairs + 1):
                try:
                    reply = (await cached_complete(adapter, cache, prompt.cache_version, messages, stats, where)).text
                except RequestRefused as e:
                    stats.refused += 1
                    return None, f"[refused: {e}]"
                score = parse_judge_score(reply, prompt.name(dimension), prompt.scale)
                if score is not None or attempt == judge.max_repairs:
                    return score, reply
                messages = [
                    *messages,
                    {"role": "assistant", "content": reply},
                    {"role": "user", "content": prompt.repair(dimension)},
                ]
        return None, reply

    jobs = [grade(i, r, o, d) for i, r, o in zip(ids, references, outputs) for d in S.JUDGE_DIMENSIONS]
    results = await asyncio.gather(*jobs)
    per_item = []
    k = len(S.JUDGE_DIMENSIONS)
    for j, item_id in enumerate(ids):
        row: dict[str, Any] = {"id": item_id}
        for d, (score, reply) in zip(S.JUDGE_DIMENSIONS, results[j * k : (j + 1) * k]):
            row[d] = score
            row[f"{d}_reply"] = reply
        row["total"] = (
            None if any(row[d] is None for d in S.JUDGE_DIMENSIONS) else sum(row[d] for d in S.JUDGE_DIMENSIONS)
        )
        per_item.append(row)
    return {
        "judge": judge.name,
        "judge_prompt": prompt.version,
        "scale": list(prompt.scale),
        **summarise_judge(per_item),
        "per_item": per_item,
    }, stats


# ------------------------------------------------------------------------------ command line


def _write_new(obj: Any, path: Path) -> None:
    """Write JSON atomically; an existing file with other content is never overwritten."""
    from ..tables import write_text

    text = json.dumps(obj, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    if path.exists() and path.read_text(encoding="utf-8") != text:
        raise FileExistsError(
            f"{path} exists with other content; move it away or choose another --out "
            "(answers already collected are in the response cache: a rerun does not ask again)"
        )
    write_text(text, path)


async def _run(args: argparse.Namespace, config: Mapping[str, Any]) -> dict[str, Any]:
    name = args.model if args.command == "predict" else args.judge
    model = live_model(config, name)
    cache = ResponseCache(Path(config["collection"]["cache_dir"]) / model.name, f"emobench_m-{args.command}")
    items = S.read_items(args.items)
    try:
        async with httpx.AsyncClient() as client:
            adapter = ADAPTERS[model.kind](model, client, seed=int(config["seed"]))
            if args.command == "predict":
                root = Path(args.media_root) if args.media_root else Path(args.items).parent
                outputs, stats = await predict_items(
                    items, model, adapter, cache, root, args.modalities, args.max_frames, str(args.items)
                )
                _write_new(outputs, Path(args.out))
            else:
                aligned = S.align(items, S.read_predictions(args.predictions), missing="invalid")
                result, stats = await judge_live(
                    [it.id for it in items],
                    [str(it.gold) for it in items],
                    aligned,
                    model,
                    adapter,
                    cache,
                    JudgePrompt.load(args.judge_prompt),
                )
                _write_new(result, Path(args.out))
    finally:
        cache.close()
    return asdict(stats)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m eibench.public.emobench_m_live", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--configfile", default="config/config.yaml")
    parser.add_argument("--schema", default="config/schema/config.schema.yaml")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("predict", help="a live model's outputs for EmoBench-M-format items")
    p.add_argument("--model", required=True)
    p.add_argument("--items", required=True)
    p.add_argument("--out", required=True)
    p.add_argument(
        "--media-root", default=None, help="folder of the items' frames and audio (default: the items' folder)"
    )
    p.add_argument("--modalities", nargs="+", default=None, choices=media.MODALITIES)
    p.add_argument("--max-frames", type=int, default=8)
    j = sub.add_parser("judge", help="the LLM judge of Laughter Reasoning outputs")
    j.add_argument("--judge", required=True)
    j.add_argument("--items", required=True)
    j.add_argument("--predictions", required=True)
    j.add_argument("--out", required=True)
    j.add_argument("--judge-prompt", default="v1")
    args = parser.parse_args(argv)
    from ..configuration import load_schema, validate_config

    with open(args.configfile, encoding="utf-8") as fh:
        config = yaml.safe_load(fh)
    validate_config(config, load_schema(args.schema), Path.cwd())
    stats = asyncio.run(_run(args, config))
    print(json.dumps(stats), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
