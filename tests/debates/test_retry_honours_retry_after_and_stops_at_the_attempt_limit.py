"""debates.retry.call_with_retry: which errors are retried, how long it waits, when it stops."""

from __future__ import annotations

import random

import pytest

from debates.llm.base import ContextTooLongError, PermanentLLMError, TransientLLMError
from debates.retry import call_with_retry


class Script:
    """A callable that raises or returns the scripted outcomes in order."""

    def __init__(self, *outcomes):
        self.outcomes = list(outcomes)
        self.calls = 0

    def __call__(self):
        self.calls += 1
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


class CeilingRng(random.Random):
    def uniform(self, a: float, b: float) -> float:
        return b


def test_a_transient_error_is_retried_after_the_jittered_wait():
    sleeps: list[float] = []
    fn = Script(TransientLLMError("timeout"), TransientLLMError("503"), "ok")
    result = call_with_retry(
        fn, attempts=5, base=1.0, cap=60, sleep=sleeps.append, rng=CeilingRng()
    )
    assert result == "ok"
    assert fn.calls == 3
    assert sleeps == [1.0, 2.0]


def test_retry_after_longer_than_the_backoff_is_waited_out():
    sleeps: list[float] = []
    fn = Script(TransientLLMError("429", retry_after=7.5), "ok")
    assert call_with_retry(fn, sleep=sleeps.append, rng=CeilingRng()) == "ok"
    assert sleeps == [7.5]


def test_retry_after_shorter_than_the_backoff_does_not_shorten_it():
    sleeps: list[float] = []
    fn = Script(TransientLLMError("x"), TransientLLMError("429", retry_after=0.5), "ok")
    call_with_retry(fn, base=1.0, sleep=sleeps.append, rng=CeilingRng())
    assert sleeps == [1.0, 2.0]


def test_the_last_transient_error_is_raised_when_attempts_run_out():
    sleeps: list[float] = []
    errors = [TransientLLMError(f"fail {i}") for i in range(3)]
    fn = Script(*errors)
    with pytest.raises(TransientLLMError) as caught:
        call_with_retry(fn, attempts=3, sleep=sleeps.append, rng=random.Random(1))
    assert caught.value is errors[2]
    assert fn.calls == 3
    assert len(sleeps) == 2


@pytest.mark.parametrize(
    "error", [PermanentLLMError("401"), ContextTooLongError("too long"), KeyError("bug")]
)
def test_other_errors_are_never_retried(error):
    sleeps: list[float] = []
    fn = Script(error, "ok")
    with pytest.raises(type(error)):
        call_with_retry(fn, sleep=sleeps.append, rng=random.Random(0))
    assert fn.calls == 1
    assert sleeps == []


def test_a_retry_after_beyond_the_limit_is_raised_at_once_instead_of_blocking():
    sleeps: list[float] = []
    fn = Script(TransientLLMError("429", retry_after=3600), "ok")
    with pytest.raises(TransientLLMError):
        call_with_retry(fn, max_retry_after=300, sleep=sleeps.append, rng=random.Random(0))
    assert fn.calls == 1
    assert sleeps == []


def test_on_retry_hears_every_retry_with_its_wait():
    heard = []
    fn = Script(TransientLLMError("a", retry_after=3), "ok")
    call_with_retry(
        fn,
        sleep=lambda s: None,
        rng=CeilingRng(),
        on_retry=lambda n, e, w: heard.append((n, str(e), w)),
    )
    assert heard == [(1, "a", 3.0)]
