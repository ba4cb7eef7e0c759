"""Load and validate the workflow configuration.

The JSON schema (config/schema/config.schema.yaml) has ``additionalProperties: false`` at every
level. ``validate_config`` turns schema violations into one message per problem that names the
config key, what is wrong and, for an unknown key, the allowed keys and the closest match.
Checks the schema cannot express (unique model names, a valid correlation matrix, shares that
sum to one, paths that exist) follow in ``check_semantics``.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
import yaml

from .cohorts import simulated_on_real
from .ids import is_safe_id
from .lean_imports import skip_iri_format_checker

skip_iri_format_checker()  # before jsonschema: 1.4 s on every start of Snakemake (lean_imports)
from jsonschema import Draft202012Validator, validators  # noqa: E402
from jsonschema.exceptions import ValidationError  # noqa: E402


class ConfigError(ValueError):
    """The configuration is invalid; the message lists every problem found."""


def load_schema(path: str | Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def coerce_cli_strings(value: Any, schema: dict[str, Any], root: dict[str, Any] | None = None) -> Any:
    """Turn strings into numbers or booleans where the schema wants them.

    Snakemake parses nested ``--config`` values with YAML's BaseLoader, so
    ``--config 'cohorts={synthetic: {n_conversations: 20}}'`` arrives with the string '20'.
    Where the schema says the value is not a string, the string is re-read as YAML.
    """
    root = root or schema
    while "$ref" in schema:
        schema = root["$defs"][schema["$ref"].split("/")[-1]]
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return {k: coerce_cli_strings(v, props[k], root) if k in props else v for k, v in value.items()}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [coerce_cli_strings(v, schema["items"], root) for v in value]
    if isinstance(value, str):
        types = schema.get("type")
        types = [types] if isinstance(types, str) else (types or [])
        if types and "string" not in types:
            parsed = yaml.safe_load(value)
            return value if isinstance(parsed, str) else parsed
    return value


def _key_path(path: Iterable[object]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _leaf_errors(error: ValidationError) -> list[ValidationError]:
    # if/then and allOf wrap the informative errors in a context; report the leaves.
    if error.context:
        leaves: list[ValidationError] = []
        for sub in error.context:
            leaves.extend(_leaf_errors(sub))
        return leaves
    return [error]


#: Where the config's values came from, in the order applied (a later one overrides): a label
#: ("config/esconv.yaml", "--config") and that source's mapping.
Sources = Sequence[tuple[str, Any]]


def origin(path: Sequence[object], sources: Sources) -> str:
    """ " (set in <label>)" for the last source that gives the key at ``path`` (a config path of
    keys and list indices), "" when none does or ``sources`` is empty."""
    for label, data in reversed(sources):
        node = data
        for part in path:
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
                node = node[part]
            else:
                break
        else:
            return f" (set in {label})"
    return ""


def _describe(error: ValidationError, sources: Sources = ()) -> str:
    where, set_here = _key_path(error.absolute_path), origin(list(error.absolute_path), sources)
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extras = sorted(set(error.instance) - set(allowed))
        parts = []
        for key in extras:
            full = f"{_key_path(error.absolute_path)}.{key}" if error.absolute_path else key
            guess = difflib.get_close_matches(key, allowed, n=1)
            hint = f" (did you mean {guess[0]!r}?)" if guess else ""
            set_in = origin([*error.absolute_path, key], sources)
            parts.append(f"unknown config key {full!r}{set_in}{hint}; allowed keys here: {', '.join(allowed)}")
        return "\n".join(parts)
    if error.validator == "required":
        msg = f"config key {where!r}{set_here} is missing a required key: {error.message}"
        missing = [k for k in error.validator_value if isinstance(error.instance, dict) and k not in error.instance]
        choices = [error.schema.get("properties", {}).get(k, {}).get("enum") for k in missing]
        for key, allowed in zip(missing, choices):
            if allowed:
                msg += f"; allowed values of {key!r}: {', '.join(map(str, allowed))}"
        return msg
    if error.validator == "type":
        return f"config key {where!r}{set_here}: {error.message}{_type_hint(error.instance, error.validator_value)}"
    if error.validator in ("pattern", "minimum", "maximum") and "description" in error.schema:
        return f"config key {where!r}{set_here}: {error.message}; {error.schema['description'].strip()}"
    return f"config key {where!r}{set_here}: {error.message}"


def _type_hint(value: Any, wanted: Any) -> str:
    """How to write ``value`` as the type the schema wants (YAML), when that is obvious."""
    wanted = [wanted] if isinstance(wanted, str) else list(wanted)
    if "integer" in wanted and isinstance(value, float) and value.is_integer():
        return f" (write {int(value)}, without a decimal point or exponent)"
    if isinstance(value, str) and "string" not in wanted:
        try:
            parsed = yaml.safe_load(value)
        except yaml.YAMLError:
            return ""
        if not isinstance(parsed, str) and parsed is not None:
            return f" (a quoted string; write {value} without quotes)"
        try:  # YAML 1.1 reads 1e15 (no dot) as a string
            number = float(value)
        except ValueError:
            return ""
        if "integer" in wanted and number.is_integer():
            return f" (YAML reads {value} as a string; write {int(number)})"
    return ""


def _is_strict_integer(checker: Any, instance: Any) -> bool:
    # JSON Schema's "integer" accepts 7.0; every integer of this config is a count, a seed or
    # an index that Python code uses as an int (range, numpy seeds), so 7.0 is refused.
    return isinstance(instance, int) and not isinstance(instance, bool)


#: Draft 2020-12, but "integer" means a Python int (not a float such as 7.0, nor a bool).
StrictValidator = validators.extend(
    Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_strict_integer)
)


def validate_schema(config: dict[str, Any], schema: dict[str, Any], sources: Sources = ()) -> list[str]:
    """Every schema violation of ``config`` as a readable sentence (empty list if valid), each
    naming the source that set the key when ``sources`` are given."""
    validator = StrictValidator(schema)
    messages: list[str] = []
    for error in sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path))):
        for leaf in _leaf_errors(error):
            msg = _describe(leaf, sources)
            if msg not in messages:
                messages.append(msg)
    return messages


def check_semantics(config: dict[str, Any], base_dir: Path) -> list[str]:
    """Checks beyond the schema; paths are resolved against ``base_dir``."""
    problems: list[str] = []
    names = [m["name"] for m in config["models"]]
    for i, name in enumerate(names):
        if not is_safe_id(name):  # the schema's pattern cannot refuse a trailing newline
            problems.append(
                f"config key 'models[{i}].name': {name!r} is not a safe identifier (it becomes a folder name)"
            )
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        problems.append(f"config key 'models': model names must be unique; repeated: {', '.join(dupes)}")
    # Names become folder names: on a case-insensitive file system (macOS, Windows) Sim-01 and
    # sim-01 would be one folder, and the two models would overwrite each other's files.
    folded: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        if isinstance(name, str):
            folded.setdefault(name.casefold(), []).append(i)
    for positions in folded.values():
        spellings = sorted({names[i] for i in positions})
        if len(spellings) > 1:
            keys = ", ".join(f"models[{i}].name ({names[i]!r})" for i in positions)
            problems.append(
                f"config key 'models': {keys} differ only in case; they would share one folder on a "
                "case-insensitive file system: rename one"
            )

    syn = config["cohorts"]["synthetic"]
    if syn["turns"]["min"] < 1 or syn["turns"]["min"] > syn["turns"]["max"]:
        problems.append("config key 'cohorts.synthetic.turns': need 1 <= min <= max")
    q = syn["binary"]["questions_per_turn"]
    if q["min"] > q["max"] or q["max"] > 36:
        problems.append("config key 'cohorts.synthetic.binary.questions_per_turn': need min <= max <= 36")
    e = syn["pairwise"]["extra_questions"]
    if e["min"] > e["max"] or e["max"] > 15:
        problems.append("config key 'cohorts.synthetic.pairwise.extra_questions': need min <= max <= 15")
    shares = syn["trait_shares"]
    if abs(sum(shares.values()) - 1) > 1e-9:
        problems.append(
            f"config key 'cohorts.synthetic.trait_shares': shares must sum to 1, they sum to {sum(shares.values()):g}"
        )

    na_answers = config["simulation"]["answers_when_gold_na"]
    if abs(sum(na_answers) - 1) > 1e-9:
        problems.append("config key 'simulation.answers_when_gold_na': the three probabilities must sum to 1")
    if not any(syn["survey"]["goal_weights"]):
        problems.append("config key 'cohorts.synthetic.survey.goal_weights': at least one weight must be positive")
    for key in (
        "participants.valence.none",
        "participants.valence.diagnosed",
        "participants.expressivity",
        "mood.arousal",
    ):
        node = syn
        for part in key.split("."):
            node = node[part]
        if not 0 <= node[0] <= node[1] <= 1:
            problems.append(f"config key 'cohorts.synthetic.{key}': need 0 <= low <= high <= 1")
    corr = np.asarray(config["simulation"]["ability_correlation"], dtype=float)
    if not np.allclose(corr, corr.T) or not np.allclose(np.diag(corr), 1.0):
        problems.append("config key 'simulation.ability_correlation': must be symmetric with ones on the diagonal")
    elif np.linalg.eigvalsh(corr).min() < -1e-10:
        problems.append(
            "config key 'simulation.ability_correlation': must be positive semi-definite (a valid correlation matrix)"
        )

    problems += _check_statistics(config)

    refusal = simulated_on_real(config)
    if refusal:
        problems.append(refusal)
    if config["cohort"] == "attunebench":
        path = config["cohorts"]["attunebench"]["path"]
        if not path:
            problems.append(
                "cohort 'attunebench' is selected but config key 'cohorts.attunebench.path' is not set; "
                "set it to the folder of conversation_<N>.json files (e.g. --config "
                "'cohorts={attunebench: {path: /data/Test Samples/Sample200}}')"
            )
        elif not (base_dir / path).is_dir():
            problems.append(
                f"config key 'cohorts.attunebench.path': {path!r} is not a folder (a relative path is read from "
                f"{str(base_dir)!r}, where Snakemake runs); set it to the folder of the release's "
                "conversation_<N>.json files"
            )
        else:
            problems += _folder_problems(
                base_dir / path,
                "config key 'cohorts.attunebench.path'",
                "conversation files (*.json)",
                "put the release's conversation_<N>.json files there",
            )
    for model in config["models"]:
        if model["kind"] == "anthropic" and "audio" in model.get("modalities", ()):
            problems.append(
                f"config key 'models' ({model['name']}): modalities lists audio, but the Anthropic "
                "Messages API has no audio input; remove 'audio' (send a transcript as text)"
            )
        if model["kind"] == "outputs_dir":
            root = base_dir / model["path"]
            for mode in config["modes"]:
                key = f"config key 'models[{names.index(model['name'])}].path' ({model['name']})"
                if not (root / mode).is_dir():
                    problems.append(
                        f"{key}: outputs folder {str(root / mode)!r} does not exist; the model's release-format "
                        f"EM output files for mode {mode!r} go there (<path>/<mode>/, one file per conversation "
                        f"it answers: a subset of the cohort is allowed); create it, or remove {mode!r} from "
                        "config key 'modes'"
                    )
                else:
                    problems += _folder_problems(
                        root / mode,
                        key,
                        f"EM output files (*.json) for mode {mode!r}",
                        f"put the model's output files there, or remove {mode!r} from config key 'modes'",
                    )
    return problems


def _folder_problems(folder: Path, key: str, what: str, fix: str) -> list[str]:
    """A release folder's problems when the workflow is parsed: a ``*.json`` symlink (never
    followed), a name that is not UTF-8, or no ``*.json`` file at all."""
    from .release.read import FolderEntryError, list_json_files

    try:
        files = list_json_files(folder)
    except FolderEntryError as err:
        return [f"{key}: {p.file} {p.message}" for p in err.problems]
    if not files:
        return [f"{key}: no {what} in {str(folder)!r}; {fix}"]
    return []


#: claim test -> (required params, the metrics it can read: None = any analysable metric)
CLAIM_PARAMS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "rank_independence": (("metrics", "margin"), None),
    "discriminability_difference": (("better", "worse"), None),
    "diagnosis_effect": (("metric", "direction"), None),
    "turn_drift": (("metric", "direction"), "turn"),
    "turn_flat": (("metric", "margin"), "turn"),
    "topic_hardest": (("metric", "category"), None),
    "profile_flips": ((), None),
    "humans_vs_models": (("metric", "direction"), None),
}
DIRECTIONS = {
    "diagnosis_effect": ("positive", "negative"),
    "turn_drift": ("positive", "negative"),
    "humans_vs_models": ("humans_better", "models_better"),
}


def _check_statistics(config: dict[str, Any]) -> list[str]:
    """The statistics section: its mode is run, its metrics exist, and each pre-registered claim
    has the parameters its test needs."""
    from .metrics.registry import ANALYSABLE, TURN_METRICS

    problems: list[str] = []
    st = config["statistics"]
    if st["mode"] not in config["modes"]:
        problems.append(
            f"config key 'statistics.mode': {st['mode']!r} is not one of the modes run "
            f"(config key 'modes': {', '.join(config['modes'])}); add it there or pick one of them"
        )
    allowed = ", ".join(sorted(ANALYSABLE))
    for m in st["principal_metrics"]:
        if m not in ANALYSABLE:
            problems.append(f"config key 'statistics.principal_metrics': unknown metric {m!r}; allowed: {allowed}")
    ids = [c["id"] for c in st["claims"]]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(f"config key 'statistics.claims': claim id {dup!r} is used twice; ids must be unique")
    for k, claim in enumerate(st["claims"]):
        where = f"config key 'statistics.claims[{k}]' ({claim['id']}, test {claim['test']})"
        required, level = CLAIM_PARAMS[claim["test"]]
        params = claim["params"]
        for name in required:
            if name not in params:
                problems.append(f"{where}: params.{name} is required for this test")
        pool = TURN_METRICS if level == "turn" else ANALYSABLE
        named = [params[n] for n in ("metric", "better", "worse") if n in params] + list(params.get("metrics", []))
        for m in named:
            if m not in pool:
                kind = "turn-level metric" if level == "turn" else "metric"
                problems.append(f"{where}: unknown {kind} {m!r}; allowed: {', '.join(sorted(pool))}")
        if (
            claim["test"] in DIRECTIONS
            and "direction" in params
            and params["direction"] not in DIRECTIONS[claim["test"]]
        ):
            problems.append(f"{where}: params.direction must be one of {', '.join(DIRECTIONS[claim['test']])}")
        if claim["test"] == "rank_independence" and len(params.get("metrics", [])) < 2:
            problems.append(f"{where}: params.metrics needs at least two metrics")
        # These tests read the analyses of the principal metrics (and the composite).
        analysed = {
            "rank_independence": set(st["principal_metrics"]),
            "discriminability_difference": {"composite", *st["principal_metrics"]},
        }.get(claim["test"])
        if analysed is not None:
            for m in named:
                if m in pool and m not in analysed:
                    problems.append(
                        f"{where}: {m!r} is not analysed for this test; add it to "
                        f"config key 'statistics.principal_metrics'"
                    )
        if claim["test"] == "discriminability_difference" and params.get("better") == params.get("worse"):
            problems.append(f"{where}: params.better and params.worse must differ")
    u = config.get("uncertainty")
    if u is not None and u["primary"] not in u["schemes"]:
        problems.append(
            f"config key 'uncertainty.primary': {u['primary']!r} is not one of 'uncertainty.schemes' "
            f"({', '.join(u['schemes'])}); add it there or pick one of them"
        )
    return problems


def foreign_config_files(sources: Sources, schema: dict[str, Any]) -> list[str]:
    """A problem for each config file of ``sources`` (not ``--config``) that has keys but none
    the config knows or nearly knows (a misspelt overlay, ``seeed: 3``, gets the schema's
    "did you mean"): most likely a target read as one more config file, as Snakemake's
    --configfile takes every word after it (``--configfile a.yaml results/x.json``)."""
    known = sorted(schema.get("properties", {}))

    def config_like(key: object) -> bool:
        return key in known or bool(difflib.get_close_matches(str(key), known, n=1, cutoff=0.8))

    out = []
    for label, data in sources:
        if label == "--config" or not isinstance(data, dict) or not data or any(map(config_like, data)):
            continue
        keys = sorted(map(str, data))
        shown = ", ".join(keys[:4]) + (", ..." if len(keys) > 4 else "")
        out.append(
            f"{label} was read as a config file, but none of its keys ({shown}) is a config key: if it is a "
            "target, put the targets before --configfile, or end the list of config files with --"
        )
    return out


def validate_config(config: dict[str, Any], schema: dict[str, Any], base_dir: Path, sources: Sources = ()) -> None:
    """Raise ``ConfigError`` listing every problem of ``config``; return None if it is valid.
    ``sources``: the config files and ``--config`` values it was merged from (``origin``), so
    that a schema problem names the file that set the key. A config file without any config
    key is named first, alone (``foreign_config_files``): the schema's errors would follow from it."""
    problems = foreign_config_files(sources, schema) or validate_schema(config, schema, sources)
    if not problems:
        problems = check_semantics(config, base_dir)
    if problems:
        raise ConfigError("invalid configuration:\n  - " + "\n  - ".join(problems))


def digest(obj: Any) -> str:
    """sha256 of the canonical JSON of ``obj`` (sorted keys): a config fingerprint."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
