"""The claims-by-scheme table and numbers of the uncertainty section
(eibench.report.claim_schemes_numbers, rule stats_claim_schemes)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from eibench.report.claim_schemes_numbers import add_claim_schemes, claim_schemes_table, read_claim_schemes
from eibench.report.numbers import Numbers

SCHEMES = ["conversation", "participant", "two_stage"]
U = {"schemes": SCHEMES, "primary": "two_stage"}


def _table() -> pd.DataFrame:
    """Three claims under three schemes: a resampled one whose interval widens and whose verdict
    changes, a share without an interval whose estimate differs by scheme, one not testable."""
    rows = []
    for k, s in enumerate(SCHEMES):
        half = 0.4 * (1 + k)
        rows += [
            (
                s,
                "C5",
                "headline",
                "topic_hardest",
                -1.2,
                -1.2 - half,
                -1.2 + half,
                0.0,
                0.0,
                "supported" if k < 2 else "inconclusive",
                "resampled",
            ),
            (
                s,
                "C7b",
                "exploratory",
                "humans_vs_models",
                [0.36, 0.36, 0.09][k],
                np.nan,
                np.nan,
                0.1,
                0.1,
                "inconclusive",
                "none: share of the models",
            ),
            (
                s,
                "C3",
                "headline",
                "diagnosis_effect",
                np.nan,
                np.nan,
                np.nan,
                np.nan,
                np.nan,
                "not testable",
                "mixed model, not resampled",
            ),
        ]
    columns = ["scheme", "id", "family", "test", "estimate", "lo", "hi", "p_value", "p_adjusted", "verdict", "interval"]
    return pd.DataFrame(rows, columns=columns).assign(detail="")


def _write(tmp_path, table) -> str:
    path = tmp_path / "claim_schemes.csv"
    table.to_csv(path, index=False)
    return str(path)


def test_the_table_puts_each_scheme_side_by_side_with_the_primary_named(tmp_path):
    t = claim_schemes_table(read_claim_schemes(_write(tmp_path, _table()), SCHEMES), SCHEMES, "two_stage")
    assert list(t.columns) == [
        "ID",
        "Interval",
        "Estimate",
        "95% (conversation)",
        "Verdict (conversation)",
        "95% (participant)",
        "Verdict (participant)",
        "95% (two-stage, primary)",
        "Verdict (two-stage, primary)",
    ]
    c5, c7b, c3 = (t.set_index("ID").loc[i] for i in ("C5", "C7b", "C3"))
    # Two significant digits of the narrowest half-width (0.40): two decimals in every scheme.
    assert c5["Estimate"] == "-1.20" and c5["95% (conversation)"] == "[-1.60, -0.80]"
    assert c5["95% (two-stage, primary)"].startswith("[-2.40, ")
    assert c5["Verdict (two-stage, primary)"] == "inconclusive"
    assert c7b["Estimate"] == "0.36 / 0.36 / 0.09" and c7b["95% (participant)"] == "–"
    assert c7b["Interval"] == "none: share of the models"
    assert c3["Estimate"] == "–" and c3["Verdict (conversation)"] == "not testable" and c3["Interval"] == "–"


def test_the_numbers_count_verdict_changes_and_the_widening(tmp_path):
    nums = Numbers(scripts={"stats_claim_schemes": "workflow/scripts/stats_claim_schemes.py"})
    add_claim_schemes(nums, _write(tmp_path, _table()), U)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["unc.claims.n_claims"] == 3 and e["unc.claims.n_testable"] == 2
    assert e["unc.claims.n_resampled"] == 1 and e["unc.claims.n_same_everywhere"] == 0
    assert e["unc.claims.n_verdict_changes"] == 1
    assert e["unc.claims.verdict_changes"] == "C5 (supported / supported / inconclusive)"
    assert e["unc.claims.conversation.n_supported"] == 1 and e["unc.claims.two_stage.n_supported"] == 0
    assert e["unc.claims.two_stage.median_width_ratio"] == pytest.approx(3.0)
    assert e["unc.claims.participant.median_width_ratio"] == pytest.approx(2.0)
    assert e["unc.claims.two_stage.n_width_ratios"] == 1


def test_a_conversation_interval_without_width_gives_no_ratio(tmp_path):
    table = _table()
    at = (table["id"] == "C5") & (table["scheme"] == "conversation")
    table.loc[at, "hi"] = table.loc[at, "lo"]
    nums = Numbers(scripts={"stats_claim_schemes": "workflow/scripts/stats_claim_schemes.py"})
    add_claim_schemes(nums, _write(tmp_path, table), U)
    assert not [k for k in nums.entries if "width_ratio" in k]


def test_a_median_widening_counts_only_the_claims_with_a_ratio(tmp_path):
    """A second resampled claim whose interval from resampling conversations has no width
    (C6, every resample alike) gives no ratio: the median is over one claim, and says so."""
    table = _table()
    c6 = table[table["id"] == "C5"].assign(id="C6", test="profile_flips", lo=0.5, hi=0.5)
    c6.loc[c6["scheme"] != "conversation", ["lo", "hi"]] = [0.2, 0.9]
    nums = Numbers(scripts={"stats_claim_schemes": "workflow/scripts/stats_claim_schemes.py"})
    add_claim_schemes(nums, _write(tmp_path, pd.concat([table, c6], ignore_index=True)), U)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["unc.claims.n_resampled"] == 2
    assert e["unc.claims.two_stage.n_width_ratios"] == e["unc.claims.participant.n_width_ratios"] == 1
    assert e["unc.claims.two_stage.median_width_ratio"] == pytest.approx(3.0)


def test_claims_changed_against_the_median_are_named_with_their_ratio(tmp_path):
    """Default build: resampling whole participants widened the claims' intervals by a median
    factor of 1.1, while it narrowed two of the five (C4b by 0.81, C5 by 0.88): the claims on
    the other side of 1 are named with their ratio."""
    table = _table()
    c6 = table[table["id"] == "C5"].assign(id="C6", test="profile_flips")
    c6.loc[c6["scheme"] == "conversation", ["lo", "hi"]] = [0.0, 1.0]
    c6.loc[c6["scheme"] != "conversation", ["lo", "hi"]] = [0.1, 0.9]  # narrower: 0.8
    nums = Numbers(scripts={"stats_claim_schemes": "workflow/scripts/stats_claim_schemes.py"})
    add_claim_schemes(nums, _write(tmp_path, pd.concat([table, c6], ignore_index=True)), U)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["unc.claims.two_stage.width_change"] == "wider"
    # printed at the median's precision (1.9: one decimal)
    assert e["unc.claims.two_stage.n_opposite"] == 1 and e["unc.claims.two_stage.opposite"] == "C6 (0.8)"
    # a ratio of 0.98 prints 1.0 at that precision: neither narrower nor wider
    c6.loc[c6["scheme"] != "conversation", ["lo", "hi"]] = [0.01, 0.99]
    nums = Numbers(scripts={"stats_claim_schemes": "workflow/scripts/stats_claim_schemes.py"})
    add_claim_schemes(nums, _write(tmp_path, pd.concat([table, c6], ignore_index=True)), U)
    assert nums.entries["unc.claims.two_stage.n_opposite"]["value"] == 0
    nums = Numbers(scripts={"stats_claim_schemes": "workflow/scripts/stats_claim_schemes.py"})
    add_claim_schemes(nums, _write(tmp_path, table), U)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["unc.claims.two_stage.n_opposite"] == 0 and e["unc.claims.two_stage.opposite"] == "none"


def test_no_change_reads_none_and_a_stale_table_is_named(tmp_path):
    table = _table()
    table.loc[table["id"] == "C5", "verdict"] = "supported"
    nums = Numbers(scripts={"stats_claim_schemes": "x.py"})
    add_claim_schemes(nums, _write(tmp_path, table), U)
    assert nums.entries["unc.claims.n_verdict_changes"]["value"] == 0
    assert nums.entries["unc.claims.verdict_changes"]["value"] == "none"
    path = _write(tmp_path, table[table["scheme"] != "participant"])
    with pytest.raises(
        ValueError, match=r"claim_schemes.csv: no rows for the schemes \['participant'\].*stats_claim_schemes"
    ):
        read_claim_schemes(path, SCHEMES)


def test_each_claim_has_its_primary_verdict_when_the_claims_use_another_scheme(tmp_path):
    """statistics.cluster resamples conversations, the primary scheme is two-stage: C5's verdict
    differs there (its sentence must say so), C7b's does not; C3 is not testable."""
    nums = Numbers(scripts={"stats_claim_schemes": "x.py"})
    add_claim_schemes(nums, _write(tmp_path, _table()), U | {"claims_scheme": "conversation"})
    e = nums.entries
    assert e["unc.claims.C5.by_scheme"]["value"] is True and e["unc.claims.C5.primary_differs"]["value"] is True
    assert e["unc.claims.C5.primary_verdict"]["value"] == "inconclusive"
    assert e["unc.claims.C5.primary"]["ci"] == pytest.approx([-2.4, 0.0])
    # printed beside the claim's own interval [-1.60, -0.80], at its precision (not [-2.4, 0.0])
    assert e["unc.claims.C5.primary"]["ci_display"] == "[-2.40, 0.00]"
    assert e["unc.claims.C7b.primary_differs"]["value"] is False and "unc.claims.C7b.primary" not in e
    assert not [k for k in e if k.startswith("unc.claims.C3.")]
    assert e["unc.claims.n_primary_differs"]["value"] == 1 and e["unc.claims.primary_differs"]["value"] == "C5"
    assert e["unc.claims.n_primary_same"]["value"] == 1
    # the claims on the primary scheme: no verdict differs
    on_primary = Numbers(scripts={"stats_claim_schemes": "x.py"})
    add_claim_schemes(on_primary, _write(tmp_path, _table()), U | {"claims_scheme": "two_stage"})
    assert on_primary.entries["unc.claims.n_primary_differs"]["value"] == 0
    assert on_primary.entries["unc.claims.primary_differs"]["value"] == "none"
    assert on_primary.entries["unc.claims.n_primary_same"]["value"] == 2


