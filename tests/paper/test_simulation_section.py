"""The validation by simulation (paper/main.typ, "Validation by simulation"): its recovery
sentence summarises only the planted effects the simulated studies estimated, over the studies
each was estimated in, and names those printed without numbers."""

from __future__ import annotations

from ..conftest import REPO


def _section() -> str:
    src = (REPO / "paper" / "main.typ").read_text(encoding="utf-8")
    start = src.index("= Validation by simulation")
    return src[start : src.index("#include", start)]


def test_the_recovery_sentence_counts_the_planted_effects_and_their_studies():
    section = _section()
    # Not "(200 simulated studies) the sign of every planted effect": an effect can be estimated
    # in fewer studies than the others, or in none.
    for key in (
        "sim.n_planted_effects",
        "sim.n_planted_effects_all",
        "sim.min_planted_studies",
        "sim.max_planted_studies",
    ):
        assert f'"{key}"' in section, key
    assert "every planted effect" not in section
    assert '#n("sim.no_planted_value")' in section  # the effects printed without numbers, with why


def test_the_section_names_the_claims_the_simulation_has_no_test_for():
    """'runs every test of the paper that this design supports' is false while the simulation has
    no test for the flat-drift (turn_flat) and profile-flips claims: the section names them."""
    section = _section()
    assert '#n("sim.no_test")' in section
    assert 'N.at("sim.n_no_test")' in section
