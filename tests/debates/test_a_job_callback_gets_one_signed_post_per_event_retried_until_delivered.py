"""A job with a callback URL POSTs one signed JSON document per event to a receiver on
127.0.0.1 (allowed by exact name): when it finishes, fails, is paused or is cancelled. A
receiver answering 500 gets the delivery again once it is due, never twice at once; the
job page lists the deliveries with their attempts."""

import json
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from core.tokens import webhook_secret_get, webhook_signature
from debates.llm.scripted import RuleClient
from debates.models import Debate, WebhookDelivery
from debates.services import debate_job_cancel, debate_job_pause
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from debates.services.leases import job_finish_if_done
from debates.services.webhooks import (
    webhook_deliver,
    webhook_resend_due,
    webhook_threads_join,
)
from tests.fixtures.jobs import AGENT_A, AGENT_B, reply, wait_for
from tests.fixtures.webhook_receiver import Received, Receiver, signature_verifies


@pytest.fixture
def receiver(settings):
    settings.DREAM_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    receiver = Receiver().start()
    yield receiver
    receiver.stop()


@pytest.fixture
def owner(make_user):
    return make_user("admin", "hook-owner")


def launch(pool, owner, url, *, start=False):
    spec = JobSpec(
        pool=pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1, concurrency=1, callback_url=url
    )
    return debate_job_launch(spec=spec, created_by=owner, start=start)


def finish(job, django_capture_on_commit_callbacks) -> WebhookDelivery:
    """End every debate agreed and let the job finish; the delivery's message is captured,
    not sent (the test sends it by calling the service)."""
    job.debates.update(status=Debate.Status.AGREED, final_label=1)
    with django_capture_on_commit_callbacks(execute=False) as after_commit:
        assert job_finish_if_done(job_id=job.pk)
    assert len(after_commit) == 1  # sent only once the finish committed
    return WebhookDelivery.objects.get(job=job)


@pytest.mark.django_db(transaction=True)
def test_a_job_that_finishes_sends_exactly_one_post_whose_signature_verifies(
    small_pool, fake_llms, receiver, owner
):
    agree = RuleClient(lambda messages: reply(1))
    fake_llms(a=agree, b=agree)
    # A title apart from the slug: the body names the dataset by its slug, as the API does.
    type(small_pool.dataset).objects.filter(pk=small_pool.dataset.pk).update(name="Small set")
    job = launch(small_pool, owner, receiver.url, start=True)
    debate_job_wait(job=job)
    delivery = wait_for(
        lambda: WebhookDelivery.objects.filter(job=job, status="delivered").first(),
        timeout=20,
        what="the delivery of job.finished",
    )
    webhook_threads_join(timeout=5)

    assert len(receiver.received) == 1
    got = receiver.received[0]
    assert got.path == "/dream/hook?token=abc"
    assert got.headers["Content-Type"] == "application/json"
    assert got.headers["X-Dream-Event"] == "job.finished"
    assert got.headers["X-Dream-Delivery"] == str(delivery.pk)
    assert abs(int(got.headers["X-Dream-Timestamp"]) - time.time()) < 60
    secret = webhook_secret_get(user=owner)
    assert signature_verifies(secret, got)
    assert got.headers["X-Dream-Signature"] == webhook_signature(
        secret=secret, body=got.body, timestamp=int(got.headers["X-Dream-Timestamp"])
    )
    assert not signature_verifies(secret, Received(got.path, got.headers, got.body + b" "))
    document = json.loads(got.body)
    assert set(document) == {"event", "job", "sent_at"}
    assert document["event"] == "job.finished"
    assert document["job"] == {
        "id": job.pk,
        "status": "finished",
        "pool": "pool",
        "dataset": "small",
        "total": 4,
        "agreed": 4,
        "escalated": 0,
        "failed": 0,
        "pending": 0,
        "url": f"/jobs/{job.pk}/",
    }
    assert (delivery.event, delivery.attempts, delivery.last_status_code) == (
        "job.finished",
        1,
        200,
    )
    assert WebhookDelivery.objects.filter(job=job).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_pause_sends_job_paused_after_it_committed(small_pool, fake_llms, receiver, owner):
    job = launch(small_pool, owner, receiver.url)
    debate_job_pause(job=job)
    wait_for(lambda: receiver.received, timeout=20, what="the POST of job.paused")
    webhook_threads_join(timeout=5)
    (got,) = receiver.received
    document = json.loads(got.body)
    assert (got.headers["X-Dream-Event"], document["event"]) == ("job.paused", "job.paused")
    assert (document["job"]["status"], document["job"]["pending"]) == ("paused", 4)
    assert signature_verifies(webhook_secret_get(user=owner), got)
    delivery = wait_for(
        lambda: WebhookDelivery.objects.filter(job=job, status="delivered").first(),
        timeout=10,
        what="the delivery stored as delivered",
    )
    assert delivery.attempts == 1


