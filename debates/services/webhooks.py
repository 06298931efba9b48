"""Webhooks of debate jobs: the callback a job may carry, its events, and sending them.

A job with a ``callback_url`` gets one POST per event: ``job.finished`` (no debate failed),
``job.failed`` (finished with at least one failed debate), ``job.paused``, ``job.cancelled``.

- :func:`webhook_callback_validate` checks a callback URL when a job is launched (http(s), no
  credentials, an allowed host, addresses it may reach: :mod:`debates.webhooks`; the job
  form asks :func:`webhook_url_check` first, to put the error on its field).
- :func:`webhook_job_event` is called where a job's status changes
  (:func:`~debates.services.leases.job_finish_if_done`, pause, cancel), inside the
  transaction of that change: it stores a :class:`~debates.models.WebhookDelivery` and,
  once the transaction commits, sends it (:func:`webhook_dispatch`: a Celery task, or a
  daemon thread without a broker). Nothing is sent for a change that was rolled back, and a
  change that committed always has its delivery: the database, not the queue, is the source
  of truth.
- :func:`webhook_deliver` claims a due delivery with a conditional UPDATE (two workers never
  both send it), resolves and checks the host again, POSTs the signed JSON to the checked
  address (no redirects, :data:`TIMEOUT_SECONDS`) and stores the result: delivered on 2xx,
  else due again after :func:`debates.webhooks.retry_delay`, failed after 6 attempts.
- :func:`webhook_resend_due` (Celery beat) sends again deliveries due whose message was lost
  or whose retry was too far off to wait in the broker.
"""

from __future__ import annotations

import http.client
import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import close_old_connections, connections, transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from core.broker import task_named, tasks_run_in_process
from core.tokens import webhook_secret_get, webhook_signature
from debates.models import DebateJob, WebhookDelivery
from debates.services.common import ERROR_CHARS, DebateJobError, error_text
from debates.services.progress import debate_job_progress
from debates.webhooks import (
    ALLOWED_HOSTS_SETTING,
    CallbackRefused,
    CallbackTarget,
    addresses_check,
    allowed_hosts_parse,
    body_encode,
    callback_url_parse,
    retry_delay,
)

log = logging.getLogger(__name__)

TIMEOUT_SECONDS = 10.0  # per socket operation of one POST
CLAIM_SECONDS = 120.0  # a claimed delivery is not sent again before this (a crashed sender)
RESEND_GRACE_SECONDS = 30.0  # due this long without being claimed: its message was lost
COUNTDOWN_MAX_SECONDS = 300.0  # longer retries are left to the sweep, not held by the broker
USER_AGENT = "DREAM-Assess-webhook/1"
#: The registered name of :func:`debates.tasks.deliver_webhook` (one delivery attempt).
DELIVER_WEBHOOK_TASK = "debates.deliver_webhook"

Event = WebhookDelivery.Event


def webhook_allowed_hosts() -> tuple[str, ...]:
    """``settings.DREAM_WEBHOOK_ALLOWED_HOSTS`` (a list, or a comma-separated string), read
    each time so a test or an admin's change applies at once."""
    return allowed_hosts_parse(getattr(settings, ALLOWED_HOSTS_SETTING, ()) or ())


def addresses_resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to for a TCP connection to ``port``, in the
    resolver's order, without repeats. Raises OSError (socket.gaierror) when it does not."""
    found: list[str] = []
    for *_, sockaddr in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        address = str(sockaddr[0])
        if address not in found:
            found.append(address)
    return found


def _target_check(url: str) -> tuple[CallbackTarget, list[str]]:
    """The target of ``url`` and the addresses it may be sent to (see :mod:`debates.webhooks`).
    Raises CallbackRefused, or OSError when the host does not resolve."""
    allowed = webhook_allowed_hosts()
    target = callback_url_parse(url, allowed=allowed)
    return target, addresses_check(
        target, addresses_resolve(target.host, target.port), allowed=allowed
    )


