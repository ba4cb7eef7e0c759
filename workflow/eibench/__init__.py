"""eibench: the library behind a reproducible conversational emotional-intelligence benchmark paper.

Pure functions, unit-tested without Snakemake. The workflow's rule scripts
(``workflow/scripts``) are thin entry points that call into this package.

Sub-packages, one job each:

- ``instrument``: the benchmark instrument (36 behaviour questions, pairwise questions,
  PANAS-SF items with valence/arousal, survey options), shipped as data files.
- ``release``: the AttuneBench release format: value normalisation, validation of
  conversation and evaluated-model (EM) output files, tidy tables, writing EM outputs.
- ``synthetic``: the seeded synthetic cohort (gold annotations) and the prediction
  simulator with planted effects.
- ``metrics``: every published metric and the composite.
- ``report``: tables, figures and the numbers file the manuscript reads.
"""

__version__ = "0.1.0"
