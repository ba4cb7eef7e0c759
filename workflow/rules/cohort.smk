# The cohort: generated (synthetic) or read from a release, then validated into tidy tables.


rule synthetic_cohort:
    """Generate the synthetic cohort's conversation files and its planted truth."""
    output:
        conversations=directory("results/cohort/synthetic/conversations"),
        truth="results/cohort/synthetic/truth.json",
    log:
        "logs/cohort/synthetic_cohort.log",
    benchmark:
        "logs/benchmarks/synthetic_cohort.tsv"
    threads: 1
    resources:
        **measured("synthetic_cohort"),
    params:
        # the generator's settings (its `about` is the paper's wording, not an input of the data)
        synthetic={k: v for k, v in config["cohorts"]["synthetic"].items() if k != "about"},
        seed=config["seed"],
    script:
        "../scripts/generate_cohort.py"


rule ingest_conversations:
    """Validate every conversation file and write the gold tidy tables."""
    input:
        cohort_dir(),
    output:
        **GOLD,
        report="results/tables/gold/ingest_report.json",
    log:
        "logs/cohort/ingest_conversations.log",
    benchmark:
        "logs/benchmarks/ingest_conversations.tsv"
    threads: 1
    resources:
        **measured("ingest_conversations"),
    params:
        **({"cohort_files": COHORT_DIGEST} if COHORT_DIGEST else {}),
        report_all=config["ingest"]["report_all_errors"],
        # a release folder's content (common.smk, COHORT_DIGEST): a changed file reruns this job
    script:
        "../scripts/ingest_conversations.py"


rule esconv_cohort:
    """Adapt the public ESConv chats (fetched or mirrored, checksums verified) into release-format
    conversation files: only what corresponds is kept, each mapping in docs/esconv.md."""
    input:
        "results/data/esconv",
    output:
        conversations=directory("results/cohort/esconv/conversations"),
        counts="results/cohort/esconv/counts.json",
    log:
        "logs/cohort/esconv_cohort.log",
    benchmark:
        "logs/benchmarks/esconv_cohort.tsv"
    threads: 1
    resources:
        **measured("esconv_cohort"),
    params:
        limit=config["cohorts"]["esconv"]["limit"],
        splits=config["cohorts"]["esconv"].get("splits", ["train", "valid", "test"]),
        max_turns=config["cohorts"]["esconv"].get("max_turns"),
    script:
        "../scripts/adapt_esconv.py"
