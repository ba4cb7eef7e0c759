"""Live EmoBench-M runs against the fake LLM server: items with frames and audio through the
adapters and the response cache (cache hit on rerun, a changed frame asks again, moved media
do not), every item checked before the first call, the outputs scored with the scenario's label
set, and the live LR judge (versioned prompt, score parsing, repairs, invalid accounting)."""

from __future__ import annotations

import asyncio
import json
import math

import httpx
import pytest
import yaml
from eibench.predict import media
from eibench.predict.adapters import ADAPTERS, LiveModel
from eibench.predict.cache import ResponseCache, read_journal, read_sqlite
from eibench.public import emobench_m_live as L
from eibench.public import emobench_m_scoring as S

from ..conftest import REPO
from ..predict.fake_llm import JUDGE_TASK, MALFORMED_TEXT, FakeLLM
from ..predict.test_multimodal import png_bytes, wav_bytes

DATA = REPO / "tests" / "data" / "emobench_m"
KEY_ENV = "EIBENCH_TEST_LIVE_KEY"
PROMPT = (
    "<video>\nThe person in video says: I did not expect that. Determine the emotion. Choose one of the "
    "following labels as your final answer: happy, sad, neutral, angry, worried, surprise. Respond in the "
    "format: {'emotion': 'label'}."
)
GOLDS = ["surprise", "worried", "happy", "sad"]


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "k")


@pytest.fixture
def items_file(tmp_path):
    """Four FGDEA-shaped items, each with five frames and an audio track under media/."""
    root = tmp_path / "media"
    root.mkdir()
    raw = []
    for i, gold in enumerate(GOLDS):
        frames = []
        for k in range(5):
            name = f"v{i}_{k}.png"
            (root / name).write_bytes(png_bytes(colour=(40 * i, 50 * k, 7)))
            frames.append(name)
        (root / f"v{i}.wav").write_bytes(wav_bytes(400 + i))
        raw.append(
            {
                "id": f"v{i}",
                "video": f"v{i}.mp4",
                "frames": frames,
                "audio": f"v{i}.wav",
                "conversations": [{"from": "human", "value": PROMPT}, {"from": "gpt", "value": gold}],
            }
        )
    path = tmp_path / "items.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def live(llm, kind="openai_compatible", modalities=("text", "image", "audio"), name="omni", **kw) -> LiveModel:
    endpoint = llm.base_url + "/v1" if kind == "openai_compatible" else llm.base_url
    return LiveModel(
        name=name,
        kind=kind,
        model_id="fake",
        endpoint=endpoint,
        api_key_env=KEY_ENV,
        modalities=modalities,
        max_retries=0,
        **kw,
    )


def predict(model, items, cache_dir, root, **kw):
    async def go():
        cache = ResponseCache(cache_dir, "emobench_m-predict")
        try:
            async with httpx.AsyncClient() as client:
                return await L.predict_items(items, model, ADAPTERS[model.kind](model, client), cache, root, **kw)
        finally:
            cache.close()

    return asyncio.run(go())


def judge(model, ids, refs, outs, cache_dir, prompt=None):
    async def go():
        cache = ResponseCache(cache_dir, "emobench_m-judge")
        try:
            async with httpx.AsyncClient() as client:
                return await L.judge_live(ids, refs, outs, model, ADAPTERS[model.kind](model, client), cache, prompt)
        finally:
            cache.close()

    return asyncio.run(go())


# ------------------------------------------------------------------------------ predictions


def test_items_go_with_frames_and_audio_and_rerun_from_the_cache(items_file, tmp_path):
    items = S.read_items(items_file)
    root = items_file.parent / "media"
    with FakeLLM() as llm:
        model = live(llm)
        outputs, stats = predict(model, items, tmp_path / "cache", root, max_frames=3)
        assert (stats.calls, stats.cache_hits, llm.count) == (4, 0, 4)
        content = llm.requests[0]["body"]["messages"][0]["content"]
        assert [p["type"] for p in content] == ["image_url"] * 3 + ["input_audio", "text"]
        assert content[-1]["text"] == S.read_items(items_file)[0].prompt  # no <video> token
        again, stats2 = predict(model, items, tmp_path / "cache", root, max_frames=3)
        assert again == outputs and (stats2.calls, stats2.cache_hits, llm.count) == (0, 4, 4)
    # the fake answers with a label of the prompt: every output is valid, scored with FGDEA's set
    score = S.score_scenario("FGDEA", items, S.align(items, outputs))
    assert (score["n"], score["n_invalid"]) == (4, 0)
    assert 0 <= score["accuracy"] <= 1


