"""Two failure paths of a debate run that must end in the give-up, never in a lease left to
expire: a turn write the database refuses after its retries keeps the turns for the next
write (the give-up's), instead of dropping answered replies; and a job whose stored prompt
version this worker's code does not know is a failed attempt recorded at once."""

from types import SimpleNamespace

import pytest
from django.db import OperationalError

from debates.models import Debate, DebateJob
from debates.services import turn_writer
from debates.services.guarded import Meter
from debates.services.launch import JobSpec, debate_job_launch
from debates.services.run import debate_run
from debates.services.turn_writer import TurnWriter
from tests.fixtures.jobs import AGENT_A, AGENT_B


def test_a_refused_write_puts_the_turns_back_for_the_next_one(monkeypatch):
    written: list[list] = []
    refuse = [True]

    def store(*, lease, records, prompt_version):
        if refuse[0]:
            raise OperationalError("the database went away")
        written.append(list(records))

    monkeypatch.setattr(turn_writer, "lease_turns_store", store)
    fields = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens")
    record = SimpleNamespace(attempts=1, **dict.fromkeys(fields, 0))
    writer = TurnWriter(lease=object(), prompt_version="v", meter=Meter())
    writer.add(record)
    with pytest.raises(OperationalError):
        writer.flush()
    refuse[0] = False
    writer.flush()  # what the give-up does first
    assert written == [[record]]


def test_a_refused_outcome_write_puts_its_turns_back_too():
    writer = TurnWriter(lease=object(), prompt_version="v", meter=Meter())
    writer.add("turn")
    with pytest.raises(OperationalError), writer.taken() as turns:
        assert turns == ["turn"]
        raise OperationalError("the database went away")
    with writer.taken() as turns:
        assert turns == ["turn"]


@pytest.mark.django_db(transaction=True)
def test_a_prompt_version_this_code_lacks_is_a_failed_attempt_not_a_stuck_lease(
    small_pool, fake_llms
):
    job = debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=2), start=False
    )
    DebateJob.objects.filter(pk=job.pk).update(
        prompt_version="from-newer-code", status=DebateJob.Status.RUNNING
    )
    debate = job.debates.order_by("pk").first()
    ended = debate_run(debate_id=debate.pk, requeue=False)
    assert ended.status != Debate.Status.RUNNING
    assert "from-newer-code" in ended.last_error
    assert ended.attempts == 1
