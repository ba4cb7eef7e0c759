"""Every published AttuneBench metric and the composite (spec: docs/metrics.md).

- ``registry``: each metric declared once (direction, range, level, pillar, definition).
- ``labels``: the small pure functions of label matching (set F1, VA similarity, assignment,
  token Jaccard, fuzzy F1).
- ``emotion``, ``binary``, ``pairwise``, ``holistic``, ``draft``: vectorised scorers over the
  tidy tables.
- ``composite``: pillars and composites.
- ``score``: one model's per-turn and per-conversation tables, and the per-model table.

Two rule sets: ``parity`` reproduces the public scorer (its fallbacks are counted), ``strict``
excludes empty turns and counts a missing or invalid prediction as wrong. ``rules``: one flag per
rule choice, and the port setting (``compat='port'``) that makes parity reproduce the public
TypeScript port (docs/metrics.md, "Divergences from the public port").
"""

RULE_SETS = ("parity", "strict")