def test_the_cache_stores_digests_not_base64(items_file, tmp_path):
    items = S.read_items(items_file)
    with FakeLLM() as llm:
        predict(live(llm), items, tmp_path / "cache", items_file.parent / "media")
    records, damaged = read_journal(tmp_path / "cache" / "emobench_m-predict.jsonl")
    assert damaged == 0
    requests = [json.loads(r.request) for r in records]
    published = [json.loads(r.request) for r in read_sqlite(tmp_path / "cache" / "emobench_m-predict.snapshot.sqlite")]
    assert sorted(map(json.dumps, published)) == sorted(map(json.dumps, requests))
    assert len(requests) == 4
    parts = requests[0]["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["image"] * 5 + ["audio", "text"]
    assert all(len(p["sha256"]) == 64 and "data" not in p for p in parts[:-1])
    assert all(len(json.dumps(r)) < 3000 for r in requests)  # no media bytes in a stored request


def test_a_changed_frame_asks_again_moved_media_do_not(items_file, tmp_path):
    items = S.read_items(items_file)
    root = items_file.parent / "media"
    moved = tmp_path / "moved"
    root.rename(moved)
    with FakeLLM() as llm:
        model = live(llm)
        first, _ = predict(model, items, tmp_path / "cache", moved)
        (moved / "v2_4.png").write_bytes(png_bytes(colour=(255, 255, 255)))  # one frame of item v2 changes
        second, stats = predict(model, items, tmp_path / "cache", moved)
        assert (stats.calls, stats.cache_hits) == (1, 3)
        changed = llm.requests[-1]["body"]["messages"][0]["content"]
        assert changed[-1]["text"] == items[2].prompt
        assert {k: v for k, v in second.items() if k != "v2"} == {k: v for k, v in first.items() if k != "v2"}
        moved.rename(tmp_path / "again")  # same bytes at another place: the cache answers
        _, stats = predict(model, items, tmp_path / "cache", tmp_path / "again")
        assert stats.calls == 0 and llm.count == 5


def test_every_item_is_checked_before_the_first_call(items_file, tmp_path):
    items = S.read_items(items_file)
    root = items_file.parent / "media"
    with FakeLLM() as llm:
        with pytest.raises(
            media.ModalityError,
            match=r"'claude' \(anthropic, fake\) does not accept audio input, "
            r"which item 'v0' of items.json holds; the Anthropic",
        ):
            predict(
                live(llm, "anthropic", ("text", "image"), name="claude"),
                items,
                tmp_path / "c",
                root,
                modalities=("text", "image", "audio"),
                source="items.json",
            )
        with pytest.raises(media.ModalityError, match="does not accept image input"):
            predict(live(llm, modalities=("text",)), items, tmp_path / "c", root, modalities=("text", "image"))
        (root / "v3.wav").unlink()  # the last item's audio is missing
        with pytest.raises(media.MediaError, match=r"item 'v3' of items.json: .*v3.wav: no such audio file"):
            predict(live(llm), items, tmp_path / "c", root, source="items.json")
        bare = [S.Item("b1", "b1.mp4", "Emotion?", "happy")]
        with pytest.raises(S.ItemFormatError, match=r"item 'b1'.*field 'frames'.*ffmpeg -i b1.mp4 -vf fps=1"):
            predict(live(llm), bare, tmp_path / "c", root, modalities=("text", "image"))
        assert llm.count == 0
        # the Anthropic model takes the frames when the run leaves the audio out
        outputs, stats = predict(
            live(llm, "anthropic", ("text", "image"), name="claude"), items[:3], tmp_path / "c", root
        )
        assert stats.calls == 3 and all(outputs.values())
        assert [b["type"] for b in llm.requests[0]["body"]["messages"][0]["content"]] == ["image"] * 5 + ["text"]


def test_text_only_run_and_reruns_are_identical(items_file, tmp_path):
    items = S.read_items(items_file)
    with FakeLLM() as llm:
        a, _ = predict(live(llm, modalities=("text",)), items, tmp_path / "c1", tmp_path)
        b, _ = predict(live(llm, modalities=("text",)), items, tmp_path / "c2", tmp_path)
        assert llm.requests[0]["body"]["messages"] == [{"role": "user", "content": items[0].prompt}]
    assert json.dumps(a) == json.dumps(b)  # a fresh cache gets the same bytes


def test_live_model_comes_from_the_registry(default_config):
    config = {
        **default_config,
        "models": [*default_config["models"], {"name": "judge", "kind": "openai_compatible", "model_id": "m"}],
    }
    assert L.live_model(config, "judge").model_id == "m"
    with pytest.raises(ValueError, match="has no model 'nope'"):
        L.live_model(config, "nope")
    with pytest.raises(ValueError, match="kind 'simulated' is not a live model"):
        L.live_model(config, "sim-01")


# ------------------------------------------------------------------------------ the judge


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Logical Judgment Dimension: 4", 4.0),
        ("**Logical Judgment Dimension:** 5", 5.0),
        ("logical judgment dimension : 3.5\nbecause...", 3.5),
        ("Logical Judgment Dimension: 7", None),  # outside the scale
        ("Logical Judgment Dimension: 0", None),
        ("I would say four.", None),
        ("", None),
    ],
)
def test_parse_judge_score(reply, expected):
    assert L.parse_judge_score(reply, "Logical Judgment Dimension", (1, 5)) == expected