def webhook_callback_validate(*, url: str, created_by: Any) -> str:
    """The callback URL a new job may carry: ``url`` stripped, "" for none. The job needs a
    creator, whose webhook secret signs the callbacks, and the URL must pass
    :func:`webhook_url_check`. Raises DebateJobError saying which rule failed."""
    if (url or "").strip() and created_by is None:
        raise DebateJobError(
            "callback URL: a job with a callback needs a creator (created_by; run_debates "
            "--user), whose webhook secret signs the callbacks"
        )
    return webhook_url_check(url=url)


def webhook_url_check(*, url: str) -> str:
    """``url`` stripped ("" for none) if a callback may go there: http(s), no credentials, a
    host allowed by ``DREAM_WEBHOOK_ALLOWED_HOSTS``, resolving (asked now) to addresses it
    may reach. Raises DebateJobError saying which rule failed."""
    url = (url or "").strip()
    if not url:
        return ""
    try:
        _target_check(url)
    except CallbackRefused as exc:
        raise DebateJobError(str(exc)) from None
    except OSError as exc:
        host = urlsplit(url).hostname
        raise DebateJobError(f"callback URL: host {host!r} does not resolve ({exc})") from None
    return url


def _payload(job: DebateJob, event: str) -> dict[str, Any]:
    progress = debate_job_progress(job=job)
    if event == Event.FINISHED and progress.failed:
        event = Event.FAILED
    return {
        "event": event,
        "job": {
            "id": job.pk,
            "status": progress.status,
            "pool": job.pool.name,
            "dataset": job.pool.dataset.slug,  # its id in URLs and the API, not its title
            "total": progress.total,
            "agreed": progress.agreed,
            "escalated": progress.escalated,
            "failed": progress.failed,
            "pending": progress.pending + progress.running,
            "url": reverse("debates:job_detail", kwargs={"pk": job.pk}),
        },
    }


def webhook_job_event(*, job_id: int, event: str) -> WebhookDelivery | None:
    """Store the delivery of ``event`` for job ``job_id`` and send it once the caller's
    transaction commits; None (one query) when the job has no callback URL.

    Call it inside the transaction that changed the job's status, right after the change,
    exactly once per change. ``event`` is a :class:`WebhookDelivery.Event`; "job.finished"
    is stored as "job.failed" when at least one of the job's debates failed. The payload is
    the job as it is now (status and counts, see ``docs/debates-and-backends.md``)."""
    job = DebateJob.objects.select_related("pool__dataset").get(pk=job_id)
    if not job.callback_url:
        return None
    payload = _payload(job, event)
    delivery = WebhookDelivery.objects.create(
        job=job,
        event=payload["event"],
        url=job.callback_url,
        payload=payload,
        next_attempt_at=timezone.now(),
    )
    transaction.on_commit(lambda: webhook_dispatch(delivery_id=delivery.pk))
    return delivery


# Threads sending right away without a broker, so a command can wait for them before it exits.
_threads: set[threading.Thread] = set()
_threads_lock = threading.Lock()


def webhook_dispatch(*, delivery_id: int, countdown: float = 0.0) -> None:
    """Send delivery ``delivery_id`` in the background after ``countdown`` seconds: a Celery
    task (:func:`debates.tasks.deliver_webhook`) with a broker, else a daemon thread of this
    process (the caller never waits on the network). Call it after commit: the sender must
    find the row. With a broker a countdown over :data:`COUNTDOWN_MAX_SECONDS` sends nothing
    now: :func:`webhook_resend_due` picks the delivery up when it is due."""
    if not tasks_run_in_process():
        if countdown > COUNTDOWN_MAX_SECONDS:
            return
        deliver_webhook = task_named(DELIVER_WEBHOOK_TASK)
        # celery-types says countdown: float; Celery takes None as "no delay".
        deliver_webhook.apply_async((delivery_id,), countdown=countdown or None)  # type: ignore[arg-type]
        return

    def work() -> None:
        close_old_connections()
        try:
            webhook_deliver(delivery_id=delivery_id)
        except Exception:  # a thread has no caller to raise to: log it
            log.exception("webhook delivery %s stopped with an error", delivery_id)
        finally:
            connections.close_all()
            with _threads_lock:
                _threads.discard(thread)

    thread = threading.Timer(countdown, work)
    thread.name, thread.daemon = f"webhook-{delivery_id}", True
    if countdown <= 0:
        with _threads_lock:
            _threads.add(thread)
    thread.start()


