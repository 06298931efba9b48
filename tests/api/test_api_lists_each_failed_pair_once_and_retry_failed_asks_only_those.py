"""A job with scripted failures: the API lists each failed pair once (its pair, last error
and attempts), a page at a time, with counts that add up; "retry failed only", from the API,
the command or the job page, asks exactly those pairs again and, since each resumes from its
stored turns, only the round that failed (no round-1 call is asked twice)."""

import pytest
from django.core.management import call_command

from corpora.models import Pair
from debates.llm.base import LLMResult, PermanentLLMError
from debates.llm.scripted import RuleClient
from debates.models import DebateJob, Turn
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from tests.fixtures.engine import stance_in
from tests.fixtures.jobs import reply

DOCUMENTS = {  # a document's text in the prompt -> its doc id
    "Solar panels convert": "d1",
    "solar tax credit": "d2",
    "Wind turbines": "d3",
    "Heat pumps": "d10",
}


class Script:
    """d1: both agents say relevant in round 1 (agreed). d10: round 1 split, round 2 fails
    once then stays split (escalated after R = 2: a failure a later attempt got past). d2 and
    d3: round 1 split, round 2 agent A fails while ``broken`` (failed after 3 attempts),
    else both say irrelevant (agreed in round 2). ``calls`` logs (doc id, round, agent)."""

    def __init__(self):
        self.broken = True
        self.failed_once = False
        self.calls = []

    def __call__(self, messages):
        user = messages[1]["content"]
        doc = next(d for text, d in DOCUMENTS.items() if text in user)
        round_no = 2 if "Round 2." in user else 1
        agent = "A" if stance_in(messages) == "relevant" else "B"
        self.calls.append((doc, round_no, agent))
        if round_no == 2 and agent == "A":
            if doc in ("d2", "d3") and self.broken:
                return PermanentLLMError(f"no round 2 for {doc}")
            if doc == "d10" and not self.failed_once:
                self.failed_once = True
                return PermanentLLMError("a blip")
        if doc == "d1":
            label = 1
        elif doc in ("d2", "d3") and round_no == 2:
            label = 0
        else:
            label = int(agent == "A")
        return LLMResult(reply(label), "rule", 100, 10, 5.0, "stop")


@pytest.fixture
def script(monkeypatch):
    rule = Script()
    client = RuleClient(rule)
    monkeypatch.setattr(
        "debates.services.backends.agent_client_get", lambda *, config, api_key=None: client
    )
    return rule


@pytest.fixture
def failed_job(small_pool, script):
    job = debate_job_launch(spec=JobSpec(pool=small_pool, rounds=2))
    debate_job_wait(job=job)
    job.refresh_from_db()
    assert job.status == DebateJob.Status.FINISHED
    return job


def _pair_id(pool, query_id, doc_id):
    return Pair.objects.get(pool=pool, query__query_id=query_id, document__doc_id=doc_id).pk


@pytest.mark.django_db
def test_the_job_body_lists_each_failed_pair_once_with_counts_that_add_up(
    failed_job, script, api_as
):
    body = api_as("researcher").get(f"/api/v1/jobs/{failed_job.pk}").json()

    counts = body["counts"]
    assert counts == {
        "total": 4,
        "settled": 1,
        "escalated": 1,
        "failed": 2,
        "pending": 0,
        "running": 0,
        "last_error": "PermanentLLMError: no round 2 for d3",  # d3 failed last
    }
    parts = ("settled", "escalated", "failed", "pending", "running")
    assert sum(counts[k] for k in parts) == counts["total"] == body["progress"]["total"]
    pool = failed_job.pool
    assert [(f["pair"], f["attempts"], f["last_error"]) for f in body["failures"]] == [
        (
            {"id": _pair_id(pool, "q1", "d2"), "query_id": "q1", "doc_id": "d2"},
            3,
            "PermanentLLMError: no round 2 for d2",
        ),
        (
            {"id": _pair_id(pool, "q2", "d3"), "query_id": "q2", "doc_id": "d3"},
            3,
            "PermanentLLMError: no round 2 for d3",
        ),
    ]
    # d10 failed once and got past it: no failure of the job.
    assert failed_job.debates.get(pair__document__doc_id="d10").status == "escalated"


