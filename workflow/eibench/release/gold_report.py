"""What ingesting a cohort's conversation files found that a reader of its tables should know:
the report rule ingest_conversations writes beside the gold tables (ingest_report.json), and
the warnings it logs.
"""

from __future__ import annotations

from typing import Any

import pandas as pd


def ingest_report(tables: dict[str, pd.DataFrame], n_files: int) -> dict[str, Any]:
    """The ingest report of the gold tidy tables ``tables`` read from ``n_files`` files: rows
    per table, binary question ids not in the instrument, gold tags whose word is not a PANAS
    item, gold intensities clamped into 1..7, unknown fields, participants whose files give
    different profiles, conversations whose declared turnCount differs from their turns."""
    tags = tables["mood_tags"]
    conversations = tables["conversations"]
    return {
        "n_files": n_files,
        "rows": {name: int(len(df)) for name, df in tables.items()},
        "unknown_question_ids": sorted(set(tables["binary_judgements"].query("~known_question")["question_id"])),
        "tags_outside_panas": int((~tags["in_panas"]).sum()),
        "intensities_clamped": int(tags["intensity_clamped"].sum()),
        "extra_fields": int(len(tables["extra_fields"])),
        "participants_with_conflicting_profiles": sorted(
            tables["participants"].query("~profile_consistent")["participant_id"]
        ),
        "conversations_whose_turnCount_differs": sorted(
            conversations.query("turn_count_declared.notna() and turn_count_declared != n_turns")["conversation_id"]
        ),
    }


def ingest_warnings(report: dict[str, Any]) -> list[str]:
    """Warnings for the log, one per finding of ``report`` (``ingest_report``) that changes what
    the scores compare: clamped intensities (a cohort annotated on another scale is read
    without error) and participants whose files disagree on their profile."""
    out = []
    clamped, n_tags = report["intensities_clamped"], report["rows"]["mood_tags"]
    if clamped:
        out.append(
            f"{clamped} of {n_tags} gold mood-tag intensities lay outside 1..7 after rounding and were clamped into "
            "it (mood_tags.intensity_clamped): if the cohort was annotated on another scale (0-10, say), rescale "
            "its intensities to 1..7 before ingesting it"
        )
    conflicting = report["participants_with_conflicting_profiles"]
    if conflicting:
        shown = ", ".join(conflicting[:10]) + (f" and {len(conflicting) - 10} more" if len(conflicting) > 10 else "")
        who = "1 participant's" if len(conflicting) == 1 else f"{len(conflicting)} participants'"
        out.append(
            f"{who} files give different ages or traits ({shown}): each takes the first "
            "file (by name) that gives them (participants.profile_consistent); make their profiles agree"
        )
    return out
