"""The statistics of the paper: uncertainty, rank independence, discriminability, subgroups,
topics, turn drift, the human baseline, turn- vs conversation-level profiles, pre-registered
claims with multiplicity control, and validation of all of it by simulation.

Every analysis works on a ``Study``: per-conversation metric values of every model (the
sufficient statistics of the means), conversation covariates and turn-level values. Intervals
resample clusters (conversations by default, participants as an option) and reuse the same
resamples across models and metrics, so differences and rank statistics are paired.
"""
