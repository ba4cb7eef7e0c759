"""Write the two hand-made foreign cohorts of tests/data/cohorts/ (release format).

Both are written from the hand-written message templates below with a fixed seed, so running
this script again rewrites the same bytes (``python tests/data/cohorts/make_cohorts.py``). The
files are committed; the tests read them, never this script.

- ``mood_only/``: 16 chats about daily life, per-turn mood tags only: no participant profile,
  no PANAS, no conversation-wide survey, no behaviour judgements, no pairwise comparisons, one
  topic category.
- ``no_humans/``: 20 chats by 8 participants (4 with a reported diagnosis, 4 without) over three
  topic categories (one of them 'Romantic relationships'), with mood tags and behaviour
  judgements (observed and preferred behaviour) but no pairwise comparisons, no alternate
  replies, no PANAS and no survey. No human raters are in any config that reads it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20260514

OPENERS = {
    "Daily life": [
        "My flatmate keeps leaving dishes in the sink and I don't know how to bring it up.",
        "I missed my bus again this morning and the whole day felt off after that.",
        "The neighbours have been drilling since seven and I can't think straight.",
        "I keep meaning to cook properly but I end up ordering food every night.",
        "My phone broke and I feel weirdly cut off from everyone.",
        "I have a dentist appointment tomorrow and I'm dreading it more than I should.",
    ],
    "Work and career": [
        "My manager moved my deadline up by a week without asking me.",
        "I got passed over for the team lead role and I'm trying not to take it personally.",
        "I've been answering emails at midnight for a month and I'm running on empty.",
    ],
    "Romantic relationships": [
        "My partner forgot our anniversary and acted like it was nothing.",
        "We've been long distance for a year and the calls keep getting shorter.",
        "I think I still have feelings for my ex and it's messing with my head.",
    ],
    "Family": [
        "My mum calls every day to ask when I'm moving back home.",
        "My brother borrowed money again and hasn't mentioned paying it back.",
        "Family dinners have turned into arguments about politics.",
    ],
}
FOLLOW_UPS = [
    "Yeah, that's exactly it. I just don't want to make it a big thing.",
    "I tried that once and it kind of backfired, honestly.",
    "Maybe. I guess I'm more tired than annoyed at this point.",
    "It's not only that though, it's been building up for weeks.",
    "That actually helps a bit. I hadn't thought of it that way.",
    "I don't know, it feels like I'm the only one who cares.",
    "Okay, I could try saying something small first.",
    "Part of me wants to just ignore it and hope it goes away.",
    "I think I'm scared of how they'll react.",
    "Thanks. Writing it out makes it feel less huge.",
    "I feel a bit calmer now, but still unsure what to do.",
    "Right, I can pick a moment when we're both not stressed.",
]
REPLIES = [
    "That sounds frustrating, especially when it keeps happening. What bothers you most about it?",
    "It makes sense that it threw off your day. Small things can pile up quickly.",
    "You don't have to fix it all at once. What would a first small step look like?",
    "It sounds like you've been carrying this for a while. How are you feeling right now?",
    "That's a very understandable reaction. Would it help to plan what you might say?",
    "I hear that you're tired of being the one who notices. That's a lot to hold.",
    "It's okay to feel unsure. Sometimes naming it is already progress.",
    "Wanting to avoid conflict is natural. What do you think would happen if you raised it?",
    "It sounds like part of you is worried about their reaction. What makes you expect that?",
    "I'm glad writing it out helps. Is there anything else on your mind about it?",
]
NEGATIVE = ["Irritable", "Nervous", "Upset", "Distressed", "Jittery", "Afraid", "Ashamed"]
POSITIVE = ["Interested", "Determined", "Attentive", "Strong", "Inspired", "Alert"]
QUESTIONS = ["B1", "B2", "B3", "B4", "B5", "B6"]


def _mood(rng: random.Random, turn: int, n_turns: int) -> list[dict]:
    """Mostly negative tags early, more positive ones late; some turns without a shift."""
    if rng.random() < 0.2:
        return []
    pool = NEGATIVE if rng.random() > turn / (n_turns + 1) else POSITIVE
    k = rng.choice([1, 1, 2])
    return [{"emotion": e, "intensity": rng.randint(2, 6)} for e in rng.sample(pool, k)]


def _turns(rng: random.Random, category: str, n_turns: int, judgements: bool) -> list[dict]:
    turns = []
    for t in range(1, n_turns + 1):
        user = rng.choice(OPENERS[category]) if t == 1 else rng.choice(FOLLOW_UPS)
        turn = {
            "turnNumber": t,
            "userMessage": user,
            "llmResponse": rng.choice(REPLIES),
            "moodShiftTags": _mood(rng, t, n_turns),
        }
        if judgements:
            turn["annotations"] = {
                "binaryJudgements": [
                    {
                        "questionId": q,
                        "observedBehavior": rng.choice(["yes", "yes", "no"]),
                        "preferredBehavior": rng.choice(["yes", "yes", "no", "na"]),
                    }
                    for q in QUESTIONS
                ]
            }
        turns.append(turn)
    return turns


def mood_only(rng: random.Random) -> list[dict]:
    out = []
    for i in range(16):
        n_turns = rng.randint(6, 10)
        cid = f"mo{i + 1:02d}"
        out.append(
            {
                "conversationId": cid,
                "metadata": {
                    "conversationId": cid,
                    "model": "om-chat",
                    "category": "Daily life",
                    "subtopic": "everyday hassles",
                    "turnCount": n_turns,
                },
                "participant_profile": None,
                "turns": _turns(rng, "Daily life", n_turns, judgements=False),
            }
        )
    return out


def no_humans(rng: random.Random) -> list[dict]:
    people = [
        ("p1", ["anxiety"]),
        ("p2", ["depression"]),
        ("p3", ["ADHD"]),
        ("p4", ["autism (ASD)"]),
        ("p5", ["none"]),
        ("p6", []),
        ("p7", ["none"]),
        ("p8", ["none"]),
    ]
    categories = ["Work and career", "Romantic relationships", "Family"]
    out = []
    for i in range(20):
        pid, traits = people[i % len(people)]
        category = categories[(i // len(people)) % len(categories)]
        n_turns = rng.randint(6, 9)
        cid = f"nh{i + 1:02d}"
        out.append(
            {
                "conversationId": cid,
                "metadata": {
                    "conversationId": cid,
                    "model": "om-chat",
                    "category": category,
                    "subtopic": "a hand-written situation",
                    "turnCount": n_turns,
                },
                "participant_profile": {
                    "schema_version": 1,
                    "participant_id": pid,
                    "age": str(24 + 5 * (i % len(people))),
                    "traits": traits,
                    "goals": ["to feel heard"],
                },
                "turns": _turns(rng, category, n_turns, judgements=True),
            }
        )
    return out


def main() -> None:
    for name, make in (("mood_only", mood_only), ("no_humans", no_humans)):
        folder = HERE / name
        folder.mkdir(exist_ok=True)
        for old in folder.glob("conversation_*.json"):
            old.unlink()
        for k, conv in enumerate(make(random.Random(f"{SEED}-{name}")), start=1):
            text = json.dumps(conv, indent=1, ensure_ascii=False) + "\n"
            (folder / f"conversation_{k}.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
