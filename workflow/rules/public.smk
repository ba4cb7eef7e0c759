# Replications on public data: the analyses of EQ-Bench and EmoBench-M that the paper reports
# when `replications.include` names them (each reads its dataset from results/data/<name>/,
# provided by rule fetch_dataset). Not part of the default, offline run.


rule eqbench_replication:
    """EQ-Bench: the stored scores recomputed from the per-item answers; ranking reliability
    against the number of items."""
    input:
        data="results/data/eqbench",
    output:
        scores="results/public/eqbench/scores.csv",
        curve="results/public/eqbench/reliability_curve.csv",
        summary="results/public/eqbench/summary.json",
    log:
        "logs/public/eqbench_replication.log",
    benchmark:
        "logs/benchmarks/eqbench_replication.tsv"
    threads: 1
    resources:
        **measured("eqbench_replication"),
    params:
        settings=config["replications"]["eqbench"],
        seed=config["seed"],
    script:
        "../scripts/eqbench_replication.py"


rule emobench_m_replication:
    """EmoBench-M: the published averages recomputed; rank independence, discriminability and
    human gaps across its dimensions and scenarios."""
    input:
        data="results/data/emobench_m",
    output:
        averages="results/public/emobench_m/averages.csv",
        rank_pairs="results/public/emobench_m/rank_pairs.csv",
        concordance="results/public/emobench_m/concordance.csv",
        discriminability="results/public/emobench_m/discriminability.csv",
        human_gaps="results/public/emobench_m/human_gaps.csv",
        summary="results/public/emobench_m/summary.json",
    log:
        "logs/public/emobench_m_replication.log",
    benchmark:
        "logs/benchmarks/emobench_m_replication.tsv"
    threads: 1
    resources:
        **measured("emobench_m_replication"),
    params:
        settings=config["replications"]["emobench_m"],
        seed=config["seed"],
    script:
        "../scripts/emobench_m_replication.py"


rule cross_benchmark_replication:
    """EQ-Bench against EmoBench-M: rank agreement on the model families both cover (run when
    replications.include names both; docs/cross_benchmark.md)."""
    input:
        eqbench="results/data/eqbench",
        emobench_m="results/data/emobench_m",
        mapping="workflow/eibench/public/model_families.csv",
    output:
        pairs="results/public/cross_benchmark/pairs.csv",
        agreement="results/public/cross_benchmark/agreement.csv",
        units="results/public/cross_benchmark/units.csv",
        table="results/public/cross_benchmark/table.csv",
        summary="results/public/cross_benchmark/summary.json",
    log:
        "logs/public/cross_benchmark_replication.log",
    benchmark:
        "logs/benchmarks/cross_benchmark_replication.tsv"
    threads: 1
    resources:
        **measured("cross_benchmark_replication"),
    params:
        settings=config["replications"]["cross_benchmark"],
        seed=config["seed"],
    script:
        "../scripts/cross_benchmark_replication.py"
