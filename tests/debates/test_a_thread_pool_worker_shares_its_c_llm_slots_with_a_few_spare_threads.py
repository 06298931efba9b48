"""A thread-pool worker ``-c N`` keeps N LLM slots and runs a few more threads than that (as an
in-process run does), so a debate writing its turn never holds a slot another debate's ready
request could use. Pure logic: no worker, no database."""

import pytest

from debates.services import run
from debates.services.threads import LLMGate


@pytest.fixture(autouse=True)
def no_gate_left_behind(monkeypatch):
    monkeypatch.setattr(run, "_worker_gate", None)


@pytest.mark.parametrize(
    ("slots", "threads"), [(2, 3), (4, 5), (16, 18), (32, 36), (64, 68), (200, 204)]
)
def test_the_pool_runs_an_eighth_more_threads_than_slots_at_least_one_at_most_four(slots, threads):
    assert run.debate_worker_gate_install(slots=slots) == threads


def test_the_gate_has_exactly_c_slots():
    run.debate_worker_gate_install(slots=16)
    gate = run.debate_worker_gate()
    assert isinstance(gate, LLMGate)
    taken = 0
    while gate.acquire(blocking=False):
        taken += 1
    assert taken == 16


def test_one_slot_needs_no_gate_and_no_spare_thread():
    assert run.debate_worker_gate_install(slots=1) == 1
    assert run.debate_worker_gate() is None


def test_a_process_that_installed_nothing_has_no_gate():
    assert run.debate_worker_gate() is None


def test_zero_slots_is_an_error():
    with pytest.raises(ValueError, match="at least 1 LLM slot, got 0"):
        run.debate_worker_gate_install(slots=0)
