"""Template texts that fill the free-text fields of synthetic files.

The texts are not meant to read like real chats; they make the files complete and carry the
surface cues a text-based baseline can use: a participant names an emotion word when they
express it explicitly, and an original-model reply contains a question when it asks a
follow-up question (B13), advice when it guides (B11), validation when it validates (B19),
and so on.
"""

from __future__ import annotations

import numpy as np

OPENERS = (
    "I wanted to talk about {topic}.",
    "Something has been on my mind: {topic}.",
    "Can I tell you about {topic}?",
    "It's about {topic} again.",
    "I keep thinking about {topic}.",
    "Today was hard because of {topic}.",
)
EXPLICIT = (
    "Honestly I feel {word}.",
    "I'm feeling really {word} right now.",
    "It makes me {word}.",
    "I guess I'm {word} about it.",
)
IMPLICIT = (
    "I don't really know how to describe it.",
    "It's just a lot to deal with.",
    "I keep going back and forth on it.",
    "Part of me wants to just forget about it.",
    "Anyway, that's where things are.",
)
FOLLOWUPS = (
    "Since we last talked, not much changed.",
    "I tried what we discussed.",
    "I thought about what you said.",
    "Something else happened this week.",
)

#: Reply sentences keyed by the behaviour question whose 'yes' they express.
BEHAVIOUR_SENTENCES = {
    "B1": "That sounds like it brings up a lot of {word} feelings.",
    "B7": "It sounds like you might be feeling {word}.",
    "B19": "It makes complete sense to feel this way.",
    "B15": "You mentioned {topic}, and that stands out.",
    "B12": "Situations like this often feel heavier because they touch on things we care about.",
    "B11": "You could try writing down what you need and sharing it when you feel ready.",
    "B17": "Some of what you describe sounds really heavy to carry alone.",
    "B18": "If you ever feel unsafe, please reach out to a crisis line or someone you trust.",
    "B14": "It would be wrong of them to keep treating you like that.",
    "B20": "This could get much worse if nothing changes.",
    "B502": "It might help to think about how the other person sees it.",
    "B504": "This is a complicated situation with many sides.",
    "B501": "What do you make of your own reaction here?",
    "B13": "What feels hardest about it right now?",
}
NEUTRAL_REPLY = "Thanks for telling me about {topic}."

WHAT_FELT_OFF = (
    "too much advice too early",
    "it repeated the same suggestions",
    "it assumed how I felt",
    "the tone felt clinical",
    "it changed the topic",
    "it did not ask what I needed",
    "responses were too long",
    "it missed that I was joking",
)


def user_message(rng: np.random.Generator, topic: str, words: list[str], explicit: bool, first: bool) -> str:
    parts = [str(rng.choice(OPENERS)).format(topic=topic) if first else str(rng.choice(FOLLOWUPS))]
    if explicit and words:
        parts.append(str(rng.choice(EXPLICIT)).format(word=words[0]))
    else:
        parts.append(str(rng.choice(IMPLICIT)))
    return " ".join(parts)


def om_reply(behaviours: set[str], topic: str, word: str) -> str:
    """The original model's reply: one sentence per shown behaviour, questions last."""
    sentences = [NEUTRAL_REPLY.format(topic=topic)]
    for qid, sentence in BEHAVIOUR_SENTENCES.items():
        if qid in behaviours:
            sentences.append(sentence.format(word=word or "mixed", topic=topic))
    return " ".join(sentences)


def improved_reply(topic: str, word: str) -> str:
    return (
        f"I hear how much {topic} is weighing on you, and feeling {word or 'unsettled'} makes sense. "
        "What would feel most helpful right now?"
    )


def edited_reply(topic: str) -> str:
    return f"That sounds really hard. I'm here to listen about {topic} for as long as you need."


def drafted_reply(topic: str, word: str) -> str:
    return f"It sounds like {topic} has left you feeling {word or 'a lot'}. Do you want to tell me more?"
