"""The numbers that describe any cohort in the title, abstract and data section: its name,
source, citation and description (config ``cohorts.<cohort>.about``), the models by kind, and
the pillars the composite covers. The data caveats (kinds of annotation absent from the cohort)
are the entries ``absent_kinds`` / ``n_absent_kinds`` beside them; an ESConv cohort adds its
adapter's counts (``esconv_numbers``)."""

from __future__ import annotations

from typing import Mapping

import pandas as pd

from ..metrics.composite import PILLAR_WEIGHTS
from ..metrics.registry import BY_NAME
from ..public.esconv import PROVIDER as ESCONV_PROVIDER
from .numbers import Numbers, int_display, plural

RULE, AGG, INGEST = "paper_numbers", "aggregate_scores", "ingest_conversations"

#: How the paper names each kind of ``models`` entry (eibench.cohorts.MODEL_KINDS): singular, plural.
#: A live model is named more closely where the run says how it was served and where its answers
#: came from (``LIVE_WORDS``, ``SOURCE_WORDS``).
KIND_WORDS = {
    "simulated": ("simulated model", "simulated models"),
    "live": ("language model", "language models"),
    "outputs_dir": ("model read from its existing outputs", "models read from their existing outputs"),
    "baseline": ("offline baseline", "offline baselines"),
    "human": ("simulated human rater", "simulated human raters"),
}


#: A live model by where it is served (eibench.cohorts.live_served): singular, plural.
LIVE_WORDS = {
    "local": ("locally served language model", "locally served language models"),
    "api": ("language model behind an API", "language models behind an API"),
}

#: Where a live model's answers in this build came from (eibench.predict.summary.answers_source).
SOURCE_WORDS = {
    "record": "answers replayed from a committed record",
    "server": "answers asked live",
    "mixed": "answers partly replayed from a committed record, partly asked live",
    "none": "no answer used",
}


# The prior baseline's words, around what it knows of the participant's own other conversations.
_PRIOR = (
    "gives the most common gold answers of the other conversations of the cohort (the rounded mean for a "
    "rating), one conversation left out at a time, so it knows the population's answers"
)
_PRIOR_NEVER = "but never those of the conversation it answers"

#: How each baseline method answers (eibench/predict/baselines/), for the paper to say what a
#: baseline knows: the prior baseline reads the other conversations' gold, which no model does.
BASELINE_WORDS = {
    "chance": "answers at random, seeded from the configuration",
    "prior": f"{_PRIOR}, the participant's other conversations among them, {_PRIOR_NEVER}",
    "lexicon": "tags emotions from two word lists (EmoLex and VADER), answers the behaviour questions "
    "from surface cues of the reply (a question mark, advice phrasing) and knows of the gold only which "
    "questions are asked",
    "embedding": "gives the gold answers of the most similar turns of the other conversations, by "
    "sentence embedding, one conversation left out at a time",
}

#: The prior baseline's words for a cohort in which no participant has two conversations: there
#: is no other conversation of the participant for it to know.
PRIOR_ONE_CONVERSATION_EACH = f"{_PRIOR}, {_PRIOR_NEVER} (each participant has one conversation here)"


def add_baselines(nums: Numbers, methods: Mapping[str, str], several_per_participant: bool = True) -> None:
    """``models.baselines_described``: each baseline of the run by name with how its method
    answers (``BASELINE_WORDS``), e.g. 'chance answers at random, ...; prior gives ...'; 'none'
    without a baseline. Without ``several_per_participant`` (no participant has two
    conversations: ESConv's seekers, one per conversation) the prior baseline knows no other
    conversation of the participant (``PRIOR_ONE_CONVERSATION_EACH``). ``models.prior_baselines``:
    the names of the baselines of method prior ('none' without one), which read no conversation."""

    def words(method: str) -> str:
        if method == "prior" and not several_per_participant:
            return PRIOR_ONE_CONVERSATION_EACH
        return BASELINE_WORDS[method]

    nums.add(
        "models.baselines_described",
        "; ".join(f"{name} {words(method)}" for name, method in methods.items()) or "none",
        "paper_numbers",
        note="how each offline baseline answers (eibench/predict/baselines/)",
    )
    nums.add(
        "models.prior_baselines",
        ", ".join(name for name, method in methods.items() if method == "prior") or "none",
        "paper_numbers",
        note="the baselines that give the most common gold answers of the other conversations and read none",
    )


