"""Stage 0's band is set on human labels of pooled pairs thinned to an equal-probability
sample (debates.stage0_band.band_sample): an audit drawn at the smallest probability is kept,
an escalation (sent to people with probability 1) is kept with that probability, and a job
whose agreed labels were never audited gives nothing."""

import hashlib
import math

import pytest

from debates.stage0_band import BandLabel, band_choose, band_draw, band_sample


def _row(key: str, inclusion: float, floor: float, label: int = 0, p: float = 0.05) -> BandLabel:
    return BandLabel(key=key, p=p, label=label, inclusion=inclusion, floor=floor)


def test_a_pairs_draw_is_the_first_64_bits_of_its_salted_sha256():
    digest = hashlib.sha256(b"stage0-band:q1\td7").digest()
    assert band_draw("q1\td7") == int.from_bytes(digest[:8], "big") / 2**64
    assert 0.0 <= band_draw("q1\td7") < 1.0


def test_audits_at_the_floor_are_all_kept_and_escalations_at_the_floors_rate():
    audits = [_row(f"a{i}", 0.1, 0.1) for i in range(50)]
    escalations = [_row(f"e{i}", 1.0, 0.1) for i in range(20_000)]
    kept, rate = band_sample(audits + escalations)
    assert rate == 0.1
    assert kept[:50] == audits  # 0.1 / 0.1 = 1: every audit stays, in order
    expected = [r for r in escalations if band_draw(r.key) < 0.1]
    assert kept[50:] == expected
    # Each escalation stays with probability 0.1: 2,000 of 20,000 expected, SD 42.4.
    assert abs(len(expected) - 2_000) <= 3 * math.sqrt(20_000 * 0.1 * 0.9)


def test_the_rate_is_the_smallest_positive_floor_over_every_job():
    # Job 1 audited at 0.5, job 2 at 0.2: both thinned to 0.2; job 3 never audited: dropped.
    rows = [_row("j1-audit", 0.5, 0.5), _row("j2-audit", 0.2, 0.2), _row("j3-esc", 1.0, 0.0)]
    kept, rate = band_sample(rows)
    assert rate == 0.2
    assert _row("j2-audit", 0.2, 0.2) in kept
    assert (_row("j1-audit", 0.5, 0.5) in kept) == (band_draw("j1-audit") < 0.4)
    assert _row("j3-esc", 1.0, 0.0) not in kept


def test_labels_of_jobs_never_audited_alone_give_an_empty_sample_and_a_band_that_settles_nothing():
    kept, rate = band_sample([_row(f"e{i}", 1.0, 0.0) for i in range(100)])
    assert (kept, rate) == ([], 0.0)
    band = band_choose([r.p for r in kept], [r.label for r in kept])
    assert not band.settles
    assert "needs at least 29" in band.message and "it has 0 (29 more at the least)" in band.message


@pytest.mark.parametrize("inclusion, floor", [(0.0, 0.0), (1.5, 0.1), (0.1, 0.2)])
def test_an_impossible_inclusion_or_floor_is_refused_naming_the_pair(inclusion, floor):
    with pytest.raises(ValueError, match="pair 'q\\\\td'"):
        band_sample([_row("q\td", inclusion, floor)])