@pytest.mark.django_db
def test_a_receiver_answering_500_first_gets_the_delivery_again_when_due_then_delivered(
    small_pool, fake_llms, receiver, owner, django_capture_on_commit_callbacks
):
    job = launch(small_pool, owner, receiver.url)
    delivery = finish(job, django_capture_on_commit_callbacks)
    assert receiver.received == []
    receiver.answers.append(500)

    assert webhook_deliver(delivery_id=delivery.pk) == "pending"
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.last_status_code, delivery.status) == (1, 500, "pending")
    assert 9 < (delivery.next_attempt_at - timezone.now()).total_seconds() <= 10

    assert webhook_deliver(delivery_id=delivery.pk) == "pending"  # not due yet: nothing sent
    assert len(receiver.received) == 1
    later = timezone.now() + timedelta(seconds=11)
    assert webhook_deliver(delivery_id=delivery.pk, now=later) == "delivered"
    assert webhook_deliver(delivery_id=delivery.pk, now=later) == "delivered"  # done: no POST

    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("delivered", 2, 200)
    assert (delivery.last_error, delivery.next_attempt_at) == ("", None)
    assert delivery.delivered is not None
    first, second = receiver.received
    assert first.headers["X-Dream-Delivery"] == second.headers["X-Dream-Delivery"]
    secret = webhook_secret_get(user=owner)
    assert signature_verifies(secret, first) and signature_verifies(secret, second)


@pytest.mark.django_db
def test_a_delivery_failing_six_times_is_given_up(
    small_pool, fake_llms, receiver, owner, django_capture_on_commit_callbacks
):
    job = launch(small_pool, owner, receiver.url)
    delivery = finish(job, django_capture_on_commit_callbacks)
    receiver.answers.extend([503] * 7)
    moment = timezone.now()
    statuses = []
    for _ in range(7):
        statuses.append(webhook_deliver(delivery_id=delivery.pk, now=moment))
        moment += timedelta(hours=3)  # past the longest wait (2 h)
    assert statuses == ["pending"] * 5 + ["failed", "failed"]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("failed", 6, 503)
    assert len(receiver.received) == 6


@pytest.mark.django_db
def test_a_job_with_a_failed_debate_sends_job_failed_with_its_counts(
    small_pool, fake_llms, receiver, owner, django_capture_on_commit_callbacks
):
    job = launch(small_pool, owner, receiver.url)
    job.debates.update(status=Debate.Status.ESCALATED)
    Debate.objects.filter(pk=job.debates.order_by("pk")[0].pk).update(status="failed")
    with django_capture_on_commit_callbacks(execute=False):
        assert job_finish_if_done(job_id=job.pk)
    delivery = WebhookDelivery.objects.get(job=job)
    assert delivery.event == delivery.payload["event"] == "job.failed"
    counts = {k: delivery.payload["job"][k] for k in ("total", "escalated", "failed", "pending")}
    assert counts == {"total": 4, "escalated": 3, "failed": 1, "pending": 0}
    assert webhook_deliver(delivery_id=delivery.pk) == "delivered"
    assert receiver.received[0].headers["X-Dream-Event"] == "job.failed"


