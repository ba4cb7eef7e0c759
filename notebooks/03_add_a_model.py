# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Add a model's prediction files and watch the leaderboard change
#
# You have a new model's answers as release-format EM output files (one JSON file per
# conversation, `docs/release-format.md`). Before running the workflow on them, this notebook
# validates and scores them in-process with the library, against the gold tables of an
# existing run, and shows where the model would land on the leaderboard. It reads `results/`
# and writes nothing there: the new files live in a temporary folder.
#
# For the demonstration the "new model" is made from an existing one: its output files are
# copied, renamed (`em_model`) and a share of its answers is flipped with a fixed seed.
# To score your own files instead, set `NEW_FILES` to their folder (`<folder>/*.json` for
# `MODE`) and `NEW_MODEL` to the `em_model` they carry.

# %%
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from eibench.metrics import RULE_SETS
from eibench.metrics.score import model_summary, score_rule_sets
from eibench.release.ingest import ingest_em_outputs
from eibench.release.read import ReleaseFormatError
from eibench.release.tidy import GOLD_TABLES
from eibench.release.write import write_json
from eibench.report.leaderboard import leaderboard
from eibench.tables import read_parquet
from IPython.display import display

RESULTS = Path("results") if Path("results").exists() else Path("../results")
NEW_MODEL = None  # a safe id (letters, digits, '_', '-', '.'); None: "new-model", or the first free "new-model-N"
NEW_FILES = None  # None: build the demonstration files below; else a folder of <NEW_MODEL>'s *.json
SOURCE_MODEL = None  # the model the demonstration copies (None: the best-ranked model)
FLIP_SHARE = 0.3  # share of yes/no answers and A/B picks flipped in the demonstration copy
PERTURB_SEED = 7
MODE, RULE_SET = "default", "parity"

# %% [markdown]
# ## The leaderboard of the run

# %%
BOARD_COLUMNS = [
    "rank",
    "em_model",
    "role",
    "composite",
    "composite_lo",
    "composite_hi",
    "tracking",
    "evaluation",
    "holistic",
    "n_conversations",
]
board = pd.read_csv(RESULTS / "scores" / "leaderboard.csv")
shown = board[(board["mode"] == MODE) & (board["rule_set"] == RULE_SET)]
taken = set(board["em_model"])
NEW_MODEL = NEW_MODEL or next(n for n in ("new-model", *(f"new-model-{k}" for k in range(2, 1000))) if n not in taken)
assert NEW_MODEL not in taken, f"{NEW_MODEL!r} is already a model of the run: choose another name"
# The best evaluated model whose output files the run collected under results/predictions/ (a
# model of kind outputs_dir is read from its own folder, so it has none there); a cohort compared
# with baselines only (e.g. ESConv) has no evaluated model: its best baseline.
collected = shown[[any((RESULTS / "predictions" / m / MODE).glob("shard-*/*.json")) for m in shown["em_model"]]]
assert len(collected), f"no model of the run has output files under {RESULTS / 'predictions'}/<model>/{MODE}/"
source_role = "model" if (collected["role"] == "model").any() else "baseline"
SOURCE_MODEL = SOURCE_MODEL or collected[collected["role"] == source_role].sort_values("rank")["em_model"].iloc[0]
shown[BOARD_COLUMNS]

# %% [markdown]
# ## The gold tables and the scoring settings of the run
#
# The scorer compares predictions with the validated gold tables of `results/tables/gold/`.
# The scoring settings (`va_matching`, how predicted emotion labels are matched to gold ones, and
# `compat`, which scorer the parity rule set reproduces) are taken from the provenance record of the run's scoring
# job in `results/manifest.json` (or,
# without one, from `config/config.yaml` next to `results/`).

# %%
gold = {name: read_parquet(RESULTS / "tables" / "gold" / f"{name}.parquet", spec) for name, spec in GOLD_TABLES.items()}
known = set(gold["conversations"]["conversation_id"])
manifest = json.loads((RESULTS / "manifest.json").read_text(encoding="utf-8"))
score_jobs = [j for j in manifest["jobs"] if j["rule"] == "score_model"]
if score_jobs:
    VA_MATCHING = score_jobs[0]["params"]["va_matching"]
    COMPAT = score_jobs[0]["params"].get("compat", "none")  # runs before the setting existed: none
else:  # a manifest without provenance records: the configuration next to results/
    config = yaml.safe_load((RESULTS.parent / "config" / "config.yaml").read_text(encoding="utf-8"))
    VA_MATCHING, COMPAT = config["scoring"]["va_matching"], config["scoring"]["compat"]
print(f"{len(known)} conversations in the cohort; va_matching = {VA_MATCHING}; compat = {COMPAT}")

