# The paper rebuilds itself: `snakemake --cores 8` runs the cohort through validation,
# prediction collection, scoring, statistics, figures and tables into paper/build/paper.pdf,
# then lists every file it made, with its sha256 and the job that wrote it, in results/manifest.json.
# This file holds targets and includes only; the rules live in workflow/rules/.

from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"


wildcard_constraints:
    model="|".join(map(re.escape, MODELS)),
    mode="|".join(MODES),


include: "workflow/rules/data.smk"
include: "workflow/rules/public.smk"
include: "workflow/rules/cohort.smk"
include: "workflow/rules/predict.smk"
include: "workflow/rules/score.smk"
include: "workflow/rules/stats.smk"
include: "workflow/rules/uncertainty.smk"
include: "workflow/rules/truth.smk"
include: "workflow/rules/operating.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/paper.smk"
include: "workflow/rules/audit.smk"
include: "workflow/rules/notebooks.smk"
include: "workflow/rules/checks.smk"


rule all:
    default_target: True
    input:
        "paper/build/paper.pdf",
        "results/manifest.json",
        expand("results/notebooks/{notebook}.html", notebook=NOTEBOOKS),


# Every rule exists now: give each rule with a script the digest of the library code it runs
# (common.smk), so that editing the library reruns what it computed.
add_library_params(workflow.rules)
