# Operating characteristics of every claim's verdict rule over simulated studies of this
# study's design, and the design curves (docs/statistics.md, "Operating characteristics").


rule stats_operating:
    """Every claim's verdict rule on simulated null, planted and at-the-margin studies: power,
    false-positive rate, coverage and sign recovery per claim."""
    input:
        design="results/stats/design.json",
    output:
        claims="results/stats/operating/claims.csv",
        verdicts="results/stats/operating/verdicts.csv",
    log:
        "logs/stats/operating.log",
    benchmark:
        "logs/benchmarks/stats_operating.tsv"
    # One of the run's longest jobs: started first once its inputs exist, so that on a few
    # cores the short jobs fill in around it instead of delaying it to the end.
    priority: 1
    threads: 1
    resources:
        **measured("stats_operating"),
    params:
        **stats_params("alpha", "claims", "simulation", "operating"),
        part="claims",
    script:
        "../scripts/stats_operating.py"


rule stats_operating_curves:
    """Design curves: power of the independence claim against the number of models, its margin
    against the smallest detected tau, power of the diagnosis claim against the number of
    participants, reliability and signal-to-noise against the number of conversations."""
    input:
        design="results/stats/design.json",
    output:
        models="results/stats/operating/models.csv",
        margins="results/stats/operating/margins.csv",
        participants="results/stats/operating/participants.csv",
        conversations="results/stats/operating/conversations.csv",
    log:
        "logs/stats/operating_curves.log",
    benchmark:
        "logs/benchmarks/stats_operating_curves.tsv"
    # One of the run's longest jobs: started first once its inputs exist, so that on a few
    # cores the short jobs fill in around it instead of delaying it to the end.
    priority: 3
    threads: 1
    resources:
        **measured("stats_operating_curves"),
    params:
        **stats_params("alpha", "claims", "simulation", "operating"),
        part="curves",
    script:
        "../scripts/stats_operating.py"


rule figure_operating:
    """The design curves: power of the independence and diagnosis claims against the design's
    size, reliability and signal-to-noise against the number of conversations."""
    input:
        models="results/stats/operating/models.csv",
        participants="results/stats/operating/participants.csv",
        conversations="results/stats/operating/conversations.csv",
    output:
        figure=report(
            "results/figures/operating.svg",
            caption="../report/figure_operating.rst",
            category="Figures",
            subcategory="Validation",
            labels={"figure": "operating", "rule": "figure_operating"},
        ),
    log:
        "logs/report/figure_operating.log",
    benchmark:
        "logs/benchmarks/figure_operating.tsv"
    threads: 1
    resources:
        **measured("figure_operating"),
    params:
        power_bar=0.8,  # the conventional power the curves are read against (docs/statistics.md)
    script:
        "../scripts/figure_operating.py"
