# The follow-up notebooks (notebooks/*.ipynb, paired with their .py scripts by jupytext), executed
# after the build on its results and rendered to HTML for the audit report (`snakemake --report`),
# so that a reviewer sees their outputs without running anything. They read results/manifest.json
# (the run's settings, from its provenance records), so they run after the manifest and are not
# listed in it; each job's own provenance record is the last line of its log.

# A notebook is NAME.ipynb with a plain NAME: the copies Jupyter writes beside it
# (NAME.nbconvert.ipynb from `jupyter nbconvert --execute`) are not notebooks of the run.
NOTEBOOKS = sorted(p.stem for p in Path("notebooks").glob("[0-9]*.ipynb") if "." not in p.stem)


rule notebook:
    """Execute one notebook top to bottom in a fresh kernel (working folder notebooks/, so it
    finds ../results), seeded from the run's seed, each cell within the timeout; write the
    executed notebook and its HTML rendering. A failing cell fails the job, naming the cell."""
    input:
        notebook="notebooks/{notebook}.ipynb",
        manifest="results/manifest.json",
        numbers="results/paper/numbers.json",
    output:
        executed="results/notebooks/{notebook}.ipynb",
        html=report(
            "results/notebooks/{notebook}.html",
            caption="../report/notebook.rst",
            category="Notebooks",
            labels={"notebook": "{notebook}", "rule": "notebook"},
        ),
    log:
        "logs/notebooks/{notebook}.log",
    benchmark:
        "logs/benchmarks/notebook/{notebook}.tsv"
    wildcard_constraints:
        notebook="|".join(map(re.escape, NOTEBOOKS)) or "no-notebooks",
    threads: 1
    resources:
        **measured("notebook"),
    params:
        seed=config["seed"],
        timeout=600,  # seconds per cell; the slowest cell takes a few seconds on the default build
    script:
        "../scripts/execute_notebook.py"
