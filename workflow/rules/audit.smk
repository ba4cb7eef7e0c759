# The audit trail: a manifest of every file the run left in results/ (and the paper), with its
# sha256 and the job that wrote it. It depends on the paper, so it runs last.


rule manifest:
    """List every file of this run in results/ (its job upstream of the paper) and the paper with
    size, sha256, rule, script, inputs and params (read from the provenance line each job writes
    at the end of its log)."""
    input:
        pdf="paper/build/paper.pdf",
    output:
        manifest=report(
            "results/manifest.json",
            caption="../report/manifest.rst",
            category="Audit",
            subcategory="Manifest",
            labels={"file": "manifest.json", "rule": "manifest"},
        ),
    log:
        "logs/audit/manifest.log",
    benchmark:
        "logs/benchmarks/manifest.tsv"
    threads: 1
    resources:
        **measured("manifest"),
    params:
        folders=["results", "paper/build/paper.pdf"],
        # the executed notebooks read this manifest, so they come after it (notebooks.smk)
        exclude_folders=["results/notebooks"],
        logs="logs",
    script:
        "../scripts/audit_manifest.py"