def joined(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'; '' for no item."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""


def models_described(counts: Mapping[str, int], live: Mapping[str, tuple[str, str]] | None = None) -> str:
    """The models of a run in words, e.g. '11 simulated models, 3 offline baselines and 3
    simulated human raters' (kinds in ``KIND_WORDS`` order, kinds with none left out; 'no model'
    when there is none). ``live`` ({live model: (where it is served, where its answers came
    from)}) names the live models by those, grouped in order of first appearance: '1 locally
    served language model (answers replayed from a committed record)'."""
    parts = []
    for k in KIND_WORDS:
        if not counts.get(k, 0):
            continue
        if k == "live" and live:
            groups: dict[tuple[str, str], int] = {}
            for key in live.values():
                groups[key] = groups.get(key, 0) + 1
            parts += [
                f"{n} {plural(n, *LIVE_WORDS[served])} ({SOURCE_WORDS[source]})"
                for (served, source), n in groups.items()
            ]
        else:
            parts.append(f"{counts[k]} {plural(counts[k], *KIND_WORDS[k])}")
    return joined(parts) or "no model"


def pillar_name(pillar: str) -> str:
    """'emotion tracking' for 'tracking': the registry's label without ' pillar', lower case."""
    return BY_NAME[pillar].label.removesuffix(" pillar").lower()


def covered_pillars(board: pd.DataFrame) -> list[str]:
    """The pillars (``PILLAR_WEIGHTS`` order) with a value for at least one row of ``board``
    (leaderboard rows: a pillar none of whose annotations the cohort has is NaN for every model)."""
    return [p for p in PILLAR_WEIGHTS if p in board and board[p].notna().any()]


def add_cohort(
    nums: Numbers,
    about: Mapping[str, str | None],
    kinds: Mapping[str, str],
    board: pd.DataFrame,
    live: Mapping[str, tuple[str, str]] | None = None,
) -> None:
    """Add ``cohort.<name|source|citation|description>`` (only those set), ``models.n_<kind>``
    for every kind, ``models.n_total``, ``models.described``, ``models.baselines`` (the
    baselines' names, or "none"), and ``composite.n_pillars``,
    ``composite.all_pillars`` and ``composite.pillars`` from the compared models' leaderboard rows
    ``board``. ``kinds`` maps each configured model to its kind (eibench.cohorts.model_kinds);
    ``live`` each live model to where it is served and where this build's answers came from
    (``models_described``)."""
    for key in ("name", "source", "citation", "description"):
        if about.get(key):
            nums.add(f"cohort.{key}", str(about[key]), RULE)
    counts = {k: sum(v == k for v in kinds.values()) for k in KIND_WORDS}
    for kind, n in counts.items():
        nums.add(f"models.n_{kind}", n, RULE)
    nums.add("models.n_total", len(kinds), RULE)
    nums.add("models.described", models_described(counts, live), RULE)
    nums.add("models.baselines", joined(sorted(m for m, k in kinds.items() if k == "baseline")) or "none", RULE)
    pillars = covered_pillars(board)
    nums.add("composite.n_pillars", len(pillars), AGG)
    nums.add("composite.all_pillars", len(pillars) == len(PILLAR_WEIGHTS), AGG)
    nums.add(
        "composite.pillars",
        joined([pillar_name(p) for p in pillars]) or "none",
        AGG,
        note="pillars with a value for at least one compared model",
    )


def add_post_chat_ratings(nums: Numbers, ratings: pd.DataFrame) -> None:
    """Add ``post_chat.n_conversations``, the conversations whose files hold post-chat ratings of
    the assistant (``postChatRatings``, an extension of the release format that the composite's
    holistic pillar includes: metrics/composite.py), and ``post_chat.items``, the items rated
    ("none" without any), from ``ratings``, the gold post_chat_ratings table. Every build has
    them: the paper says what the extension adds wherever a cohort has it, not in ESConv's
    section only."""
    nums.add(
        "post_chat.n_conversations",
        int(ratings["conversation_id"].nunique()),
        INGEST,
        note="conversations with post-chat ratings (postChatRatings, an extension of the release format)",
    )
    nums.add("post_chat.items", joined(sorted(str(i) for i in ratings["item"].dropna().unique())) or "none", INGEST)


#: The most values of a metadata field that a tally names; the rest are counted together.
TALLY_NAMED = 3


def quoted(value: str) -> str:
    """``value`` in double quotes, as the paper names a value the files give."""
    return f'"{value}"'


def _named_counts(values: pd.Series) -> list[tuple[str, int]]:
    """The values given (null and blank left out), each with its count, most frequent first and
    ties by value."""
    text = values.astype("string").str.strip().replace("", pd.NA).dropna()
    return sorted(((str(v), int(k)) for v, k in text.value_counts().items()), key=lambda vk: (-vk[1], vk[0]))


def tally(values: pd.Series, top: int = TALLY_NAMED) -> str:
    """The values of one metadata field over a cohort's files in words, most frequent first (ties
    by value, none last), each quoted with its count of the files: '"esconv" (1300 of 1300)',
    '"simulated" (1 of 2) and none (1 of 2)' (none: the field absent, null or blank). Beyond
    ``top`` values the others are counted together ('2 other values (5 of 200)'); "" for no file."""
    n = len(values)
    counts: list[tuple[str | None, int]] = list(_named_counts(values))
    if missing := n - sum(k for _, k in counts):
        counts.append((None, missing))
        counts.sort(key=lambda vk: (-vk[1], vk[0] is None, vk[0] or ""))

    def share(k: int) -> str:
        return f"({int_display(k)} of {int_display(n)})"

    words = [f"{'none' if v is None else quoted(v)} {share(k)}" for v, k in counts[:top]]
    if rest := counts[top:]:
        words.append(f"{len(rest)} other values {share(sum(k for _, k in rest))}")
    return joined(words)


def named_alternatives(values: pd.Series, top: int = TALLY_NAMED) -> str:
    """The distinct values of one metadata field, quoted, most frequent first, as alternatives:
    '"human-supporter"', '"om-a" or "om-b"', '"a", "b", "c" or one of 2 other names' (null and
    blank values left out); "none" when no file gives one."""
    counts = _named_counts(values)
    names = [quoted(v) for v, _ in counts[:top]]
    if len(counts) > top:
        names.append(f"one of {len(counts) - top} other names")
    if not names:
        return "none"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def add_file_names(nums: Numbers, conv: pd.DataFrame) -> None:
    """Add ``files.providers`` and ``files.reply_authors``: what the cohort's files give as
    ``metadata.provider`` and ``metadata.model`` (the gold conversations table's ``provider`` and
    ``om_model``: the release format's original model, the author of the replies), tallied
    (:func:`tally`; "none" for a cohort without files), and ``files.reply_author``, the authors
    named (:func:`named_alternatives`), which the benchmark section names as the author of the
    reply the behaviour questions are about; ``files.all_esconv``, whether every file names the
    provider that ESConv's adapter writes (the data, uncertainty and limitations sections then
    say what holds if they are ESConv's chats). The data section prints the tallies for a
    real cohort: what the files say of where the chats come from, which a build of a folder
    whose source is not recorded cannot establish otherwise."""
    for key, column, field in (("providers", "provider", "provider"), ("reply_authors", "om_model", "model")):
        values = conv[column] if column in conv else pd.Series([None] * len(conv), dtype="string")
        nums.add(f"files.{key}", tally(values) or "none", INGEST, note=f"metadata.{field} of the files, tallied")
    providers = conv["provider"] if "provider" in conv else pd.Series([], dtype="string")
    nums.add(
        "files.all_esconv",
        bool(len(providers)) and bool((providers == ESCONV_PROVIDER).all()),
        INGEST,
        note="every file names ESConv's adapter's provider (metadata.provider 'esconv')",
    )
    authors = conv["om_model"] if "om_model" in conv else pd.Series([None] * len(conv), dtype="string")
    nums.add(
        "files.reply_author",
        named_alternatives(authors),
        INGEST,
        note="the author of the original replies as the files name it (metadata.model): any of these",
    )
