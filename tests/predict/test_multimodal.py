"""Multimodal requests through the live adapters, against the fake LLM server: the exact payload
per API (OpenAI image_url data URL and input_audio; Anthropic base64 image blocks), a modality the
model does not accept stopped before any call (Anthropic audio named as such), size limits, media
files read by their bytes, deterministic frame selection, and the cache form of a request (the
media's sha256, no path, no bytes; text-only requests keep their keys)."""

from __future__ import annotations

import asyncio
import base64
import io
import wave

import httpx
import pytest
from eibench.configuration import load_schema, validate_config
from eibench.predict import media
from eibench.predict.adapters import ADAPTERS, LiveModel
from eibench.predict.cache import request_key
from PIL import Image

from ..conftest import REPO
from .fake_llm import ANTHROPIC_PATH, OPENAI_PATH, FakeLLM

KEY_ENV = "EIBENCH_TEST_MM_KEY"


def png_bytes(colour=(200, 30, 30), size=(8, 6)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format="PNG")
    return buf.getvalue()


def jpeg_bytes(colour=(10, 200, 30)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(buf, format="JPEG")
    return buf.getvalue()


def wav_bytes(n_frames=800) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(bytes(2 * n_frames))
    return buf.getvalue()


@pytest.fixture
def files(tmp_path):
    paths = {"png": tmp_path / "f1.png", "jpg": tmp_path / "f2.jpg", "wav": tmp_path / "a.wav"}
    paths["png"].write_bytes(png_bytes())
    paths["jpg"].write_bytes(jpeg_bytes())
    paths["wav"].write_bytes(wav_bytes())
    return paths


def model(llm, kind="openai_compatible", modalities=("text", "image", "audio"), **kw) -> LiveModel:
    endpoint = llm.base_url + "/v1" if kind == "openai_compatible" else llm.base_url
    return LiveModel(
        name=f"mm-{kind}",
        kind=kind,
        model_id="fake-mm",
        endpoint=endpoint,
        api_key_env=KEY_ENV,
        modalities=modalities,
        max_retries=0,
        **kw,
    )


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "test-key")


def ask(live: LiveModel, messages, where="the request"):
    async def go():
        async with httpx.AsyncClient() as client:
            return await ADAPTERS[live.kind](live, client).complete(messages, where)

    return asyncio.run(go())


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_openai_payload_shape(files):
    image, audio = media.read_media(files["png"], "image"), media.read_media(files["wav"], "audio")
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [image, audio, "What is the emotion?"]},
    ]
    with FakeLLM() as llm:
        done = ask(model(llm), messages)
        (request,) = llm.requests
    assert request["path"] == OPENAI_PATH and done.text
    assert request["body"]["messages"] == [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64(files["png"].read_bytes())}},
                {"type": "input_audio", "input_audio": {"data": b64(files["wav"].read_bytes()), "format": "wav"}},
                {"type": "text", "text": "What is the emotion?"},
            ],
        },
    ]


def test_anthropic_payload_shape(files):
    image = media.read_media(files["jpg"], "image")
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": [image, "Emotion?"]}]
    with FakeLLM() as llm:
        ask(model(llm, "anthropic", ("text", "image")), messages)
        (request,) = llm.requests
    assert request["path"] == ANTHROPIC_PATH
    assert request["body"]["system"] == "Be brief."
    assert request["body"]["messages"] == [
        {
            "role": "user",
            "content": [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/jpeg", "data": b64(files["jpg"].read_bytes())},
                },
                {"type": "text", "text": "Emotion?"},
            ],
        }
    ]


def test_text_only_payload_is_unchanged():
    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]
    with FakeLLM() as llm:
        ask(model(llm, modalities=("text",)), messages)
        ask(model(llm, "anthropic", ("text",)), messages)
        openai, anthropic = (r["body"] for r in llm.requests)
    assert openai["messages"] == messages
    assert anthropic["system"] == "S" and anthropic["messages"] == [{"role": "user", "content": "U"}]


def test_anthropic_audio_fails_before_any_call_naming_model_request_and_fix(files):
    audio = media.read_media(files["wav"], "audio")
    with FakeLLM() as llm:
        with pytest.raises(media.ModalityError) as err:
            ask(
                model(llm, "anthropic", ("text", "image")),
                [{"role": "user", "content": [audio, "Why?"]}],
                where="item 'c7' of items.json",
            )
        assert llm.count == 0
    message = str(err.value)
    assert "'mm-anthropic'" in message and "item 'c7' of items.json" in message
    assert "no audio input" in message and "openai_compatible" in message


