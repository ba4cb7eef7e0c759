"""The numbers that describe a cohort: name and citation, models by kind, pillars covered."""

from __future__ import annotations

import numpy as np
import pandas as pd
import yaml
from eibench.report.cohort_numbers import add_cohort, covered_pillars, joined, models_described
from eibench.report.numbers import Numbers

from ..conftest import REPO


def test_models_are_described_by_kind_in_words():
    assert models_described({"simulated": 11, "human": 3, "baseline": 3}) == (
        "11 simulated models, 3 offline baselines and 3 simulated human raters"
    )
    assert models_described({"baseline": 1, "outputs_dir": 1}) == (
        "1 model read from its existing outputs and 1 offline baseline"
    )
    assert models_described({"live": 2}) == "2 language models"
    assert models_described({}) == "no model"
    assert joined(["a", "b", "c"]) == "a, b and c" and joined(["a"]) == "a" and joined([]) == ""


def test_a_live_model_is_named_by_where_it_runs_and_where_its_answers_came_from():
    """The title block, the data section and the discussion said '1 live model (API)' of a model
    served locally by llama.cpp whose every answer this build replayed from its committed record.
    A live model is now named by where it is served (eibench.cohorts.live_served) and where the
    build's answers came from (eibench.predict.summary.answers_source): the live configuration,
    which asks the server, reads 'asked live'."""
    counts = {"live": 1, "baseline": 3}
    replayed = models_described(counts, {"smollm2": ("local", "record")})
    assert replayed == (
        "1 locally served language model (answers replayed from a committed record) and 3 offline baselines"
    )
    assert "API" not in replayed and "live model" not in replayed
    assert models_described(counts, {"smollm2": ("local", "server")}) == (
        "1 locally served language model (answers asked live) and 3 offline baselines"
    )
    assert models_described(
        {"live": 3}, {"a": ("api", "server"), "b": ("local", "record"), "c": ("api", "server")}
    ) == (
        "2 language models behind an API (answers asked live) and 1 locally served language model "
        "(answers replayed from a committed record)"
    )


def test_a_loopback_endpoint_is_served_locally():
    from eibench.cohorts import live_served

    models = [
        {"name": "chance", "kind": "baseline", "method": "chance"},
        {"name": "llama", "kind": "openai_compatible", "endpoint": "http://127.0.0.1:8765/v1"},
        {"name": "ollama", "kind": "openai_compatible", "endpoint": "http://localhost:11434/v1"},
        {"name": "hosted", "kind": "openai_compatible", "endpoint": "https://api.example.com/v1"},
        {"name": "claude", "kind": "anthropic", "endpoint": None},
    ]
    assert live_served(models) == {"llama": "local", "ollama": "local", "hosted": "api", "claude": "api"}


def _board(tracking, evaluation, holistic) -> pd.DataFrame:
    return pd.DataFrame({"em_model": ["a", "b"], "tracking": tracking, "evaluation": evaluation, "holistic": holistic})


def test_the_pillars_covered_are_those_with_a_value():
    assert covered_pillars(_board([0.5, 0.4], [0.6, np.nan], [0.2, 0.3])) == ["tracking", "evaluation", "holistic"]
    assert covered_pillars(_board([0.5, 0.4], [np.nan] * 2, [np.nan] * 2)) == ["tracking"]
    assert covered_pillars(_board([np.nan] * 2, [np.nan] * 2, [np.nan] * 2)) == []


def test_add_cohort_writes_only_the_description_it_has():
    nums = Numbers(
        scripts={
            "paper_numbers": "workflow/scripts/paper_numbers.py",
            "aggregate_scores": "workflow/scripts/aggregate_scores.py",
        }
    )
    kinds = {"chance": "baseline", "prior": "baseline", "mine": "outputs_dir"}
    add_cohort(
        nums,
        {"name": "Sample200", "source": None, "citation": None, "description": None},
        kinds,
        _board([0.5, 0.4], [np.nan] * 2, [np.nan] * 2),
    )
    e = nums.entries
    assert e["cohort.name"]["display"] == "Sample200"
    assert not {"cohort.source", "cohort.citation", "cohort.description"} & e.keys()
    assert e["models.n_baseline"]["value"] == 2 and e["models.n_outputs_dir"]["value"] == 1
    assert e["models.n_simulated"]["value"] == 0 and e["models.n_total"]["value"] == 3
    assert e["models.described"]["display"] == "1 model read from its existing outputs and 2 offline baselines"
    assert e["models.baselines"]["display"] == "chance and prior"
    assert e["composite.pillars"]["display"] == "emotion tracking"
    assert e["composite.n_pillars"]["value"] == 1 and e["composite.all_pillars"]["value"] is False


def test_the_post_chat_ratings_are_counted_in_every_build():
    """The conversations whose files hold post-chat ratings (an extension of the release format
    the holistic pillar includes) and their items: the benchmark section says so for any cohort
    that has them, and every build has the numbers (none for a cohort without them)."""
    from eibench.report.cohort_numbers import add_post_chat_ratings

    from .rule_map import RULE_SCRIPTS

    ratings = pd.DataFrame(
        {"conversation_id": ["c1", "c1", "c2"], "item": ["relevance", "empathy", "empathy"], "rating": [4.0, 5.0, 3.0]}
    )
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_post_chat_ratings(nums, ratings)
    e = nums.entries
    assert e["post_chat.n_conversations"]["value"] == 2 and e["post_chat.items"]["display"] == "empathy and relevance"
    assert e["post_chat.n_conversations"]["rule"] == "ingest_conversations"
    none = Numbers(scripts=RULE_SCRIPTS)
    add_post_chat_ratings(none, ratings.iloc[:0])
    assert (
        none.entries["post_chat.n_conversations"]["value"] == 0 and none.entries["post_chat.items"]["display"] == "none"
    )


