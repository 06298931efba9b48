"""debates.retry.backoff_delays: full jitter over an exponentially growing, capped ceiling."""

from __future__ import annotations

import random

import pytest

from debates.retry import backoff_delays


class CeilingRng(random.Random):
    """Always draws the top of the range, exposing the ceilings."""

    def uniform(self, a: float, b: float) -> float:
        return b


class RecordingRng(random.Random):
    def __init__(self) -> None:
        super().__init__(0)
        self.ranges: list[tuple[float, float]] = []

    def uniform(self, a: float, b: float) -> float:
        self.ranges.append((a, b))
        return super().uniform(a, b)


def test_the_ceilings_double_from_base_until_the_cap():
    assert backoff_delays(7, 0.5, 5.0, CeilingRng()) == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]


def test_each_wait_is_drawn_uniformly_from_zero_to_its_ceiling():
    rng = RecordingRng()
    delays = backoff_delays(5, 1.0, 60.0, rng)
    assert rng.ranges == [(0.0, 1.0), (0.0, 2.0), (0.0, 4.0), (0.0, 8.0)]
    assert all(0.0 <= d <= hi for d, (_, hi) in zip(delays, rng.ranges, strict=True))
    assert delays == backoff_delays(5, 1.0, 60.0, random.Random(0))


def test_one_attempt_has_no_wait():
    assert backoff_delays(1, 1.0, 60.0, random.Random(0)) == []


@pytest.mark.parametrize(
    ("attempts", "base", "cap"), [(0, 1.0, 60.0), (3, 0.0, 60.0), (3, 2.0, 1.0)]
)
def test_nonsense_arguments_are_refused(attempts, base, cap):
    with pytest.raises(ValueError):
        backoff_delays(attempts, base, cap, random.Random(0))
