# Shared set-up of all the .smk files (config validation at parse time, the model registry,
# and the input functions that map wildcards to files).
#
# `snakemake --lint` asks every rule for a conda environment or a container. We declare
# neither on purpose: conda cannot create environments on the machines this workflow is built
# for (the directive would be silently ignored) and no container engine runs there. All rules
# run in the one pinned virtual environment of envs/requirements.txt, recorded with its package
# versions in the paper's reproducibility statement. That lint is the only finding we accept
# (tests/workflow/test_workflow.py checks it).

import os
import re
from pathlib import Path
from types import SimpleNamespace

from snakemake.exceptions import WorkflowError
from snakemake.utils import update_config

from eibench.cluster import DEFAULT_MEM_MB, DEFAULT_RUNTIME_MIN, read_declared
from eibench.code_digest import Library
from eibench.forkserver import lifecycle as forkserver
from eibench.cohorts import describe as describe_cohort
from eibench.cohorts import baseline_methods, live_served, model_kinds
from eibench.cohorts import simulated as simulated_parts
from eibench.config_files import read_config_files
from eibench.configuration import ConfigError, coerce_cli_strings, digest, load_schema, validate_config
from eibench.public.fetch import unavailable
from eibench.release.folders import listing_digest, rule_inputs
from eibench.release.tidy import EM_TABLES, GOLD_TABLES
from eibench.workflow_paths import rule_scripts
from eibench.report.reproducibility import files_digest, git_state, package_versions, rebuild_command

REPO = Path(workflow.basedir)

# Snakemake has read the config files (the configfile: directive's and --configfile's) and keeps
# the last of a key given twice: each file is read again here, strictly (eibench.config_files).
_file_contents, _file_problems = read_config_files(dict.fromkeys(map(str, workflow.configfiles)))
if _file_problems:
    raise WorkflowError("invalid configuration file:\n  - " + "\n  - ".join(_file_problems))
_schema = load_schema(REPO / "config/schema/config.schema.yaml")
# Only --config values are strings by accident (Snakemake reads nested ones with YAML's
# BaseLoader); a string in a config file was written as one (seed: "7") and is an error.
update_config(config, coerce_cli_strings(dict(workflow.config_settings.config), _schema))
# Where each key came from, in the order of precedence (the configfile: directive's file, then
# the --configfile files, which Snakemake applies over it, then --config), for the errors to name
# the file that set a key.
_given = list(dict.fromkeys(map(str, workflow.config_settings.configfiles or ())))
_sources = [(f, data) for f, data in _file_contents.items() if f not in _given]
_sources += [(f, _file_contents[f]) for f in _given if f in _file_contents]
_sources.append(("--config", dict(workflow.config_settings.config)))
try:
    validate_config(config, _schema, Path.cwd(), _sources)
except ConfigError as _err:
    raise WorkflowError(str(_err)) from None

# A real cohort refuses simulated models and raters (eibench.cohorts.simulated_on_real), in
# validate_config: the run stops here, before any job, naming the config keys and the overlay.
CONFIG_DIGEST = digest(config)
# Public data the run needs: each included replication's dataset, and a real cohort's. It must
# be at hand (fetched, mirrored or downloadable), else the run stops here, before any job,
# saying how to provide it.
REPLICATIONS = list(config["replications"]["include"])
_needed = {name: f"replications.include lists {name!r}" for name in REPLICATIONS}
if config["cohort"] == "esconv":
    _needed["esconv"] = "cohort is 'esconv'"
for _name, _who in _needed.items():
    if _name not in config["datasets"]:
        raise WorkflowError(
            f"{_who}, which is not in the dataset registry (config datasets); "
            f"restore its entry from config/config.yaml"
        )
    _why = unavailable(_name, config["datasets"][_name], Path("results/data") / _name)
    if _why:
        raise WorkflowError(f"{_who}, but {_why}")
