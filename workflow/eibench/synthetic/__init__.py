"""The synthetic cohort: a seeded generator of release-format conversations (gold annotations)
and a simulator of evaluated-model predictions with planted effects.

The generative model is documented in docs/synthetic-cohort.md; every parameter is a config
key (``cohorts.synthetic`` for the cohort, ``simulation`` for the predictions). Simulated
participants, original models and evaluated models carry neutral names (P01, om-a, sim-01),
never the names of real people or systems.
"""