@pytest.mark.django_db
def test_the_failures_list_pages_through_each_failed_pair_once(failed_job, api_as, settings):
    settings.NINJA_PAGINATION_PER_PAGE = 1
    api = api_as("researcher")
    url = f"/api/v1/jobs/{failed_job.pk}/failures"

    pages = [api.get(f"{url}?page={n}").json() for n in (1, 2, 3)]

    assert [p["count"] for p in pages] == [2, 2, 2]
    assert [[f["pair"]["doc_id"] for f in p["items"]] for p in pages] == [["d2"], ["d3"], []]
    assert api.get(f"{url}?page=0").status_code == 422
    assert api.get("/api/v1/jobs/999999/failures").status_code == 404
    # The job body shows the first page only; its counts say how many there are in all.
    body = api.get(f"/api/v1/jobs/{failed_job.pk}").json()
    assert (len(body["failures"]), body["counts"]["failed"]) == (1, 2)


@pytest.mark.django_db
def test_the_command_prints_each_failed_pair_once(failed_job, capsys):
    call_command("debate_job", str(failed_job.pk), "failures")
    pool = failed_job.pool
    debates = {d.pair.document.doc_id: d.pk for d in failed_job.debates.select_related("pair")}
    assert capsys.readouterr().out.splitlines() == [
        f"job {failed_job.pk}: 4 pairs: 1 settled, 1 escalated, 2 failed, 0 pending, 0 running",
        f"debate {debates['d2']} pair {_pair_id(pool, 'q1', 'd2')} (q1, d2): 3 attempts; "
        "PermanentLLMError: no round 2 for d2",
        f"debate {debates['d3']} pair {_pair_id(pool, 'q2', 'd3')} (q2, d3): 3 attempts; "
        "PermanentLLMError: no round 2 for d3",
        f"retry these pairs only: debate_job {failed_job.pk} retry-failed",
    ]


def _retry_by_api(job, api_as, client_as, capture):
    with capture(execute=False):  # the web process's background thread: run below instead
        answer = api_as("admin").post(f"/api/v1/jobs/{job.pk}/retry-failed")
    assert answer.status_code == 200
    body = answer.json()
    assert (body["status"], body["counts"]["pending"], body["failures"]) == ("running", 2, [])
    debate_job_wait(job=job)


def _retry_by_command(job, api_as, client_as, capture):
    call_command("debate_job", str(job.pk), "retry-failed", "--no-progress")


def _retry_by_page(job, api_as, client_as, capture):
    client = client_as("admin")
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "Retry failed only (2)</button>" in page
    with capture(execute=False):
        assert client.post(f"/jobs/{job.pk}/retry-failed/").status_code == 302
    debate_job_wait(job=job)


@pytest.mark.django_db
@pytest.mark.parametrize("retry", [_retry_by_api, _retry_by_command, _retry_by_page])
def test_retry_failed_only_asks_exactly_the_failed_pairs_from_their_failed_round(
    failed_job, script, api_as, client_as, django_capture_on_commit_callbacks, retry
):
    before = list(script.calls)
    # Each failed pair: round 1 once, then three attempts of round 2 that A failed.
    for doc in ("d2", "d3"):
        assert [c for c in before if c[0] == doc] == [(doc, 1, "A"), (doc, 1, "B")] + [
            (doc, 2, "A")
        ] * 3
    script.broken = False

    retry(failed_job, api_as, client_as, django_capture_on_commit_callbacks)

    assert script.calls[len(before) :] == [
        ("d2", 2, "A"),
        ("d2", 2, "B"),
        ("d3", 2, "A"),
        ("d3", 2, "B"),
    ]
    failed_job.refresh_from_db()
    assert failed_job.status == DebateJob.Status.FINISHED
    outcomes = {
        d.pair.document.doc_id: (d.status, d.final_label, d.consensus_round, d.last_error)
        for d in failed_job.debates.select_related("pair__document")
    }
    assert outcomes == {
        "d1": ("agreed", 1, 1, ""),
        "d2": ("agreed", 0, 2, ""),
        "d3": ("agreed", 0, 2, ""),
        "d10": ("escalated", None, None, ""),
    }
    turns = Turn.objects.filter(debate__job=failed_job, debate__pair__document__doc_id="d2")
    assert sorted(turns.values_list("round", "agent")) == [(1, "A"), (1, "B"), (2, "A"), (2, "B")]
    body = api_as("researcher").get(f"/api/v1/jobs/{failed_job.pk}").json()
    assert body["counts"] == {
        "total": 4,
        "settled": 3,
        "escalated": 1,
        "failed": 0,
        "pending": 0,
        "running": 0,
        "last_error": "",
    }
    assert body["failures"] == []