def test_modality_not_declared_fails_before_any_call(files):
    image = media.read_media(files["png"], "image")
    with FakeLLM() as llm:
        with pytest.raises(media.ModalityError, match=r"does not accept image input.*config key 'modalities'"):
            ask(model(llm, modalities=("text",)), [{"role": "user", "content": [image, "?"]}])
        with pytest.raises(
            media.ModalityError,
            match=r"f1.png has \d+ bytes, more than the 20 allowed for model .mm-openai_compatible.",
        ):
            ask(model(llm, max_media_bytes=20), [{"role": "user", "content": [image, "?"]}])
        assert llm.count == 0


def test_media_type_comes_from_the_bytes_and_bad_files_are_named(tmp_path, files):
    disguised = tmp_path / "frame.jpg"
    disguised.write_bytes(files["png"].read_bytes())
    assert media.read_media(disguised, "image").media_type == "image/png"
    text = tmp_path / "notes.png"
    text.write_text("not an image")
    with pytest.raises(media.MediaError, match=r"notes.png: not a JPEG, PNG, GIF or WebP image"):
        media.read_media(text, "image")
    with pytest.raises(media.MediaError, match=r"missing.wav: no such audio file"):
        media.read_media(tmp_path / "missing.wav", "audio")
    with pytest.raises(media.MediaError, match="WAV or MP3"):
        media.read_media(files["png"], "audio")
    (tmp_path / "empty.png").write_bytes(b"")
    with pytest.raises(media.MediaError, match="empty"):
        media.read_media(tmp_path / "empty.png", "image")


def test_cache_form_holds_digests_not_paths_or_bytes(tmp_path, files):
    image = media.read_media(files["png"], "image")
    moved = tmp_path / "elsewhere" / "copy.png"
    moved.parent.mkdir()
    moved.write_bytes(files["png"].read_bytes())
    form = media.cache_form([{"role": "user", "content": [image, "Why?"]}])
    assert form == [
        {
            "role": "user",
            "content": [
                {"type": "image", "media_type": "image/png", "sha256": image.sha256, "bytes": len(image.data)},
                {"type": "text", "text": "Why?"},
            ],
        }
    ]
    identity = {"kind": "openai_compatible", "model_id": "m"}
    same = media.cache_form([{"role": "user", "content": [media.read_media(moved, "image"), "Why?"]}])
    assert request_key(identity, "v", same, 0) == request_key(identity, "v", form, 0)
    files["png"].write_bytes(png_bytes(colour=(0, 0, 255)))
    changed = media.cache_form([{"role": "user", "content": [media.read_media(files["png"], "image"), "Why?"]}])
    assert request_key(identity, "v", changed, 0) != request_key(identity, "v", form, 0)
    # text-only requests keep the keys they always had
    text = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]
    assert media.cache_form(text) == text


def test_select_frames_is_even_and_deterministic():
    frames = [f"f{i:02d}.jpg" for i in range(10)]
    assert media.select_frames(frames, 4) == ["f00.jpg", "f03.jpg", "f06.jpg", "f09.jpg"]
    assert media.select_frames(frames, 4) == media.select_frames(list(frames), 4)
    assert media.select_frames(frames, 1) == ["f04.jpg"]
    assert media.select_frames(frames[:3], 8) == frames[:3]
    with pytest.raises(ValueError):
        media.select_frames(frames, 0)


def test_config_declares_modalities(default_config):
    schema = load_schema(REPO / "config" / "schema" / "config.schema.yaml")
    config = dict(default_config)
    config["models"] = [
        *default_config["models"],
        {
            "name": "vision",
            "kind": "openai_compatible",
            "model_id": "m",
            "modalities": ["image"],
            "max_media_bytes": 1000000,
        },
    ]
    validate_config(config, schema, REPO)
    assert LiveModel.from_config(config["models"][-1]).modalities == ("text", "image")
    config["models"][-1] = {"name": "claude", "kind": "anthropic", "model_id": "m", "modalities": ["text", "audio"]}
    with pytest.raises(ValueError, match=r"\(claude\): modalities lists audio, but the Anthropic Messages API"):
        validate_config(config, schema, REPO)
    config["models"][-1] = {"name": "v", "kind": "openai_compatible", "model_id": "m", "modalities": ["video"]}
    with pytest.raises(ValueError, match="modalities"):
        validate_config(config, schema, REPO)