def webhook_threads_join(*, timeout: float) -> None:
    """Wait up to ``timeout`` seconds in all for the deliveries this process is sending right
    now (no broker): a command calls it before it exits, which would end the daemon threads.
    Retries scheduled for later are not waited for."""
    deadline = time.monotonic() + timeout
    with _threads_lock:
        pending = list(_threads)
    for thread in pending:
        thread.join(max(0.0, deadline - time.monotonic()))


@dataclass(frozen=True)
class _Attempt:
    """How one attempt went: the HTTP status (None: no response), an error, and whether
    trying again could change anything (``permanent``: it could not)."""

    status_code: int | None = None
    error: str = ""
    permanent: bool = False

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def webhook_deliver(*, delivery_id: int, now: datetime | None = None) -> str:
    """Make one attempt at delivery ``delivery_id`` if it is pending and due at ``now``
    (default: the current time); return its status after ("missing" if there is none).

    Idempotent: the attempt starts with a conditional UPDATE that counts it and moves
    ``next_attempt_at`` :data:`CLAIM_SECONDS` ahead, so a second message, the sweep or
    another worker finds nothing due; the result is written only while that claim holds
    (same attempt count, still pending). 2xx: delivered. A non-2xx answer, a timeout or a
    connection error: due again after :func:`debates.webhooks.retry_delay` (and sent again
    then), failed after the sixth attempt. A URL the allowed hosts no longer allow, an
    address it may not reach, or a job whose creator was deleted fails it at once."""
    now = now or timezone.now()
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id, status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=now
    ).update(attempts=F("attempts") + 1, next_attempt_at=now + timedelta(seconds=CLAIM_SECONDS))
    if not claimed:
        status = WebhookDelivery.objects.filter(pk=delivery_id).values_list("status", flat=True)
        return status.first() or "missing"
    delivery = WebhookDelivery.objects.select_related("job__created_by").get(pk=delivery_id)
    attempt = _attempt(delivery)
    return _attempt_store(delivery, attempt, now)


def _attempt(delivery: WebhookDelivery) -> _Attempt:
    """One signed POST of ``delivery`` to the address its host was checked to have."""
    creator = delivery.job.created_by
    if creator is None:
        return _Attempt(
            error="the job's creator was deleted: no secret to sign with", permanent=True
        )
    try:
        target, addresses = _target_check(delivery.url)
    except CallbackRefused as exc:
        return _Attempt(error=str(exc), permanent=True)
    except OSError as exc:
        return _Attempt(error=f"host does not resolve: {error_text(exc)}")
    sent = timezone.now()
    body = body_encode(delivery.payload, sent_at=sent)
    timestamp = int(sent.timestamp())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Dream-Event": delivery.event,
        "X-Dream-Delivery": str(delivery.pk),
        "X-Dream-Timestamp": str(timestamp),
        "X-Dream-Signature": webhook_signature(
            secret=webhook_secret_get(user=creator), body=body, timestamp=timestamp
        ),
    }
    try:
        status = _post(target, addresses[0], delivery.url, body, headers)
    except (OSError, http.client.HTTPException) as exc:  # timeouts are OSErrors
        return _Attempt(error=error_text(exc))
    # The status code says what went wrong; a redirect also needs saying it was not followed.
    return _Attempt(
        status_code=status, error="redirect not followed" if 300 <= status < 400 else ""
    )


