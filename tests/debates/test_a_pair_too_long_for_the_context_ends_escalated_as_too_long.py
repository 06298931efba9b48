"""A pair whose query cannot fit the agents' context ends escalated with its own reason,
"too_long", never a failed debate; the job page, the review reason and the transcripts
export say so (a debate that made no turn has no transcript line: the case of a round too
long to quote shows the reason on its stored turns)."""

import io
import json

import pytest

from assess.refined.exports import export_stream
from assess.review.selectors import REASON_TEXT
from debates.llm.scripted import ScriptedClient
from debates.models import Debate
from debates.services import debate_run
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.engine import reply, result
from tests.fixtures.jobs import AGENT_A, AGENT_B


@pytest.fixture
def ended(overlong_pool, fake_llms):
    # The scripted clients count a token a word: q2's 40,000 words cannot fit 2,048 tokens.
    a = ScriptedClient([], context_window=2048)
    b = ScriptedClient([], context_window=2048)
    fake_llms(a=a, b=b)
    job = debate_job_launch(
        spec=JobSpec(pool=overlong_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1),
        start=False,
    )
    debate = job.debates.get(pair__query__query_id="q2")
    return debate_run(debate_id=debate.pk, requeue=False), a, b


@pytest.mark.django_db
def test_the_debate_is_escalated_as_too_long_without_any_call(ended):
    debate, a, b = ended
    assert (debate.status, debate.escalation_reason) == (
        Debate.Status.ESCALATED,
        Debate.Reason.TOO_LONG,
    )
    assert (debate.attempts, debate.last_error, debate.calls) == (0, "", 0)
    assert a.calls == [] and b.calls == []
    assert debate.turns.count() == 0


@pytest.mark.django_db
def test_the_job_page_counts_it_under_its_own_reason(ended, client_as):
    debate, _a, _b = ended
    page = client_as("researcher").get(f"/jobs/{debate.job_id}/").content.decode()
    start = page.index("Escalated by reason")
    table = page[start : page.index("</table>", start)]
    assert "too long for the context</th>" in table
    assert '<td class="num">1</td>' in table


@pytest.mark.django_db
def test_the_review_gives_the_reason_in_words(ended):
    debate, _a, _b = ended
    assert REASON_TEXT[debate.escalation_reason] == (
        "The pair's texts are too long for the agents' context (even with an empty "
        "document), so no agent could read it: it needs a human."
    )


@pytest.mark.django_db
def test_a_round_too_long_to_quote_keeps_round_one_and_the_transcripts_give_the_reason(
    overlong_pool, fake_llms
):
    # Round 1 of (q1, d1) fits 1,024 tokens; its two 700-word arguments, quoted back, do not
    # fit round 2 (the scripted clients count a token a word).
    huge = "y " * 700
    a = ScriptedClient([result(reply(1, huge), completion_tokens=300)], context_window=1024)
    b = ScriptedClient([result(reply(0, huge), completion_tokens=300)], context_window=1024)
    fake_llms(a=a, b=b)
    job = debate_job_launch(
        spec=JobSpec(pool=overlong_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=2),
        start=False,
    )
    row = job.debates.get(pair__query__query_id="q1", pair__document__doc_id="d1")
    debate = debate_run(debate_id=row.pk, requeue=False)
    assert (debate.status, debate.escalation_reason, debate.calls) == ("escalated", "too_long", 2)
    out = io.StringIO()
    export_stream(kind="transcripts", out=out, pool=overlong_pool)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["round"], r["agent"], r["escalation_reason"]) for r in rows] == [
        (1, "A", "too_long"),
        (1, "B", "too_long"),
    ]