def test_the_claims_without_an_interval_are_counted_and_named_only_when_testable(tmp_path):
    """The uncertainty section names what the claims without an interval are about only when
    the cohort can test one: C7b (humans against models) here; a rank-independence claim that
    is not testable (an ESConv-like cohort) is neither counted nor named."""
    table = _table()
    c1 = table[table["id"] == "C7b"].assign(
        id="C1", test="rank_independence", interval="none: median over metric pairs", verdict="not testable"
    )
    nums = Numbers(scripts={"stats_claim_schemes": "x.py"})
    add_claim_schemes(nums, _write(tmp_path, pd.concat([c1, table], ignore_index=True)), U)
    assert nums.entries["unc.claims.n_no_interval"]["value"] == 1
    assert nums.entries["unc.claims.no_interval_about"]["value"] == "humans against models"
    c1["verdict"] = "inconclusive"
    both = Numbers(scripts={"stats_claim_schemes": "x.py"})
    add_claim_schemes(both, _write(tmp_path, pd.concat([c1, table], ignore_index=True)), U)
    assert both.entries["unc.claims.n_no_interval"]["value"] == 2
    assert both.entries["unc.claims.no_interval_about"]["value"] == "rank independence, humans against models"
    resampled_only = Numbers(scripts={"stats_claim_schemes": "x.py"})
    add_claim_schemes(resampled_only, _write(tmp_path, table[table["id"] != "C7b"]), U)
    assert resampled_only.entries["unc.claims.n_no_interval"]["value"] == 0
    assert resampled_only.entries["unc.claims.no_interval_about"]["value"] == "none"


