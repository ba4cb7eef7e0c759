"""Only the objects with a field of several spellings run the null-spelling check, and every
such object runs it (release.schema._SpelledNode)."""

from __future__ import annotations

import inspect

import pytest
from eibench.release import schema
from eibench.release.schema import BinaryJudgement, EMTurn, _Node, _SpelledNode, _spellings

NODES = [
    c for _, c in inspect.getmembers(schema, inspect.isclass) if issubclass(c, _Node) and c not in (_Node, _SpelledNode)
]


@pytest.mark.parametrize("cls", NODES, ids=lambda c: c.__name__)
def test_a_class_runs_the_spelling_check_exactly_when_it_has_spellings(cls):
    assert issubclass(cls, _SpelledNode) == bool(_spellings(cls))


def test_a_null_spelling_gives_way_to_a_later_one():
    j = BinaryJudgement.model_validate({"questionId": "B1", "observedBehavior": None, "did_occur": "yes"})
    assert j.observedBehavior == "yes"
    j = BinaryJudgement.model_validate({"questionId": "B1", "observedBehavior": "no", "did_occur": "yes"})
    assert j.observedBehavior == "no"
    t = EMTurn.model_validate({"turnNumber": 1, "em_draft_judge": None, "judge_scores": {"helpfulness": 3}})
    assert t.em_draft_judge == {"helpfulness": 3}
    t = EMTurn.model_validate({"turnNumber": 1, "judge_scores": {"helpfulness": 3}})
    assert t.em_draft_judge == {"helpfulness": 3}