def _pinned(address: str) -> Callable[..., socket.socket]:
    def connect(
        where: tuple[str, int], timeout: Any = None, source_address: Any = None
    ) -> socket.socket:
        return socket.create_connection((address, where[1]), timeout, source_address)

    return connect


class _PinnedHTTP(http.client.HTTPConnection):
    """HTTP to the address checked, whatever the name resolves to a moment later (a DNS answer
    that changes between check and connect must not reach an internal address)."""

    def __init__(self, host: str, port: int, *, address: str) -> None:
        super().__init__(host, port, timeout=TIMEOUT_SECONDS)
        self._create_connection = _pinned(address)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """HTTPS to the address checked; the certificate is verified for the host name."""

    def __init__(self, host: str, port: int, *, address: str) -> None:
        context = ssl.create_default_context()
        super().__init__(host, port, timeout=TIMEOUT_SECONDS, context=context)
        self._create_connection = _pinned(address)


def _post(
    target: CallbackTarget, address: str, url: str, body: bytes, headers: dict[str, str]
) -> int:
    """POST ``body`` to ``url`` at ``address``; the response's status code. A redirect is
    not followed (its 3xx counts as a failed attempt)."""
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    kind = _PinnedHTTPS if target.scheme == "https" else _PinnedHTTP
    connection = kind(target.host, target.port, address=address)
    try:
        connection.request("POST", path, body=body, headers=headers)
        return connection.getresponse().status
    finally:
        connection.close()


def _attempt_store(delivery: WebhookDelivery, attempt: _Attempt, now: datetime) -> str:
    """Write ``attempt``'s result while the claim holds; schedule the next attempt."""
    fields: dict[str, Any] = {
        "last_status_code": attempt.status_code,
        "last_error": attempt.error[:ERROR_CHARS],
    }
    delay = None if attempt.permanent else retry_delay(delivery.attempts)
    if attempt.delivered:
        status = WebhookDelivery.Status.DELIVERED
        fields.update(status=status, delivered=timezone.now(), next_attempt_at=None)
    elif delay is None:
        status = WebhookDelivery.Status.FAILED
        fields.update(status=status, next_attempt_at=None)
    else:
        status = WebhookDelivery.Status.PENDING
        fields.update(next_attempt_at=now + timedelta(seconds=delay))
    stored = WebhookDelivery.objects.filter(
        pk=delivery.pk, status=WebhookDelivery.Status.PENDING, attempts=delivery.attempts
    ).update(**fields)
    if not stored:  # the claim lapsed and another sender took over: its result stands
        return str(WebhookDelivery.objects.get(pk=delivery.pk).status)
    if not attempt.delivered:
        log.warning(
            "webhook %s (%s of job %s) attempt %d: %s; %s",
            delivery.pk,
            delivery.event,
            delivery.job_id,
            delivery.attempts,
            attempt.error or f"HTTP {attempt.status_code}",
            "given up" if delay is None else f"again in {delay:.0f} s",
        )
    if status == WebhookDelivery.Status.PENDING and delay is not None:
        transaction.on_commit(lambda: webhook_dispatch(delivery_id=delivery.pk, countdown=delay))
    return str(status)


def webhook_resend_due(*, now: datetime | None = None) -> int:
    """Send again (:func:`webhook_dispatch`) the pending deliveries due for more than
    :data:`RESEND_GRACE_SECONDS` at ``now``: their message was lost, their sender died, or
    their retry was too far off for a countdown. Returns how many (at most 500 a call).
    Periodic: :func:`debates.tasks.resend_due_webhooks`."""
    now = now or timezone.now()
    due = list(
        WebhookDelivery.objects.filter(
            status=WebhookDelivery.Status.PENDING,
            next_attempt_at__lte=now - timedelta(seconds=RESEND_GRACE_SECONDS),
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:500]
    )
    for pk in due:
        webhook_dispatch(delivery_id=pk)
    return len(due)
