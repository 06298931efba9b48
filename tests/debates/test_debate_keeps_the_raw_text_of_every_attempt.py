"""A re-asked turn keeps the raw text of both attempts (``raw_attempts``), not only the last
(``raw``): in the engine's TurnRecord, in the stored Turn (with the prompt version it was asked
with), when a debate resumes from stored turns, and on the admin's turn page."""

import pytest

from debates.engine import DebateConfig, debate_pair
from debates.llm.scripted import ScriptedClient
from debates.models import Turn
from debates.services import debate_run, turn_record_build
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.engine import PAIR, reply
from tests.fixtures.jobs import AGENT_A, AGENT_B

REFUSAL = "I'm sorry, I cannot judge <medical> content."
TRUNCATED = '{"label": 1, "argu'


def test_the_engine_keeps_each_attempts_reply_in_order():
    agent_a = ScriptedClient([REFUSAL, TRUNCATED])
    outcome = debate_pair(PAIR, agent_a, ScriptedClient([]), DebateConfig())
    (turn,) = outcome.turns
    assert (turn.raw, turn.raw_attempts, turn.attempts) == (TRUNCATED, (REFUSAL, TRUNCATED), 2)

    agent_a = ScriptedClient([REFUSAL, reply(1, "fixed")])
    outcome = debate_pair(PAIR, agent_a, ScriptedClient([reply(1)]), DebateConfig())
    first, second = outcome.turns
    assert first.raw_attempts == (REFUSAL, reply(1, "fixed"))
    assert second.raw_attempts == (reply(1),)


@pytest.mark.django_db
def test_stored_turns_keep_every_attempt_and_their_prompt_version(small_pool, fake_llms, client_as):
    fake_llms(
        a=ScriptedClient([REFUSAL, reply(1, "fixed")]),
        b=ScriptedClient([reply(1)]),
    )
    job = debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1, limit=1),
        start=False,
    )
    debate = debate_run(debate_id=job.debates.get().pk, requeue=False)

    assert debate.status == "agreed"
    rows = list(
        Turn.objects.filter(debate=debate).values_list(
            "agent", "raw", "raw_attempts", "attempts", "prompt_version"
        )
    )
    assert rows == [
        ("A", reply(1, "fixed"), [REFUSAL, reply(1, "fixed")], 2, "dream-v2"),
        ("B", reply(1), [reply(1)], 1, "dream-v2"),
    ]
    stored = Turn.objects.get(debate=debate, agent="A")
    assert turn_record_build(turn=stored).raw_attempts == (REFUSAL, reply(1, "fixed"))

    page = client_as("admin").get(f"/admin/debates/turn/{stored.pk}/change/").content.decode()
    assert "I&#x27;m sorry, I cannot judge &lt;medical&gt; content." in page
