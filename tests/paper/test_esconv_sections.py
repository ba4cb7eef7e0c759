"""The sections' sentences on an ESConv build (meta.cohort 'esconv': real chats, the offline
baselines alone), each section compiled on its own with the numbers such a build writes."""

from __future__ import annotations

from .section import section_text

ESCONV_META = {"cohort": "esconv", "simulation": False, "simulated_cohort": False, "simulated_models": []}


def _discussion(tmp_path, verdict: str) -> str:
    entries = {
        "n_ranked_baselines": 3,
        "n_models": 3,
        "unc.claims.n_primary_differs": 0,
        "n_participants": 1300,
        "n_conversations": 1300,
        "models.described": "3 offline baselines",
        "ranks.n_models": 3,
        "ranks.margin": {"value": 0.3, "display": "0.30"},
        "ranks.power_at_margin": {"value": 0.0, "display": "0.00"},
        "operating.models.claim": "E3",
        "claim.E3.verdict": verdict,
    }
    return section_text(tmp_path, "discussion.typ", entries, ESCONV_META)


def test_the_discussion_does_not_call_an_untestable_rank_claim_tested(tmp_path):
    """ESConv's three baselines cannot test its rank-independence claim E3 ('not testable'):
    the Discussion said 'the rank-based claims are tested with little or no power'."""
    text = _discussion(tmp_path, "not testable")
    assert "the rank-independence claim, E3, is not tested at all" in text
    assert "are tested with little or no power" not in text


def test_the_discussion_calls_a_tested_rank_claim_weakly_tested(tmp_path):
    text = _discussion(tmp_path, "inconclusive")
    assert "so the rank-based claims are tested with little or no power" in text
    assert "not tested at all" not in text