# %% [markdown]
# ## The new model's files (demonstration)
#
# The source model's output files, from every shard of `results/predictions/<model>/<mode>/`,
# are copied to a temporary folder laid out as an `outputs_dir` model: `<folder>/<mode>/*.json`.
# Two copies: one unchanged but for its name (to check that in-process scoring reproduces the
# pipeline), and the demonstration model, whose binary answers (yes <-> no) and pairwise picks
# (A <-> B) are each flipped with probability `FLIP_SHARE`.

# %%
workdir = Path(tempfile.mkdtemp(prefix="eibench-new-model-"))
BINARY_FIELDS = (
    "em_binary_om_assessment",
    "em_binary_human_prediction",
    "em_binary_om_assessment_hp",
    "em_binary_human_prediction_hp",
)
FLIP = {"yes": "no", "no": "yes", "A": "B", "B": "A"}


def copy_outputs(model: str, name: str, flip_share: float, seed: int) -> Path:
    """``model``'s EM output files for MODE renamed to ``name``, a share of answers flipped."""
    rng = np.random.default_rng(seed)
    folder = workdir / name / MODE
    folder.mkdir(parents=True)
    n_flipped = 0
    for path in sorted((RESULTS / "predictions" / model / MODE).glob("shard-*/*.json")):
        out = json.loads(path.read_text(encoding="utf-8"))
        out["em_model"] = name
        for turn in out.get("turns") or []:
            for field in (*BINARY_FIELDS, "em_pairwise_selections"):
                answers = turn.get(field) or {}
                for key in sorted(answers):
                    value = answers[key]
                    if isinstance(value, str) and value in FLIP and rng.random() < flip_share:
                        answers[key] = FLIP[value]
                        n_flipped += 1
        write_json(out, folder / path.name)
    print(f"{name}: {len(list(folder.glob('*.json')))} files from {model}, {n_flipped} answers flipped")
    return folder


control = copy_outputs(SOURCE_MODEL, f"{SOURCE_MODEL}-copy", 0.0, PERTURB_SEED)
if NEW_FILES is None:
    NEW_FILES = copy_outputs(SOURCE_MODEL, NEW_MODEL, FLIP_SHARE, PERTURB_SEED)
NEW_FILES = Path(NEW_FILES)

# %% [markdown]
# ## Validate
#
# `ingest_em_outputs` reads and checks every file (field types, `em_model` and `mode` equal to
# the registered model and mode, each conversation once and part of the cohort) and tidies them
# into the EM tables. An invalid file stops here with the file, the JSON path and the problem,
# exactly as it would stop the workflow before scoring. For instance, a file that still carries
# the source model's name:

# %%
bad = workdir / "bad" / MODE
bad.mkdir(parents=True)
first = sorted(NEW_FILES.glob("*.json"))[0]
write_json({**json.loads(first.read_text(encoding="utf-8")), "em_model": SOURCE_MODEL}, bad / first.name)
try:
    ingest_em_outputs([bad], NEW_MODEL, MODE, known)
    raise AssertionError("an invalid file passed validation")
except ReleaseFormatError as error:
    print(str(error).replace(str(workdir), "<workdir>")[:600])  # the temporary folder's name varies

# %%
ingest = ingest_em_outputs([NEW_FILES], NEW_MODEL, MODE, known)
print(f"{ingest.n_files} valid files; tables: " + ", ".join(f"{k} ({len(v)} rows)" for k, v in ingest.tables.items()))

# %% [markdown]
# ## Score
#
# `score_rule_sets` computes every metric per turn and per conversation under both rule sets
# (parity and strict), and `model_summary` the model's means over conversations, as the
# `score_model` rule does.


# %%
def score(tables: dict[str, pd.DataFrame], name: str) -> pd.DataFrame:
    """The long summary of one model (as results/scores/model_summary.parquet)."""
    parts = []
    for rule_set, s in score_rule_sets(gold, tables, RULE_SETS, VA_MATCHING, COMPAT).items():
        summary = model_summary(s.turn, s.conversation, len(gold["conversations"]))
        summary.insert(0, "rule_set", rule_set)
        parts.append(summary)
    out = pd.concat(parts, ignore_index=True)
    out.insert(0, "mode", MODE)
    out.insert(0, "em_model", name)
    out["role"] = "model"
    return out


new_summary = score(ingest.tables, NEW_MODEL)
new_summary[(new_summary["rule_set"] == RULE_SET) & (new_summary["subset"] == "all")].head(12)

# %% [markdown]
# ## Check: the unchanged copy scores exactly as the pipeline scored the source model
#
# The renamed, unperturbed copy goes through the same validation and scoring; its means must
# equal those of `results/scores/<source>/<mode>/summary.parquet` (written by the workflow)
# to floating-point precision.