@pytest.mark.django_db
def test_a_cancel_sends_job_cancelled_and_a_finished_job_sends_nothing_more(
    small_pool, fake_llms, receiver, owner, django_capture_on_commit_callbacks
):
    job = launch(small_pool, owner, receiver.url)
    with django_capture_on_commit_callbacks(execute=False):
        debate_job_cancel(job=job)
        assert not job_finish_if_done(job_id=job.pk)  # cancelled: it does not finish
    (delivery,) = WebhookDelivery.objects.filter(job=job)
    assert (delivery.event, delivery.payload["job"]["status"]) == ("job.cancelled", "cancelled")


@pytest.mark.django_db
def test_finishing_a_job_costs_one_statement_when_nothing_finishes_or_there_is_no_callback(
    small_pool, fake_llms, owner, django_assert_num_queries
):
    job = launch(small_pool, owner, "")
    with django_assert_num_queries(1):
        assert not job_finish_if_done(job_id=job.pk)  # debates still pending
    job.debates.update(status=Debate.Status.AGREED)
    with django_assert_num_queries(1):
        assert job_finish_if_done(job_id=job.pk)  # finished, and no callback to send
    assert not WebhookDelivery.objects.exists()


@pytest.mark.django_db
def test_with_a_broker_the_delivery_is_a_task_sent_after_commit_and_resent_when_lost(
    small_pool,
    fake_llms,
    receiver,
    owner,
    settings,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    from debates.tasks import deliver_webhook

    settings.CELERY_TASK_ALWAYS_EAGER = False
    sent = []
    monkeypatch.setattr(
        deliver_webhook, "apply_async", lambda args, countdown=None: sent.append(args[0])
    )
    job = launch(small_pool, owner, receiver.url)
    with django_capture_on_commit_callbacks(execute=True):
        debate_job_pause(job=job)
        assert sent == []  # not before commit
    delivery = WebhookDelivery.objects.get(job=job)
    assert sent == [delivery.pk]
    assert webhook_resend_due() == 0  # just sent: its message is not taken as lost
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        next_attempt_at=timezone.now() - timedelta(minutes=5)
    )
    assert webhook_resend_due() == 1
    assert sent == [delivery.pk, delivery.pk]
    assert receiver.received == []


@pytest.mark.django_db
def test_a_name_that_resolves_to_a_loopback_address_when_sending_is_refused_then(
    small_pool, fake_llms, owner, settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.DREAM_WEBHOOK_ALLOWED_HOSTS = ["*.example.org"]
    answers = {"now": ["93.184.216.34"]}
    monkeypatch.setattr(
        "debates.services.webhooks.addresses_resolve", lambda host, port: answers["now"]
    )
    job = launch(small_pool, owner, "https://hooks.example.org/dream")
    answers["now"] = ["127.0.0.1"]  # the name now points inside
    with django_capture_on_commit_callbacks(execute=False):
        debate_job_pause(job=job)
    delivery = WebhookDelivery.objects.get(job=job)
    assert webhook_deliver(delivery_id=delivery.pk) == "failed"
    delivery.refresh_from_db()
    assert delivery.attempts == 1
    assert "resolves to 127.0.0.1, a loopback address" in delivery.last_error


@pytest.mark.django_db
def test_the_job_page_lists_the_deliveries_with_attempts_and_escaped_errors(
    small_pool, fake_llms, receiver, owner, client_as
):
    job = launch(small_pool, owner, receiver.url)
    WebhookDelivery.objects.create(
        job=job,
        event="job.paused",
        url=receiver.url,
        payload={},
        status="delivered",
        attempts=2,
        last_status_code=200,
        delivered=timezone.now(),
    )
    WebhookDelivery.objects.create(
        job=job,
        event="job.finished",
        url=receiver.url,
        payload={},
        status="failed",
        attempts=6,
        last_error="<b>connection refused</b>",
    )
    html = client_as("researcher").get(f"/jobs/{job.pk}/").content.decode()
    section = html[html.index('id="job-webhook"') :]
    assert "job.paused" in section and "job.finished" in section
    assert '<td class="num">2</td>' in section and '<td class="num">6</td>' in section
    assert "HTTP 200" in section
    assert "&lt;b&gt;connection refused&lt;/b&gt;" in section
    assert "<b>connection refused" not in html
    assert "/dream/hook" in section and "token=abc" not in html  # the query is not shown