def test_judge_prompt_file_renders_both_dimensions():
    prompt = L.JudgePrompt.load("v1")
    assert prompt.scale == (1, 5)
    assert prompt.cache_version.startswith("emobench-m-judge/v1/") and len(prompt.digest) == 16
    messages = prompt.messages("multimodal", "REF TEXT", "CAND TEXT")
    assert messages[0]["content"].startswith(f"TASK: {JUDGE_TASK}")
    assert "integer from 1 to 5" in messages[0]["content"]
    user = messages[1]["content"]
    assert "REF TEXT" in user and "CAND TEXT" in user
    assert user.endswith("Multimodal Content Association Dimension: <score>")
    with pytest.raises(FileNotFoundError, match="judge prompt 'v9'"):
        L.JudgePrompt.load("v9")


def test_live_judge_scores_every_item_and_reruns_from_the_cache(tmp_path):
    items = S.read_items(DATA / "smile_items.json")
    outputs = S.align(items, S.read_predictions(DATA / "smile_predictions.json"))
    ids, refs = [it.id for it in items], [it.gold for it in items]
    with FakeLLM() as llm:
        model = live(llm, modalities=("text",), name="judge")
        result, stats = judge(model, ids, refs, outputs, tmp_path / "cache")
        assert stats.calls == 4 == llm.count  # two items x two dimensions
        assert {r["task"] for r in llm.requests} == {JUDGE_TASK}
        first_user = llm.requests[0]["body"]["messages"][1]["content"]
        assert refs[0] in first_user or refs[1] in first_user
        again, stats2 = judge(model, ids, refs, outputs, tmp_path / "cache")
        assert (stats2.calls, stats2.cache_hits, llm.count) == (0, 4, 4) and again == result
    assert (result["n"], result["n_valid"], result["n_invalid"], result["scale"]) == (2, 2, 0, [1, 5])
    rows = result["per_item"]
    assert all(1 <= r[d] <= 5 for r in rows for d in S.JUDGE_DIMENSIONS)
    assert result["logic"] == pytest.approx(sum(r["logic"] for r in rows) / 2)
    assert result["total"] == pytest.approx(sum(r["total"] for r in rows) / 2)
    assert result["total_upstream"] == pytest.approx(result["total"])  # nothing invalid: the same


def test_live_judge_repairs_then_accounts_invalid_replies(tmp_path):
    ids, refs, outs = ["a", "b"], ["The audience laughed because of a pun."] * 2, ["pun", None]
    with FakeLLM() as llm:
        model = live(llm, modalities=("text",), name="judge", max_repairs=1)
        llm.inject("malformed", task=JUDGE_TASK)  # one unreadable reply: repaired
        result, stats = judge(model, ids, refs, outs, tmp_path / "c1")
        assert stats.calls == 5 and result["n_invalid"] == 0
        repair = [r for r in llm.requests if len(r["body"]["messages"]) == 4]
        assert len(repair) == 1 and repair[0]["body"]["messages"][2]["content"] == MALFORMED_TEXT
        llm.reset()
        llm.always("malformed", task=JUDGE_TASK)  # never readable: invalid after the repair
        bad, stats = judge(model, ids, refs, outs, tmp_path / "c2")
        assert stats.calls == 8  # 2 items x 2 dimensions x (1 + 1 repair)
    assert (bad["n_valid"], bad["n_invalid"], bad["invalid_rate"]) == (0, 2, 1.0)
    assert math.isnan(bad["logic"]) and math.isnan(bad["total"])
    assert bad["logic_upstream"] == 0.0 and bad["total_upstream"] == 0.0  # upstream counts them as 0
    assert bad["per_item"][0]["logic"] is None and bad["per_item"][0]["logic_reply"] == MALFORMED_TEXT


