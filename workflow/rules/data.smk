# Public datasets of the replications: each registered dataset (config `datasets`) is provided in
# results/data/<name>/, every file checked against its pinned sha256 (docs/public-data.md). Not
# part of the default run, which stays offline.


rule fetch_dataset:
    """Copy a dataset's files from its mirror, or download them, and check every sha256."""
    output:
        directory("results/data/{dataset}"),
    log:
        "logs/data/fetch_{dataset}.log",
    benchmark:
        "logs/benchmarks/fetch_dataset/{dataset}.tsv"
    wildcard_constraints:
        dataset=one_of(config["datasets"]),
    threads: 1
    resources:
        **measured("fetch_dataset"),
    params:
        dataset=lambda wc: wc.dataset,
        spec=lambda wc: config["datasets"][wc.dataset],
    script:
        "../scripts/fetch_dataset.py"
