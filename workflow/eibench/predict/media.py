"""Multimodal message content for the live adapters: images and audio as content parts.

A message's ``content`` is either a string (text only, as in the evaluation protocol) or a list
of parts in order, each a string (text) or a :class:`Media` (an image or an audio clip read from
a file). This module reads media files (type sniffed from the bytes, size-checked), checks a
request against what a model accepts before any call, renders the parts for each API (OpenAI:
``image_url`` with a base64 data URL, ``input_audio`` with ``{data, format}``; Anthropic:
``image`` blocks with a base64 source; Anthropic has no audio input), and gives the form used in
cache keys and stored requests, where every media part is its sha256, type and size (never the
path, never the bytes): the same bytes give the same key wherever the file lives, a changed file
gives a new key, and the cache stores no base64.

Video is sent as frames: the item provides them as image files (extracted beforehand, e.g. with
ffmpeg; see docs/collection.md), and :func:`select_frames` picks at most ``n`` of them, evenly
spaced, deterministically. Nothing here decodes video.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

MODALITIES = ("text", "image", "audio")
#: Modalities an API can carry at all; the model's config says which of them it accepts.
API_MODALITIES = {"openai_compatible": frozenset(MODALITIES), "anthropic": frozenset({"text", "image"})}
#: Largest media part (raw bytes) when the model's config sets no max_media_bytes: the
#: providers' documented per-image limits (Anthropic 5 MB, OpenAI 20 MB).
DEFAULT_MAX_MEDIA_BYTES = {"openai_compatible": 20 * 1024 * 1024, "anthropic": 5 * 1024 * 1024}

_IMAGE_MAGIC = (
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


class MediaError(ValueError):
    """A media file that cannot be sent (missing, empty, unknown type, too large)."""


class ModalityError(ValueError):
    """A request holds a modality its model does not accept; raised before any call."""


def _sniff_image(data: bytes) -> str | None:
    for magic, media_type in _IMAGE_MAGIC:
        if data.startswith(magic):
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _sniff_audio(data: bytes) -> str | None:
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "wav"
    if data.startswith(b"ID3") or (len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0):
        return "mp3"
    return None


@dataclass(frozen=True)
class Media:
    """One image or audio clip. ``media_type``: "image/jpeg|png|gif|webp" or, for audio, the
    OpenAI ``input_audio`` format ("wav" | "mp3"). ``source`` names the file in messages only."""

    kind: str
    media_type: str
    data: bytes = field(repr=False)
    source: str = ""
    sha256: str = field(init=False)

    def __post_init__(self) -> None:
        if self.kind not in ("image", "audio"):
            raise ValueError(f"media kind must be 'image' or 'audio', not {self.kind!r}")
        object.__setattr__(self, "sha256", hashlib.sha256(self.data).hexdigest())

    def b64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def digest(self) -> dict[str, Any]:
        """What a cache key and a stored request hold for this part."""
        return {"type": self.kind, "media_type": self.media_type, "sha256": self.sha256, "bytes": len(self.data)}


def read_media(path: str | Path, kind: str) -> Media:
    """An image (JPEG, PNG, GIF, WebP) or an audio clip (WAV, MP3) from a file, its type read from
    the bytes (not the name). :class:`MediaError` names the file, what is wrong and the fix."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise MediaError(f"{path}: no such {kind} file (check the item's path and the media root)") from None
    except IsADirectoryError:
        raise MediaError(f"{path}: is a folder, not an {kind} file") from None
    if not data:
        raise MediaError(f"{path}: the {kind} file is empty")
    if kind == "image":
        media_type = _sniff_image(data)
        fix = "convert it to JPEG or PNG (e.g. ffmpeg -i in -q:v 2 out.jpg)"
    elif kind == "audio":
        media_type = _sniff_audio(data)
        fix = "convert it to WAV or MP3 (e.g. ffmpeg -i in.mp4 -vn -ac 1 -ar 16000 out.wav)"
    else:
        raise ValueError(f"media kind must be 'image' or 'audio', not {kind!r}")
    if media_type is None:
        raise MediaError(
            f"{path}: not a {'JPEG, PNG, GIF or WebP image' if kind == 'image' else 'WAV or MP3 file'} "
            f"(first bytes {data[:12]!r}); {fix}"
        )
    return Media(kind, media_type, data, str(path))


def select_frames(frames: Sequence[str], n: int) -> list[str]:
    """At most ``n`` of the frames, evenly spaced, first and last included (n >= 2), in order.
    Deterministic: the same list gives the same frames. ``n < 1`` is an error."""
    if n < 1:
        raise ValueError(f"the number of frames must be at least 1, not {n}")
    if len(frames) <= n:
        return list(frames)
    if n == 1:
        return [frames[(len(frames) - 1) // 2]]
    step = (len(frames) - 1) / (n - 1)
    return [frames[round(i * step)] for i in range(n)]


def parts(content: Any) -> list[str | Media]:
    """The parts of a message content (a string is one text part)."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, (list, tuple)):
        for part in content:
            if not isinstance(part, (str, Media)):
                raise TypeError(f"a content part must be a string or a Media, not {type(part).__name__}")
        return list(content)
    raise TypeError(f"message content must be a string or a list of parts, not {type(content).__name__}")


def modalities_of(messages: Iterable[dict[str, Any]]) -> set[str]:
    """The modalities a request uses ("text" always)."""
    used = {"text"}
    for message in messages:
        used.update(p.kind for p in parts(message["content"]) if isinstance(p, Media))
    return used


def check_request(model: Any, messages: Sequence[dict[str, Any]], where: str = "request") -> None:
    """:class:`ModalityError` when the request holds a modality ``model`` (a ``LiveModel``) does
    not accept, or a part larger than its ``max_media_bytes``. The message names the model, the
    request (``where``, e.g. "item 'c1' of items.json") and the fix."""
    accepted = set(model.modalities)
    for modality in sorted(modalities_of(messages) - accepted):
        if modality not in API_MODALITIES[model.kind]:
            fix = (
                "the Anthropic Messages API has no audio input: send the audio's transcript as text (leave "
                "'audio' out of the run's modalities), or use an openai_compatible model that takes "
                "input_audio"
                if modality == "audio"
                else f"the {model.kind} API cannot carry {modality}"
            )
        else:
            fix = (
                f"if the endpoint takes {modality}, add it to the model's config key 'modalities' "
                f"(now {list(model.modalities)}); otherwise leave {modality!r} out of the run's modalities"
            )
        raise ModalityError(
            f"model {model.name!r} ({model.kind}, {model.model_id}) does not accept {modality} "
            f"input, which {where} holds; {fix}"
        )
    limit = model.max_media_bytes or DEFAULT_MAX_MEDIA_BYTES[model.kind]
    for message in messages:
        for part in parts(message["content"]):
            if isinstance(part, Media) and len(part.data) > limit:
                raise ModalityError(
                    f"{where}: {part.kind} {part.source or part.sha256[:12]} has {len(part.data):,} bytes, more than "
                    f"the {limit:,} allowed for model {model.name!r}; downscale or re-encode it (or set the "
                    "model's max_media_bytes if its endpoint takes more)"
                )


def cache_form(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages as they enter a cache key and a stored request: text-only contents are kept
    as they are (so text requests keep the keys they always had); a list of parts becomes a list
    of ``{"type": "text", "text"}`` and :meth:`Media.digest` entries. No path, no bytes."""
    out = []
    for message in messages:
        content = message["content"]
        if not isinstance(content, str):
            content = [{"type": "text", "text": p} if isinstance(p, str) else p.digest() for p in parts(content)]
        out.append({**message, "content": content})
    return out


def openai_content(content: Any) -> Any:
    """OpenAI chat-completions content: a string as is; parts as ``text``, ``image_url`` (a
    base64 data URL) and ``input_audio`` (``{data, format}``) entries."""
    if isinstance(content, str):
        return content
    out: list[dict[str, Any]] = []
    for part in parts(content):
        if isinstance(part, str):
            out.append({"type": "text", "text": part})
        elif part.kind == "image":
            out.append({"type": "image_url", "image_url": {"url": f"data:{part.media_type};base64,{part.b64()}"}})
        else:
            out.append({"type": "input_audio", "input_audio": {"data": part.b64(), "format": part.media_type}})
    return out


def anthropic_content(content: Any) -> Any:
    """Anthropic Messages content: a string as is; parts as ``text`` and ``image`` blocks (base64
    source with its media type). Audio cannot be sent (:func:`check_request` stops it first)."""
    if isinstance(content, str):
        return content
    out: list[dict[str, Any]] = []
    for part in parts(content):
        if isinstance(part, str):
            out.append({"type": "text", "text": part})
        elif part.kind == "image":
            out.append(
                {"type": "image", "source": {"type": "base64", "media_type": part.media_type, "data": part.b64()}}
            )
        else:
            raise ModalityError("the Anthropic Messages API has no audio input")
    return out


def text_of(content: Any) -> str:
    """The text parts of a content, joined by newlines."""
    return "\n".join(p for p in parts(content) if isinstance(p, str))