def test_a_diagnosis_claim_whose_mixed_model_failed_is_not_counted_as_having_its_interval(tmp_path):
    """Release cohort: C3b's mixed model did not converge, yet the section said 'the 2 claims
    about the diagnosis take their interval from the mixed model'. Only C3, whose fit gave an
    interval, counts; C3b is named, and its Interval cell says the model gave none."""
    table = _table()
    c3 = table[table["id"] == "C3"].assign(estimate=-0.05, lo=-0.14, hi=0.04, verdict="inconclusive")
    c3b = c3.assign(id="C3b", family="exploratory", estimate=np.nan, lo=np.nan, hi=np.nan)
    table = pd.concat([table[table["id"] != "C3"], c3, c3b], ignore_index=True)
    nums = Numbers(scripts={"stats_claim_schemes": "workflow/scripts/stats_claim_schemes.py"})
    add_claim_schemes(nums, _write(tmp_path, table), U)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["unc.claims.n_same_everywhere"] == 1
    assert e["unc.claims.n_mixed_failed"] == 1 and e["unc.claims.mixed_failed"] == "C3b"
    t = claim_schemes_table(read_claim_schemes(_write(tmp_path, table), SCHEMES), SCHEMES, "two_stage").set_index("ID")
    assert t.loc["C3", "Interval"] == "mixed model, not resampled"
    assert t.loc["C3b", "Interval"] == "mixed model, which gave none"


