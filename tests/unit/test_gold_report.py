"""The ingest report of the gold tables and the warnings the ingest rule logs."""

from __future__ import annotations

import json

from eibench.release.gold_report import ingest_report, ingest_warnings
from eibench.release.read import list_json_files, read_conversations
from eibench.release.tidy import gold_tables

from ..conftest import RELEASE


def test_the_valid_corpus_reports_its_counts_and_warns_of_nothing_it_lacks():
    files = list_json_files(RELEASE / "valid")
    tables = gold_tables(read_conversations(files))
    report = ingest_report(tables, len(files))
    assert report["n_files"] == len(files) and report["rows"]["mood_tags"] == len(tables["mood_tags"])
    assert report["intensities_clamped"] == 0 and report["tags_outside_panas"] == 1  # 'Exhausted'
    assert ingest_warnings(report) == []


def test_clamped_intensities_and_conflicting_profiles_are_warned_of(tmp_path):
    base = json.loads((RELEASE / "valid" / "conversation_5.json").read_text(encoding="utf-8"))
    paths = []
    for k, (intensity, traits) in enumerate(((9, ["anxiety"]), (0, []), (5, ["anxiety"]))):
        data = dict(base, conversationId=f"c{k}", participant_profile={"participant_id": "p", "traits": traits})
        data["metadata"] = dict(base["metadata"], conversationId=f"c{k}")
        data["turns"] = [dict(t, moodShiftTags=[{"emotion": "upset", "intensity": intensity}]) for t in base["turns"]]
        paths.append(tmp_path / f"c{k}.json")
        paths[-1].write_text(json.dumps(data), encoding="utf-8")
    report = ingest_report(gold_tables(read_conversations(paths)), len(paths))
    n_turns = len(base["turns"])
    assert report["intensities_clamped"] == 2 * n_turns and report["participants_with_conflicting_profiles"] == ["p"]
    clamped, conflicting = ingest_warnings(report)
    assert clamped.startswith(f"{2 * n_turns} of {3 * n_turns} gold mood-tag intensities lay outside 1..7")
    assert "rescale its intensities to 1..7 before ingesting it" in clamped
    assert conflicting.startswith("1 participant's files give different ages or traits (p)")
