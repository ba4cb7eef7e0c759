"""Fixtures of the prediction-collection tests: a small gold cohort and its views."""

from __future__ import annotations

import copy

import pytest
from eibench.predict.conversation import conversation_views
from eibench.release.read import list_json_files, read_conversations
from eibench.release.tidy import gold_tables
from eibench.release.write import write_json
from eibench.synthetic.cohort import generate_cohort


@pytest.fixture(scope="session")
def small_gold(default_config, tmp_path_factory):
    params = copy.deepcopy(default_config["cohorts"]["synthetic"])
    params.update(n_conversations=6, n_participants=3)
    params["turns"] = {"min": 2, "max": 4}
    files, _ = generate_cohort(params, 11)
    folder = tmp_path_factory.mktemp("gold")
    for name, obj in files.items():
        write_json(obj, folder / name)
    return gold_tables(read_conversations(list_json_files(folder)))


@pytest.fixture(scope="session")
def small_views(small_gold):
    return conversation_views(small_gold)