def test_the_change_of_width_is_read_from_the_printed_ratio(tmp_path):
    """Release build on ESConv's chats: "the two-stage scheme widens their intervals by a median
    factor of 0.99", a narrowing. The numbers say on which side of 1 the printed ratio lies."""
    from eibench.report.claim_schemes_numbers import width_change

    assert [width_change(s) for s in ("0.99", "1.00", "1.0", "1.01", "3.0", "0.5")] == [
        "narrower",
        "as wide",
        "as wide",
        "wider",
        "wider",
        "narrower",
    ]
    nums = Numbers(scripts={"stats_claim_schemes": "workflow/scripts/stats_claim_schemes.py"})
    add_claim_schemes(nums, _write(tmp_path, _table()), U)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["unc.claims.two_stage.width_change"] == e["unc.claims.participant.width_change"] == "wider"


def test_a_median_printed_as_one_names_the_claims_the_scheme_widens_or_narrows(tmp_path):
    """Release build, three baselines: resampling whole participants left the claims' intervals
    "about as wide as resampling conversations (a median factor of 1.00)", while it changed them
    from 0.59 to 1.61 times; C6's interval, the same under every scheme, made the median. The
    claims whose ratio does not print as 1 are named with their ratio."""
    table = _table()  # C5: participant / conversation width 2
    same = table[table["id"] == "C5"].assign(id="C6", test="profile_flips", lo=0.0, hi=1.0)  # ratio 1
    halved = table[table["id"] == "C5"].assign(id="C4", test="drift")
    halved.loc[halved["scheme"] == "conversation", ["lo", "hi"]] = [0.0, 1.0]
    halved.loc[halved["scheme"] == "participant", ["lo", "hi"]] = [0.25, 0.75]  # ratio 0.5
    nums = Numbers(scripts={"stats_claim_schemes": "workflow/scripts/stats_claim_schemes.py"})
    add_claim_schemes(nums, _write(tmp_path, pd.concat([table, same, halved], ignore_index=True)), U)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["unc.claims.participant.width_change"] == "as wide"
    assert e["unc.claims.participant.n_opposite"] == 2
    assert "C5 (2" in e["unc.claims.participant.opposite"] and "C4 (0.5" in e["unc.claims.participant.opposite"]
    assert "C6" not in e["unc.claims.participant.opposite"]
