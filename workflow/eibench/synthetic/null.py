"""The null twin of the prediction simulator: every planted effect set to zero.

The null cohort of the truth section (workflow/rules/truth.smk) is the default synthetic
cohort's conversations (the same generator, seed and files) with predictions drawn by the same
simulator and seed scheme from these settings. What is zeroed is what a claim of the paper tests:

- ``effects`` (diagnosis, romantic topic, turn drift): every entry 0 (logits);
- ``human.ability_mean``: 0 for every capability, so the human raters are drawn around the
  average model (their spread ``rater_sd`` kept): no planted human shift;
- ``ability_correlation``: the identity, no planted correlation of abilities across models;
- ``ability_sd``: every capability's spread set to their mean (0.4875 for the default 0.45,
  0.45, 0.6, 0.45), no planted difference of spreads, through which the generator plants the
  discriminability claim (C2), as the operating characteristics' generator draws every
  capability alike.

Everything else (base logits, random effects, noise, the omniscient bonus and the
participant-facing wording shift, which no claim tests) is unchanged, so the two cohorts differ
only by the planted effects.
"""

from __future__ import annotations

import copy
from typing import Any


def null_simulation(sim: dict[str, Any]) -> dict[str, Any]:
    """A copy of the ``simulation`` config section with every planted effect zero (see module);
    the input is not modified."""
    out = copy.deepcopy(sim)
    out["effects"] = {name: {k: 0.0 for k in per} for name, per in sim["effects"].items()}
    out["human"]["ability_mean"] = {k: 0.0 for k in sim["human"]["ability_mean"]}
    n = len(sim["ability_correlation"])
    out["ability_correlation"] = [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]
    spreads = [float(v) for v in sim["ability_sd"].values()]
    out["ability_sd"] = {k: sum(spreads) / len(spreads) for k in sim["ability_sd"]}
    return out