# The analyses the paper reports on public data: each included dataset's replication, and the
# cross-benchmark agreement whenever both EQ-Bench and EmoBench-M are included.
REPLICATION_ANALYSES = REPLICATIONS + (["cross_benchmark"] if {"eqbench", "emobench_m"} <= set(REPLICATIONS) else [])
# The reproducibility statement of the paper: the state of the source tree, the package
# versions of this environment and the command of this run, read when the workflow is parsed.
# They are params of paper_numbers (report.smk), so a new commit, a change to an uncommitted tree, a package
# upgrade or another command line reruns paper_numbers and the paper (and nothing else); a
# second run of the same tree does nothing. A copy of the sources without .git (the tests')
# reads "not a git checkout".
GIT_STATE = git_state(REPO)
PACKAGE_VERSIONS = package_versions(freeze=True)
REBUILD_COMMAND = rebuild_command(
    workflow.config_settings.configfiles, dict(workflow.config_settings.config), Path.cwd()
)
MODELS = {m["name"]: m for m in config["models"]}
MODES = list(config["modes"])
SIMULATED = [n for n, m in MODELS.items() if m["kind"] == "simulated"]
BASELINES = [n for n, m in MODELS.items() if m["kind"] == "baseline"]
LIVE = [n for n, m in MODELS.items() if m["kind"] in ("openai_compatible", "anthropic")]
NEVER = "(?!x)x"  # a wildcard pattern that matches nothing (for an empty list of models)
GOLD = {name: f"results/tables/gold/{name}.parquet" for name in GOLD_TABLES}


def cohort_dir():
    """The folder of the cohort's conversation files (generated, adapted, or a release on disk)."""
    if config["cohort"] in ("synthetic", "esconv"):
        return f"results/cohort/{config['cohort']}/conversations"
    return config["cohorts"]["attunebench"]["path"]


# The release folder's files as one digest (count, sha256 of their sha256sum listing): a param
# of ingest_conversations, whose input is the folder alone, so that editing, adding or removing
# a file reruns the ingest while a failed job prints one path, not every file of the folder.
COHORT_DIGEST = list(files_digest([cohort_dir()])) if config["cohort"] == "attunebench" else None


def cohort_input(wildcards):
    """The cohort's conversation files as inputs of the reproducibility statement: the generated
    or adapted folder, or every ``*.json`` file of the release (the folder itself when a file name
    holds a brace, eibench.release.folders)."""
    if config["cohort"] in ("synthetic", "esconv"):
        return [cohort_dir()]
    return rule_inputs(cohort_dir())


def one_of(names):
    """A wildcard pattern matching exactly these names."""
    return "|".join(map(re.escape, names)) or NEVER


def n_shards(name):
    """Collection jobs of a model: live models are sharded, the others run in one job."""
    model = MODELS[name]
    if model["kind"] in ("openai_compatible", "anthropic"):
        return model.get("shards", config["collection"]["shards"])
    return 1


def prediction_input(wildcards):
    """Where a model's EM output files for a mode come from: its shard folders, or the files
    of an outputs_dir (listed one by one so that editing any file reruns what depends on it)."""
    model = MODELS[wildcards.model]
    if model["kind"] == "outputs_dir":
        return rule_inputs(Path(model["path"]) / wildcards.mode)
    return [
        f"results/predictions/{wildcards.model}/{wildcards.mode}/shard-{k}" for k in range(n_shards(wildcards.model))
    ]


# An outputs_dir folder with a file name holding a brace is a rule input as a whole
# (eibench.release.folders); the digest of its files is then a param, so that editing any of them
# reruns the rule. (The release folder is always the ingest's input as a whole: COHORT_DIGEST.)
OUTPUT_FOLDERS = {
    (m["name"], mode): Path(m["path"]) / mode for m in config["models"] if m["kind"] == "outputs_dir" for mode in MODES
}
OUTPUT_LISTINGS = {key: d for key, folder in OUTPUT_FOLDERS.items() if (d := listing_digest(folder)) is not None}


def prediction_listing(wildcards):
    return OUTPUT_LISTINGS.get((wildcards.model, wildcards.mode))


def prediction_sets():
    """Every model's EM output files (or shard folders) per mode, keyed "<model>/<mode>": the
    inputs whose checksums the reproducibility statement prints."""
    return {f"{m}/{mode}": prediction_input(SimpleNamespace(model=m, mode=mode)) for m in MODELS for mode in MODES}


def em_table(model, mode, name):
    return f"results/tables/predictions/{model}/{mode}/{name}.parquet"


def em_tables(wildcards):
    return {name: em_table(wildcards.model, wildcards.mode, name) for name in EM_TABLES}


SCORE_PARTS = ("turn", "conversation", "summary", "rule_counts", "missing", "invalid")


def paper_table(name, rule, subcategory):
    """The printed table ``results/paper/tables/<name>.csv`` as an item of the audit report
    (`snakemake --report`), captioned by ``workflow/report/table_<name>.rst`` with its rule.
    A table without its caption file stops the parse here, not only `snakemake --report`."""
    caption = REPO / "workflow" / "report" / f"table_{name}.rst"
    if not caption.is_file():
        raise ValueError(f"the printed table {name!r} has no caption: write {caption.relative_to(REPO)}")
    return report(
        f"results/paper/tables/{name}.csv",
        caption=f"../report/table_{name}.rst",
        category="Tables",
        subcategory=subcategory,
        labels={"table": name, "rule": rule},
    )


