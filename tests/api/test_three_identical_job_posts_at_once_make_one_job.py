"""Three identical ``POST /api/v1/jobs`` sent at the same time make one job: with one
``Idempotency-Key`` all three get that job's answer; without a key the launches take turns
on the pool's row and the two later ones are refused as duplicates of the running job
(409); with ``allow_duplicate`` each makes its own."""

import threading

import pytest
from django.db import connections
from django.test import Client

from core.tokens import api_token_create
from debates.models import DebateJob

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_run(monkeypatch):
    # The jobs are only counted: their debates are not run (no thread after the commit).
    monkeypatch.setattr("debates.services.launch._background_thread_start", lambda job_id: None)


def _at_once(api_as, body: dict, headers: dict) -> list[tuple[int, dict]]:
    _, token = api_token_create(user=api_as("admin").user, name="threads")
    start = threading.Barrier(3)
    answers: list[tuple[int, dict]] = []

    def post() -> None:
        client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
        try:
            start.wait()
            answer = client.post("/api/v1/jobs", body, content_type="application/json", **headers)
            answers.append((answer.status_code, answer.json()))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=post) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == 3
    return answers


def test_three_posts_with_one_key_make_one_job_and_get_its_answer(api_as, tiny_dataset):
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1}

    answers = _at_once(api_as, body, {"HTTP_IDEMPOTENCY_KEY": "same-key"})

    job = DebateJob.objects.get()
    assert [status for status, _ in answers] == [202, 202, 202]
    assert answers[0][1] == answers[1][1] == answers[2][1]
    assert answers[0][1]["id"] == job.pk


def test_three_posts_without_a_key_make_one_job_and_two_refusals(api_as, tiny_dataset):
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1}

    answers = _at_once(api_as, body, {})

    job = DebateJob.objects.get()
    assert sorted(status for status, _ in answers) == [202, 409, 409]
    refusals = [answer["detail"] for status, answer in answers if status == 409]
    assert (
        refusals
        == [
            f"job {job.pk} (running) already debates pool {job.pool_id} with the same settings "
            "(agents, rounds, budgets, prompt, scale, pairs): a second job would debate every pair "
            'again; send "allow_duplicate": true to launch it anyway'
        ]
        * 2
    )


def test_three_posts_that_allow_a_duplicate_make_three_jobs(api_as, tiny_dataset):
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1, "allow_duplicate": True}

    answers = _at_once(api_as, body, {})

    assert [status for status, _ in answers] == [202, 202, 202]
    assert DebateJob.objects.count() == 3