def test_the_files_provider_and_reply_author_are_tallied():
    """What the files name as metadata.provider and metadata.model (the original replies'
    author): a folder of ESConv's chats converted by the adapter names 'esconv' and
    'human-supporter' in every file, which the paper said nowhere while it presented the folder
    as the cohort."""
    from eibench.report.cohort_numbers import add_file_names, tally

    from .rule_map import RULE_SCRIPTS

    conv = pd.DataFrame({"provider": ["esconv"] * 1300, "om_model": ["human-supporter"] * 1300})
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_file_names(nums, conv)
    assert nums.entries["files.providers"]["display"] == '"esconv" (1300 of 1300)'
    assert nums.entries["files.reply_authors"]["display"] == '"human-supporter" (1300 of 1300)'
    assert nums.entries["files.all_esconv"]["value"] is True  # the limitations then name ESConv's caveats
    one_other = Numbers(scripts=RULE_SCRIPTS)
    add_file_names(one_other, conv.assign(provider=["esconv"] * 1299 + ["mine"]))
    assert one_other.entries["files.all_esconv"]["value"] is False
    assert tally(pd.Series(["simulated", None])) == '"simulated" (1 of 2) and none (1 of 2)'
    mixed = pd.Series(["a", "b", "b", "c", " ", "d", "e", None], dtype="string")
    assert tally(mixed) == '"b" (2 of 8), none (2 of 8), "a" (1 of 8) and 3 other values (3 of 8)'
    assert tally(pd.Series(["x"] * 12000)) == '"x" (12 000 of 12 000)'
    empty = Numbers(scripts=RULE_SCRIPTS)
    add_file_names(empty, pd.DataFrame({"conversation_id": []}))
    assert empty.entries["files.providers"]["display"] == empty.entries["files.reply_authors"]["display"] == "none"
    assert empty.entries["files.all_esconv"]["value"] is False


def test_the_reply_author_is_named_as_the_files_name_it():
    """The benchmark section called the reply the behaviour questions are about 'the original
    model's reply' on any cohort but ESConv, while a folder of ESConv's chats names its author
    'human-supporter'. The release format (docs/release-format.md) gives no rule telling a human
    author from a model, so the paper names the author as the files give it."""
    from eibench.report.cohort_numbers import add_file_names, named_alternatives

    from .rule_map import RULE_SCRIPTS

    nums = Numbers(scripts=RULE_SCRIPTS)
    add_file_names(nums, pd.DataFrame({"provider": ["esconv"] * 3, "om_model": ["human-supporter"] * 3}))
    assert nums.entries["files.reply_author"]["display"] == '"human-supporter"'
    assert named_alternatives(pd.Series(["om-b", "om-a", None])) == '"om-a" or "om-b"'
    assert named_alternatives(pd.Series(["a", "b", "b", "c", "d", "e", " "])) == '"b", "a", "c" or one of 2 other names'
    assert named_alternatives(pd.Series([None, None], dtype="string")) == "none"


def test_each_baseline_is_described_by_how_its_method_answers():
    """On ESConv's chats the baseline prior led the four models read from files, and the paper
    never said that it answers with the other conversations' gold."""
    from eibench.cohorts import baseline_methods
    from eibench.report.cohort_numbers import BASELINE_WORDS, add_baselines

    from .rule_map import RULE_SCRIPTS

    models = [
        {"name": "rand", "kind": "baseline", "method": "chance"},
        {"name": "mine", "kind": "outputs_dir", "path": "/x"},
        {"name": "majority", "kind": "baseline", "method": "prior"},
    ]
    assert baseline_methods(models) == {"rand": "chance", "majority": "prior"}
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_baselines(nums, baseline_methods(models))
    text = nums.entries["models.baselines_described"]["value"]
    assert text.startswith("rand answers at random") and "; majority gives the most common gold answers" in text
    assert nums.entries["models.prior_baselines"]["value"] == "majority"
    # every method the config schema allows has its words
    schema = yaml.safe_load((REPO / "config" / "schema" / "config.schema.yaml").read_text())
    assert set(BASELINE_WORDS) == set(_baseline_enum(schema))
    none = Numbers(scripts=RULE_SCRIPTS)
    add_baselines(none, {})
    assert none.entries["models.baselines_described"]["value"] == "none"
    assert none.entries["models.prior_baselines"]["value"] == "none"


def test_the_prior_baseline_knows_no_other_conversation_of_a_participant_who_has_one():
    """ESConv build: "prior ... knows the population's answers, the participant's other
    conversations among them", though each of its 1,300 seekers has one conversation."""
    from eibench.report.cohort_numbers import add_baselines

    from .rule_map import RULE_SCRIPTS

    for several, other in ((True, True), (False, False)):
        nums = Numbers(scripts=RULE_SCRIPTS)
        add_baselines(nums, {"prior": "prior"}, several_per_participant=several)
        text = nums.entries["models.baselines_described"]["value"]
        assert ("the participant's other conversations among them" in text) is other
        assert ("(each participant has one conversation here)" in text) is not other


def _baseline_enum(node) -> list[str]:
    """The enum of the baseline's ``method`` property anywhere in the config schema."""
    if isinstance(node, dict):
        if isinstance(node.get("method"), dict) and "enum" in node["method"]:
            return node["method"]["enum"]
        for value in node.values():
            found = _baseline_enum(value)
            if found:
                return found
    elif isinstance(node, list):
        for value in node:
            found = _baseline_enum(value)
            if found:
                return found
    return []