# %%
control_name = f"{SOURCE_MODEL}-copy"
copy_summary = score(ingest_em_outputs([control], control_name, MODE, known).tables, control_name)
pipeline_summary = pd.read_parquet(RESULTS / "scores" / SOURCE_MODEL / MODE / "summary.parquet")
keys = ["rule_set", "metric", "subset"]
both = copy_summary.merge(pipeline_summary, on=keys, suffixes=("", "_pipeline"))
assert len(both) == len(pipeline_summary) == len(copy_summary)
assert np.allclose(both["mean"], both["mean_pipeline"], rtol=0, atol=1e-9, equal_nan=True)
assert np.allclose(both["se"], both["se_pipeline"], rtol=0, atol=1e-9, equal_nan=True)
assert (both["n"] == both["n_pipeline"]).all()
print(f"{len(both)} summary rows of {control_name} equal the pipeline's rows of {SOURCE_MODEL}")

# %% [markdown]
# ## The leaderboard with the new model
#
# The run's per-model summaries (`results/scores/model_summary.parquet`) plus the new model's,
# through the workflow's own `leaderboard` function: same columns, same normal intervals, same
# ranking (evaluated models only; human raters and baselines are shown unranked).

# %%
existing = pd.read_parquet(RESULTS / "scores" / "model_summary.parquet")
new_board = leaderboard(pd.concat([existing, new_summary], ignore_index=True))

# The existing rows are unchanged but for their rank: the function reproduces the run's file.
same = new_board[new_board["em_model"] != NEW_MODEL].merge(
    board, on=["em_model", "mode", "rule_set"], suffixes=("", "_run")
)
assert len(same) == len(board)
for column in ("composite", "composite_lo", "composite_hi", "tracking", "evaluation", "holistic"):
    assert np.allclose(same[column], same[f"{column}_run"], rtol=1e-9, atol=1e-12, equal_nan=True), column

after = new_board[(new_board["mode"] == MODE) & (new_board["rule_set"] == RULE_SET)]
after = after.merge(shown[["em_model", "rank"]].rename(columns={"rank": "rank_before"}), on="em_model", how="left")
after["rank_before"] = after["rank_before"].astype("Int64")
print(
    f"{NEW_MODEL}: rank {after.set_index('em_model').loc[NEW_MODEL, 'rank']} of "
    f"{int(after['rank'].notna().sum())} evaluated models ({MODE}, {RULE_SET})"
)
after["new"] = np.where(after["em_model"] == NEW_MODEL, "<- new", "")
display(after[BOARD_COLUMNS + ["rank_before", "new"]])

# %%
# The demonstration model flips answers of the source model (each answer to the other of its two
# options). That lowers the binary and pairwise scores of a source better than chance (evaluation
# above 0.5); a source at or below chance (a small real model on a few conversations) can gain
# from it. The emotion tags are untouched either way (a cohort without them, such as ESConv, has
# no tracking score: missing for both; one without behaviour judgements has no evaluation score,
# and nothing is compared).
row = after.set_index("em_model")
if FLIP_SHARE > 0 and NEW_MODEL != SOURCE_MODEL and (workdir / NEW_MODEL).exists():
    if row.loc[SOURCE_MODEL, "evaluation"] > 0.5:
        assert row.loc[NEW_MODEL, "evaluation"] < row.loc[SOURCE_MODEL, "evaluation"]
    assert np.allclose(row.loc[NEW_MODEL, "tracking"], row.loc[SOURCE_MODEL, "tracking"], equal_nan=True)

# %%
shutil.rmtree(workdir)

# %% [markdown]
# ## Adding the model for real
#
# The numbers above are the workflow's numbers for these files, but only the workflow puts the
# model into the paper, the statistics and `results/`. Put the files in a folder laid out as
# `<path>/<mode>/*.json` (one file per conversation, every file's `em_model` equal to the
# model's name), add the model to `models` in `config/config.yaml`:
#
# ```yaml
# models:
#   # ... the existing models ...
#   - {name: my-model, kind: outputs_dir, path: /data/outputs/my-model}   # reads /data/outputs/my-model/default/*.json
# ```
#
# and run the main command:
#
# ```bash
# .venv/bin/snakemake --cores 8
# ```
#
# Snakemake validates and scores only the new model, then reruns the aggregation, the
# statistics and the paper. Every file is validated first; an invalid file stops the run with
# its name, the JSON path and the problem (`ingest.report_all_errors: true` lists every bad file
# at once). See "Using your own data" in the README and `docs/release-format.md`.
