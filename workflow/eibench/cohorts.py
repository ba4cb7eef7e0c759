"""The cohort a run selects, as the configuration states it: which models and raters fit it.

A simulated model or a simulated human rater (``kind: simulated`` in ``models``, with
``profile: human`` for a rater) has no answers of its own: the simulator draws them around the
cohort's gold annotations. On the synthetic cohort that is the point (a simulation study of the
method); on real conversations (an AttuneBench release, ESConv) it would print invented results
as a benchmark. ``simulated_on_real`` finds those entries at parse time, before any job.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any
from urllib.parse import urlsplit

#: The cohorts whose conversations are simulated (everything else is real data).
SIMULATED_COHORTS = ("synthetic",)

#: The overlay that replaces ``models`` (and the statistics settings) for each real cohort.
OVERLAYS = {
    "attunebench": "--configfile config/attunebench.yaml",
    "esconv": "--configfile config/mirrors.yaml config/esconv.yaml",
}


def _ranges(indices: list[int]) -> str:
    """``models[0-10], models[14]``: the config keys of these list indices, runs compacted."""
    runs: list[list[int]] = []
    for i in indices:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return ", ".join(f"models[{r[0]}]" if len(r) == 1 else f"models[{r[0]}-{r[-1]}]" for r in runs)


def simulated_entries(models: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Indices into ``models`` of the simulated evaluated models (``"models"``) and of the
    simulated human raters (``"humans"``); empty lists when there are none."""
    out: dict[str, list[int]] = {"models": [], "humans": []}
    for i, m in enumerate(models):
        if m["kind"] == "simulated":
            out["humans" if m.get("profile") == "human" else "models"].append(i)
    return out


def simulated_on_real(config: dict[str, Any]) -> str | None:
    """The refusal (one message naming the config keys and the fix) when the selected cohort is
    real and ``models`` lists simulated models or simulated human raters; None otherwise (the
    synthetic cohort, or a real cohort with baselines, live models or outputs_dir models only)."""
    cohort = config["cohort"]
    if cohort in SIMULATED_COHORTS:
        return None
    found = simulated_entries(config["models"])
    if not found["models"] and not found["humans"]:
        return None
    names = [m["name"] for m in config["models"]]
    lines = [
        f"cohort is {cohort!r} (real conversations), but config key 'models' lists entries whose answers "
        "would be drawn around this cohort's own gold annotations (invented results, not predictions):"
    ]
    if found["models"]:
        lines.append(
            f"    simulated models ({_ranges(found['models'])}, kind: simulated): "
            f"{', '.join(names[i] for i in found['models'])}"
        )
    if found["humans"]:
        lines.append(
            f"    simulated human raters ({_ranges(found['humans'])}, kind: simulated, profile: human): "
            f"{', '.join(names[i] for i in found['humans'])}"
        )
    overlay = OVERLAYS.get(cohort, "--configfile config/attunebench.yaml")
    lines.append(
        f"    fix: add the overlay `{overlay}` (offline baselines, statistics for a real cohort), or set "
        "'models' to baselines, live models (openai_compatible, anthropic) or outputs_dir models only"
    )
    return "\n".join(lines)


#: The kinds of ``models`` entries, as the paper counts them: live API models share one kind.
MODEL_KINDS = ("simulated", "human", "baseline", "live", "outputs_dir")
_LIVE = ("openai_compatible", "anthropic")


def model_kind(model: dict[str, Any]) -> str:
    """One of ``MODEL_KINDS``: ``human`` for a (simulated) human rater, ``live`` for an API model."""
    if model.get("profile") == "human":
        return "human"
    return "live" if model["kind"] in _LIVE else model["kind"]


def model_kinds(models: list[dict[str, Any]]) -> dict[str, str]:
    """{model name: its kind (``model_kind``)}, in the order of ``models``."""
    return {m["name"]: model_kind(m) for m in models}


def baseline_methods(models: list[dict[str, Any]]) -> dict[str, str]:
    """{baseline name: its method (chance, prior, lexicon, embedding)}, in the order of
    ``models``."""
    return {m["name"]: m["method"] for m in models if m["kind"] == "baseline"}


#: The hosts of an endpoint on the machine itself.
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def live_served(models: list[dict[str, Any]]) -> dict[str, str]:
    """{live model name: ``local`` when its endpoint is on this machine (a loopback host, as
        llama.cpp's server of docs/local-model.md), else ``api`` (a provider's or another machine's
    endpoint, or none: the provider's default)}, in the order of ``models``."""
    return {
        m["name"]: "local" if urlsplit(m.get("endpoint") or "").hostname in LOOPBACK else "api"
        for m in models
        if model_kind(m) == "live"
    }


def simulated(config: dict[str, Any]) -> dict[str, Any]:
    """What of this run is simulated: ``cohort`` (the conversations themselves), ``models``
    (names of the simulated models and raters, in config order) and ``any`` (either): the
    paper's simulation disclosure follows these, not the cohort's name."""
    names = [m["name"] for m in config["models"] if m["kind"] == "simulated"]
    cohort = config["cohort"] in SIMULATED_COHORTS
    return {"cohort": cohort, "models": names, "any": cohort or bool(names)}


def describe(config: dict[str, Any]) -> dict[str, str | None]:
    """How the paper names the selected cohort: ``name``, ``source``, ``citation`` and
    ``description`` from ``cohorts.<cohort>.about``. A release folder without a name is named
    after its folder (the last part of ``cohorts.attunebench.path``); any other missing value
    stays None (the paper prints nothing for it). Raises ValueError naming the config key when a
    cohort other than a release folder has no name."""
    section = config["cohorts"][config["cohort"]]
    about = {k: section.get("about", {}).get(k) for k in ("name", "source", "citation", "description")}
    if about["name"] is None:
        path = section.get("path") if config["cohort"] == "attunebench" else None
        if not path:
            raise ValueError(f"config key 'cohorts.{config['cohort']}.about.name' is not set; name the cohort there")
        about["name"] = PurePath(str(path).rstrip("/\\")).name or str(path)
    return about