def test_summarise_judge_by_hand():
    rows = [{"logic": 4.0, "multimodal": 2.0}, {"logic": None, "multimodal": 5.0}, {"logic": 3.0, "multimodal": 3.0}]
    s = L.summarise_judge(rows)
    assert (s["n"], s["n_valid"], s["n_invalid"]) == (3, 2, 1)
    assert s["logic"] == pytest.approx(3.5) and s["multimodal"] == pytest.approx(10 / 3)
    assert s["total"] == pytest.approx((6 + 6) / 2)
    assert s["logic_upstream"] == pytest.approx(7 / 3) and s["total_upstream"] == pytest.approx(17 / 3)


# ------------------------------------------------------------------------------ command line


def test_command_line_predict_and_judge(items_file, tmp_path, default_config, monkeypatch):
    monkeypatch.chdir(REPO)
    with FakeLLM() as llm:
        config = {
            **default_config,
            "models": [
                *default_config["models"],
                {
                    "name": "omni",
                    "kind": "openai_compatible",
                    "model_id": "fake",
                    "api_key_env": KEY_ENV,
                    "endpoint": llm.base_url + "/v1",
                    "modalities": ["image", "audio"],
                },
            ],
            "collection": {**default_config["collection"], "cache_dir": str(tmp_path / "cache")},
        }
        cfg = tmp_path / "config.yaml"
        cfg.write_text(yaml.safe_dump(config), encoding="utf-8")
        out = tmp_path / "predictions.json"
        args = [
            "--configfile",
            str(cfg),
            "predict",
            "--model",
            "omni",
            "--items",
            str(items_file),
            "--out",
            str(out),
            "--media-root",
            str(items_file.parent / "media"),
            "--max-frames",
            "2",
        ]
        assert L.main(args) == 0 and llm.count == 4
        written = out.read_bytes()
        assert set(S.read_predictions(out)) == {"v0", "v1", "v2", "v3"}
        assert L.main(args) == 0 and llm.count == 4 and out.read_bytes() == written  # from the cache
        out.write_text("{}", encoding="utf-8")  # a file with other content is never overwritten
        with pytest.raises(FileExistsError, match="predictions.json exists with other content"):
            L.main(args)
        assert out.read_text(encoding="utf-8") == "{}"
        smile_out = tmp_path / "judge.json"
        assert (
            L.main(
                [
                    "--configfile",
                    str(cfg),
                    "judge",
                    "--judge",
                    "omni",
                    "--items",
                    str(DATA / "smile_items.json"),
                    "--predictions",
                    str(DATA / "smile_predictions.json"),
                    "--out",
                    str(smile_out),
                ]
            )
            == 0
        )
        assert json.loads(smile_out.read_text())["n_valid"] == 2


def test_unknown_token_usage_is_counted_not_a_crash():
    """issue 17: a usage count of 1e400 in a 200 answer is unknown, never a TypeError."""
    import asyncio

    import httpx
    from eibench.predict.adapters import ADAPTERS, LiveModel
    from eibench.predict.cache import ResponseCache
    from eibench.public.emobench_m_live import RunStats, cached_complete

    def handler(request: httpx.Request) -> httpx.Response:
        body = (
            b'{"choices": [{"message": {"content": "joy"}}], "usage": {"prompt_tokens": 1e400, "completion_tokens": 2}}'
        )
        return httpx.Response(200, content=body)

    model = LiveModel.from_config(
        {
            "name": "m",
            "kind": "openai_compatible",
            "model_id": "x",
            "endpoint": "http://loopback.invalid/v1",
            "price_input_per_million": 1.0,
        }
    )
    stats = RunStats()

    async def run(cache):
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            return await cached_complete(
                ADAPTERS["openai_compatible"](model, client),
                cache,
                "v1",
                [{"role": "user", "content": "hi"}],
                stats,
                "item 1",
            )

    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        cache = ResponseCache(folder, "emobench_m-predict")
        try:
            done = asyncio.run(run(cache))
        finally:
            cache.close()
    assert done.text == "joy" and done.input_tokens is None and done.output_tokens == 2
    assert stats.usage_unknown == 1 and stats.output_tokens == 2 and stats.cost_usd == 0.0
