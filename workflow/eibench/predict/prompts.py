"""The versioned prompt set, rendered into the requests of the evaluation protocol.

``PromptSet.load("v1")`` reads ``prompts/v1.yaml``. ``requests_for(view, mode, strategy)``
returns every request of one conversation: per turn t a draft (history and the message at t
only), the emotion tags and the four behaviour-question sets (turns 1..t with the OM reply at
t), the pairwise picks (history and the message at t, replies masked as A/B); after the last
turn the post-chat PANAS (one strategy) and the conversation-wide answers, and the post-chat
ratings when the cohort has them (``ConversationView.rating_items``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from string import Template
from typing import Any

import yaml

from .. import instrument
from .conversation import ConversationView, TurnView

TURN_TASKS = (
    "draft",
    "emotions",
    "binary_om_observer",
    "binary_hp_observer",
    "binary_om_participant",
    "binary_hp_participant",
    "pairwise",
)
PANAS_TASKS = {"absolute": "post_panas_absolute", "delta": "post_panas_delta", "blind_delta": "post_panas_blind_delta"}
OMNISCIENT = ("omniscient", "verbose_omniscient")


def read_prompt_file(file_name: str, version: str, what: str = "prompt set") -> tuple[str, dict[str, Any]]:
    """The text and parsed YAML of ``prompts/<file_name>`` (this package's versioned prompt data),
    checked to declare ``version``; FileNotFoundError / ValueError name the file and the version."""
    path = resources.files(__package__).joinpath("prompts", file_name)
    if not path.is_file():
        raise FileNotFoundError(f"{what} {version!r} not found (expected {path})")
    text = path.read_text(encoding="utf-8")
    raw = yaml.safe_load(text)
    if raw.get("version") != version:
        raise ValueError(f"{what} file {path} declares version {raw.get('version')!r}, not {version!r}")
    return text, raw


@dataclass(frozen=True)
class Request:
    """One question to a model: its task, where it belongs and the chat messages.

    ``expect`` lists what a valid answer must contain (question ids, comparison positions, PANAS
    items or post-chat rating items) in the order they were asked.
    """

    conversation_id: str
    turn_number: int | None  # None for the post-conversation tasks
    task: str
    messages: tuple[dict[str, str], ...]
    expect: tuple[str, ...] = ()


@dataclass(frozen=True)
class PromptSet:
    version: str
    raw: dict[str, Any]
    digest: str  # sha256 (first 16 hex) of the prompt file and the instrument texts it shows

    @classmethod
    @cache
    def load(cls, version: str) -> "PromptSet":
        text, raw = read_prompt_file(f"{version}.yaml", version)
        instrument_files = resources.files(instrument.__name__)
        digest = hashlib.sha256(text.encode())
        for name in (
            "binary_questions.csv",
            "pairwise_questions.csv",
            "panas_items.csv",
            "survey_options.json",
            "post_chat_ratings.csv",
        ):
            digest.update(instrument_files.joinpath(name).read_bytes())
        return cls(version, raw, digest.hexdigest()[:16])

    def _system(self, task: str, template_task: str, mode: str, view: ConversationView) -> str:
        spec = self.raw["tasks"][template_task]
        if "system" in spec:
            text = Template(spec["system"]).substitute(task=task)
        else:
            text = Template(self.raw["system"]).substitute(
                task=task, mode_instructions=self.raw["mode_instructions"][mode]
            )
        if mode in OMNISCIENT:
            totals = view.pre_panas_totals
            text += "\n" + Template(self.raw["profile"]).substitute(
                age=view.profile.get("age", "unknown"),
                traits=view.profile.get("traits", "none"),
                goals=view.profile.get("goals", "not given"),
                pre_positive=self._num(totals.get("positive")),
                pre_negative=self._num(totals.get("negative")),
            )
        return text.strip()

    def _transcript(self, turns: list[TurnView]) -> str:
        tpl = Template(self.raw["transcript_turn"])
        return "".join(
            tpl.substitute(turn=t.turn_number, user=t.user_message, assistant=t.om_reply) for t in turns
        ).strip()

    def _request(
        self,
        view: ConversationView,
        turn_number: int | None,
        task: str,
        mode: str,
        expect: tuple[str, ...] = (),
        **values: Any,
    ) -> Request:
        template_task = task.rsplit("_", 1)[0] if task.startswith("binary_") else task
        user = Template(self.raw["tasks"][template_task]["user"]).substitute(**values).strip()
        messages = (
            {"role": "system", "content": self._system(task, template_task, mode, view)},
            {"role": "user", "content": user},
        )
        return Request(view.conversation_id, turn_number, task, messages, expect)

    def turn_requests(self, view: ConversationView, turn: TurnView, mode: str) -> list[Request]:
        """The requests of turn ``turn``: they see turns 1..t only."""
        t = turn.turn_number
        history = self._transcript(view.history(t)) or self.raw["first_turn"]
        upto = self._transcript(view.upto(t))
        panas_words = ", ".join(i.name for i in instrument.panas_items())
        out = [
            self._request(view, t, "draft", mode, history=history, turn=t, user=turn.user_message),
            self._request(view, t, "emotions", mode, transcript=upto, turn=t, panas_words=panas_words),
        ]
        questions = {q["question_id"]: q for q in instrument.binary_questions()}
        asked = instrument.binary_question_ids()  # all 36 behaviour questions
        for target in ("om", "hp"):
            for wording, column in (("observer", "text_observer"), ("participant", "text_participant")):
                listing = "\n".join(f"{q}: {questions[q][column]}" for q in asked)
                out.append(
                    self._request(
                        view,
                        t,
                        f"binary_{target}_{wording}",
                        mode,
                        asked,
                        transcript=upto,
                        turn=t,
                        questions=listing,
                        keys=", ".join(asked),
                    )
                )
        if turn.comparisons:
            question_text = {q["question_id"]: q["text"] for q in instrument.pairwise_questions()}
            block = Template(self.raw["comparison"])
            missing = self.raw["missing_reply"]
            blocks = [
                block.substitute(
                    position=c.position,
                    question=question_text.get(c.question_id, c.question_id),
                    reply_a=c.text_a or missing,
                    reply_b=c.text_b or missing,
                )
                for c in turn.comparisons
            ]
            keys = tuple(str(c.position) for c in turn.comparisons)
            out.append(
                self._request(
                    view,
                    t,
                    "pairwise",
                    mode,
                    keys,
                    history=history,
                    turn=t,
                    user=turn.user_message,
                    comparisons="\n".join(blocks),
                    keys=", ".join(keys),
                )
            )
        return out

    def post_requests(self, view: ConversationView, mode: str, strategy: str) -> list[Request]:
        """The post-conversation requests: PANAS (one strategy), the conversation-wide answers and,
        for a cohort with post-chat ratings, those ratings."""
        transcript = self._transcript(view.turns)
        items = tuple(i.name for i in instrument.panas_items())
        pre = "\n".join(f"{name}: {self._num(view.pre_panas_items.get(name))}" for name in items)
        options = instrument.survey_options()
        out = [
            self._request(
                view,
                None,
                PANAS_TASKS[strategy],
                mode,
                items,
                transcript=transcript,
                items=", ".join(items),
                pre_items=pre,
            ),
            self._request(
                view,
                None,
                "conversation_wide",
                mode,
                (),
                transcript=transcript,
                q1_options=" | ".join(options["q1_lookingFor"]),
                q2_options=" | ".join(options["q2_emotionClarity"]),
                q3_options=" | ".join(options["q3_modelFit"]),
            ),
        ]
        if view.rating_items:
            rating = instrument.rating_items()
            questions = "\n".join(
                f"{name} ({rating[name].low}..{rating[name].high}): {rating[name].question}"
                for name in view.rating_items
            )
            out.append(
                self._request(
                    view,
                    None,
                    "post_chat_ratings",
                    mode,
                    view.rating_items,
                    transcript=transcript,
                    questions=questions,
                    items=", ".join(view.rating_items),
                )
            )
        return out

    def conversation_requests(self, view: ConversationView, mode: str, strategy: str) -> list[Request]:
        """Every request of a conversation, turn by turn, then the post-conversation ones (none
        for a conversation without turns: there is nothing to read)."""
        if not view.turns:
            return []
        out = [r for turn in view.turns for r in self.turn_requests(view, turn, mode)]
        return out + self.post_requests(view, mode, strategy)

    @staticmethod
    def count_requests(view: ConversationView) -> int:
        """How many requests ``conversation_requests`` makes for ``view`` (without building them)."""
        if not view.turns:
            return 0
        return sum(6 + bool(t.comparisons) for t in view.turns) + 2 + bool(view.rating_items)

    def _num(self, value: Any) -> str:
        if value is None:
            return self.raw["unknown"]
        return str(int(value)) if float(value).is_integer() else f"{value:g}"
