"""The audit's allocation (debates.audit_design), worked by hand. Pure: no database."""

import math

import pytest

from debates.audit_design import (
    AuditDesign,
    AuditStratum,
    audit_allocation,
    audit_unit,
    stratum_name,
    unit_stratum,
    unit_weight,
)


def test_a_stratum_is_named_by_its_consensus_label_and_round():
    assert stratum_name(1, 2) == "label 1, round 2"
    assert stratum_name(0, None) == "label 0, round -"


def test_the_proportional_audit_gives_every_stratum_the_share_but_never_less_than_committed():
    strata = {"a": AuditStratum(100), "b": AuditStratum(50, committed=0.3)}
    got = audit_allocation(strata, share=0.1, allocation="proportional", pilot_done=True)
    assert got == {"a": 0.1, "b": 0.3}


def test_before_the_pilot_is_judged_every_stratum_gets_a_tenth_of_the_share():
    strata = {"a": AuditStratum(100), "b": AuditStratum(50)}
    got = audit_allocation(strata, share=0.2, allocation="neyman", pilot_done=False)
    assert got == pytest.approx({"a": 0.02, "b": 0.02})


def test_a_pilot_never_lowers_what_a_stratum_already_has():
    # A job whose pilot was drawn at half the share (before the pilot was a tenth) keeps it.
    strata = {"a": AuditStratum(100, committed=0.1), "b": AuditStratum(50)}
    got = audit_allocation(strata, share=0.2, allocation="neyman", pilot_done=False)
    assert got == pytest.approx({"a": 0.1, "b": 0.02})


def test_after_the_pilot_the_budget_follows_each_strata_error_sd():
    # a: 1000 labels, 50 judged, 0 wrong: e = 1/52, sd = sqrt(e (1 - e)) = 0.13734
    # b: 200 labels, 10 judged, 4 wrong: e = 5/12, sd = 0.49301
    # budget 0.1 * 1200 = 120 = c (1000 * 0.13734 + 200 * 0.49301) -> c = 0.50860;
    # a: c * 0.13734 = 0.06985 (above its floor 0.05), b: 0.25075.
    strata = {
        "a": AuditStratum(1000, committed=0.05, judged=50, wrong=0),
        "b": AuditStratum(200, committed=0.05, judged=10, wrong=4),
    }
    got = audit_allocation(strata, share=0.1, allocation="neyman", pilot_done=True)
    sd_a = math.sqrt((1 / 52) * (51 / 52))
    sd_b = math.sqrt((5 / 12) * (7 / 12))
    c = 120 / (1000 * sd_a + 200 * sd_b)
    assert got["a"] == pytest.approx(c * sd_a) == pytest.approx(0.06985, abs=1e-5)
    assert got["b"] == pytest.approx(c * sd_b) == pytest.approx(0.25075, abs=1e-5)
    assert 1000 * got["a"] + 200 * got["b"] == pytest.approx(120)


def test_a_certain_stratum_keeps_its_pilot_probability_and_the_rest_goes_elsewhere():
    # Both strata 1000 labels, 50 judged in the pilot. a: 0 wrong (sd 0.1373); b: 25 wrong
    # (e = 26/52, sd 0.5). Unpinned, a would get 200 / (137.3 + 500) * 0.1373 = 0.043 <
    # 0.05: pinned at its floor 0.05 (50 labels), and b takes the other 150 of the 200.
    strata = {
        "a": AuditStratum(1000, committed=0.05, judged=50, wrong=0),
        "b": AuditStratum(1000, committed=0.05, judged=50, wrong=25),
    }
    got = audit_allocation(strata, share=0.1, allocation="neyman", pilot_done=True)
    assert got == pytest.approx({"a": 0.05, "b": 0.15})


def test_a_probability_above_one_is_capped_and_its_excess_spread():
    # a: 10,000 labels, 500 judged, 0 wrong (sd 0.0446); b: 20 labels, 1 judged and wrong
    # (e = 2/3, sd 0.4714). c = 1002 / (445.9 + 9.43) = 2.2 would give b 1.04: capped at 1
    # (20 labels), and a takes the other 982.
    strata = {
        "a": AuditStratum(10_000, committed=0.05, judged=500, wrong=0),
        "b": AuditStratum(20, committed=0.05, judged=1, wrong=1),
    }
    got = audit_allocation(strata, share=0.1, allocation="neyman", pilot_done=True)
    assert got["b"] == 1.0
    assert got["a"] == pytest.approx(982 / 10_000)