def scores_of(part):
    return expand(f"results/scores/{{model}}/{{mode}}/{part}.parquet", model=list(MODELS), mode=MODES)


def model_roles():
    """The role of each model in tables and figures: model, human (rater) or baseline."""
    return {
        n: "human" if m.get("profile") == "human" else "baseline" if m["kind"] == "baseline" else "model"
        for n, m in MODELS.items()
    }


# The statistics rules' params (workflow/rules/stats.smk).
RESAMPLING = ("cluster", "n_bootstrap")


def stats_params(*keys):
    """The params of a statistics rule: only the statistics keys it reads (with the mode and
    rule set of every analysis), so that editing one setting reruns only the rules using it."""
    section = config["statistics"]
    roles = model_roles()
    if section["baselines_as_models"]:
        roles = {n: "model" if r == "baseline" else r for n, r in roles.items()}
    return {"stats": {k: section[k] for k in ("mode", "rule_set", *keys)}, "seed": config["seed"], "roles": roles}


# The roles the leaderboard ranks and the analyses compare: the evaluated models, and the
# baselines too on a cohort without evaluated models (statistics.baselines_as_models).
ANALYSED_ROLES = ["model", "baseline"] if config["statistics"]["baselines_as_models"] else ["model"]


# Cluster resources (docs/cluster.md): each rule's memory (MB) and wall time (minutes), derived
# from the peaks its benchmark: file measured (benchmarks/rule_resources.csv, regenerated by
# benchmarks/rule_resources.py). A rule without a row there asks for the defaults of eibench.cluster.
RULE_RESOURCES = read_declared(REPO / "benchmarks/rule_resources.csv")


def measured(rule):
    """The resources: of a rule from its measured peaks (or the defaults); memory and time
    double at each retry, so a cluster job killed for exceeding them comes back with twice as
    much (the SLURM profile allows one retry; a local run has none)."""
    row = RULE_RESOURCES.get(rule, {"mem_mb": DEFAULT_MEM_MB, "runtime": DEFAULT_RUNTIME_MIN})
    return {
        "mem_mb": lambda wildcards, attempt: row["mem_mb"] * 2 ** (attempt - 1),
        "runtime": lambda wildcards, attempt: row["runtime"] * 2 ** (attempt - 1),
    }


# Reruns follow the code: every rule with a script gets a param `library`, the sha256 of the
# library files its script imports (transitively within workflow/eibench/, with the data files
# of their packages; eibench/code_digest.py). Snakemake reruns a job whose params changed, so
# editing a library module reruns exactly the rules whose scripts import it and the jobs
# downstream of them; the digest is also in each job's record in results/manifest.json. Set by
# add_library_params at the end of the Snakefile, once every rule exists; the library is read
# once per parse.
LIBRARY = Library(REPO / "workflow/eibench")
# The digest of every library file that some script runs, printed in the reproducibility
# statement (param of paper_numbers), to be compared with the `library` params in the manifest.
LIBRARY_DIGEST = LIBRARY.digest(
    {f for script in (REPO / "workflow/scripts").glob("*.py") for f in LIBRARY.files(script)}
)


def add_library_params(rules):
    """Give each scripted rule the param `library`, the digest of the library code it runs, and
    rule paper_numbers the param `rule_scripts`, every rule's script (the numbers file names the
    script behind each number from it)."""
    scripts = rule_scripts(rules, REPO)
    for each in rules:
        if each.script is None:
            continue
        if "library" in each.params.keys():
            raise WorkflowError(
                f"rule {each.name} declares a param 'library', the name of the digest of the "
                f"library code its script imports (common.smk); rename it"
            )
        each.set_params(library=LIBRARY.script_digest(REPO / scripts[each.name]))
        if each.name == "paper_numbers":
            each.set_params(rule_scripts=scripts)


# The fork server (eibench/forkserver): a local run starts one process that imports what the
# rule scripts import, and each script's first statement, hand_off(), runs its job in a fork
# of it, so that no job spends its first second importing. Same files either way
# (tests/workflow/test_workflow.py); EIBENCH_FORKSERVER=0 runs every job cold, as a cluster
# run does; logs/forkserver.log says which.
onstart:
    forkserver.start(local=workflow.local_exec, scripts=REPO / "workflow/scripts")


onsuccess:
    forkserver.stop()


onerror:
    forkserver.stop()