def test_a_stratum_committed_above_its_neyman_share_keeps_it():
    strata = {
        "a": AuditStratum(1000, committed=0.5, judged=500, wrong=0),  # raised by hand
        "b": AuditStratum(100, committed=0.05, judged=5, wrong=3),
    }
    got = audit_allocation(strata, share=0.1, allocation="neyman", pilot_done=True)
    assert got["a"] == 0.5  # the floors already spend more than the budget
    assert got["b"] == 0.05


def test_an_unknown_allocation_or_a_share_outside_zero_one_is_refused():
    with pytest.raises(ValueError, match="audit allocation: one of proportional, neyman"):
        audit_allocation({}, share=0.1, allocation="optimal", pilot_done=True)
    with pytest.raises(ValueError, match="between 0 and 1, got 1.5"):
        audit_allocation({}, share=1.5, allocation="neyman", pilot_done=True)


def test_under_neyman_a_pair_is_audited_by_its_stratum_and_best_rank_in_the_pool():
    assert audit_unit(1, 2, 3, allocation="neyman") == "label 1, round 2, rank 3"
    assert audit_unit(1, 2, 11, allocation="neyman") == "label 1, round 2, below 10"
    assert audit_unit(0, None, None, allocation="neyman") == "label 0, round -, below 10"
    assert audit_unit(1, 2, 3, allocation="proportional") == "label 1, round 2"
    assert unit_stratum("label 1, round 2, rank 3") == "label 1, round 2"
    assert unit_stratum("label 1, round 2, below 10") == "label 1, round 2"
    assert unit_stratum("label 1, round 2") == "label 1, round 2"
    # The DCG discount 1 / log2(rank + 1): 1 at rank 1, 1/2 at rank 3, 1/log2(12) past 10.
    assert unit_weight("label 1, round 2, rank 1") == 1.0
    assert unit_weight("label 1, round 2, rank 3") == 0.5
    assert unit_weight("label 1, round 2, below 10") == pytest.approx(1 / math.log2(12))
    assert unit_weight("label 1, round 2") == 1.0


def test_after_the_pilot_each_rank_gets_its_strata_error_sd_times_its_discount():
    # The label-1 stratum's two units share its pilot: 10 judged, 3 wrong, e = 4/12, sd =
    # sqrt(1/3 * 2/3) = 0.47140; rank 1 weighs sd, rank 3 sd / 2. The label-0 unit: 40
    # judged, 0 wrong, e = 1/42, sd = 0.15246. Budget 0.1 * 1000 = 100 labels =
    # c (100 * 0.47140 + 100 * 0.23570 + 800 * 0.15246) -> c = 0.51901.
    strata = {
        "label 1, round 1, rank 1": AuditStratum(100, committed=0.05, judged=5, wrong=2),
        "label 1, round 1, rank 3": AuditStratum(100, committed=0.05, judged=5, wrong=1),
        "label 0, round 1, rank 1": AuditStratum(800, committed=0.05, judged=40, wrong=0),
    }
    got = audit_allocation(strata, share=0.1, allocation="neyman", pilot_done=True)
    sd_1 = math.sqrt(1 / 3 * 2 / 3)
    sd_0 = math.sqrt(1 / 42 * 41 / 42)
    c = 100 / (100 * sd_1 + 100 * sd_1 / 2 + 800 * sd_0)
    assert (
        got["label 1, round 1, rank 1"]
        == pytest.approx(c * sd_1)
        == pytest.approx(0.24466, abs=1e-5)
    )
    assert got["label 1, round 1, rank 3"] == pytest.approx(c * sd_1 / 2)
    assert (
        got["label 0, round 1, rank 1"]
        == pytest.approx(c * sd_0)
        == pytest.approx(0.07913, abs=1e-5)
    )
    assert sum(s.size * got[n] for n, s in strata.items()) == pytest.approx(100)


def test_a_unit_never_draws_below_what_its_stratum_committed_before_the_split():
    design = AuditDesign(share=0.2, allocation="neyman", committed={"label 0, round 2": 0.3})
    assert design.probability("label 0, round 2, rank 4") == 0.3
    assert design.probability("label 1, round 1, rank 4") == pytest.approx(0.02)  # the pilot's
