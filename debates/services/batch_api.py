"""``debate_batch JOB submit``: a batch-mode job's rounds through an OpenAI-compatible Batch
API (OpenAI's, at half the price of direct calls, or any server that speaks it), with the
``openai`` SDK against agent A's server and key.

One step (:func:`batch_submit_step`) does one thing and says what:

- with batches in flight it polls each once (``GET /v1/batches/{id}``); one that ended
  (completed, failed, expired, cancelled) is downloaded (``GET /v1/files/{id}/content``: its
  output file and error file) and imported (:func:`batch_submission_import`): each reply is
  stored once, a failed line's request is due again, the sent requests that got no reply
  (a failed batch's, an expired batch's unfinished ones) are due again without counting as a
  failure, and the debates that were answered move on;
- with nothing in flight it advances the job and sends every due request: the input file
  (at most :data:`MAX_REQUESTS` lines and :data:`MAX_BYTES` bytes; more files when more are
  due) is uploaded (``POST /v1/files``, purpose ``batch``) and the batch created
  (``POST /v1/batches``, endpoint ``/v1/chat/completions``, window ``24h``);
- with nothing in flight and nothing due the job has ended (or waits for files sent by hand
  with ``export``).

:func:`batch_submit_wait` repeats steps until the job is no longer running, sleeping
``poll_seconds`` while batches are in flight.

Restarts: every batch is a :class:`~debates.models.BatchSubmission` row, created before its
requests are exported, so a new process polls the stored batch instead of exporting again.
Until the batch is created its requests carry the row's provisional ref; once created, its
id (in the transaction that stores the id). A row left ``exporting`` for
:data:`STALE_SECONDS` (a process stopped between export and creation) is settled by the next
step: the batch created from its uploaded file is adopted when the server lists one (the
process stopped after creating it), else its requests are due again. A batch is imported
in one transaction with its ``imported`` flag, so exactly once. One submitter per job at a
time: a second one waits for a fresh ``exporting`` row instead of sending its requests.
"""

from __future__ import annotations

import io
import json
import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta

import openai
from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from openai.types import Batch

from debates.api_keys import ApiKeyError, api_keys_decrypt
from debates.llm.config import DEFAULT_API_KEY_ENV, DEFAULT_TIMEOUT_S
from debates.llm.policy import DEFAULT_ENDPOINT
from debates.models import BatchRequest, BatchSubmission, DebateJob
from debates.services.batch import (
    ImportReport,
    batch_export,
    batch_import,
    batch_job_check,
    batch_requests_unsent,
)
from debates.services.common import DebateJobError
from debates.services.leases import job_finish_if_done

log = logging.getLogger(__name__)

MAX_REQUESTS = 50_000  # OpenAI: at most 50,000 requests per batch input file
MAX_BYTES = 190 * 1024 * 1024  # OpenAI: at most 200 MB per input file; a margin kept
STALE_SECONDS = 600  # an "exporting" row untouched this long lost its process
UPLOAD_TIMEOUT_S = 900.0  # a 190 MB upload outlasts an agent's per-call timeout
# Polls and downloads are safe to repeat, so the SDK may retry them; uploads and batch
# creation are not (a retried creation could start a second, billed batch): no retries.
READ_RETRIES = 2
MAX_API_ERRORS = 10  # transient API errors in a row that --wait rides out
ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
# Error-file codes of requests the batch never ran (openai-client-base's
# BatchRequestOutputError, from OpenAI's spec): due again, not a failure of the request.
NOT_RUN = frozenset({"batch_expired", "batch_cancelled"})
TRANSIENT = (
    openai.APIConnectionError,  # includes APITimeoutError
    openai.RateLimitError,
    openai.InternalServerError,
)
_NO_KEY = "no-key"  # a local server ignores the key, but the SDK insists on one


@dataclass(frozen=True, slots=True)
class StepResult:
    """What one step did: ``action`` is "submitted", "polled" (batches still in flight),
    "imported", "busy" (another process is exporting), "idle" (running, nothing to send or
    poll) or "ended" (the job is not running); ``message`` says it in a sentence."""

    action: str
    message: str


def batch_api_client(*, job: DebateJob) -> openai.OpenAI:
    """The SDK client of agent A's server: its ``base_url`` and timeout, the key typed in the
    job form for agent A, else the environment variable the config names (the SDK's own
    retries off, as in :class:`~debates.llm.openai_backend.OpenAIClient`). Raises
    DebateJobError when the agents are not openai ones of one server, key and model (a batch
    holds one model) or the typed key cannot be decrypted."""
    a, b = job.agents
    if a.backend != "openai" or b.backend != "openai":
        raise DebateJobError(f"job {job.pk}: batch mode needs the openai backend")
    if (a.base_url, a.api_key_env, a.model) != (b.base_url, b.api_key_env, b.model):
        raise DebateJobError(
            f"job {job.pk}: submit sends each round as one batch to one server and model, but "
            "agents A and B differ; use debate_batch export/import"
        )
    try:
        typed = api_keys_decrypt(token=job.api_keys_encrypted).get("A")
    except ApiKeyError as exc:
        raise DebateJobError(str(exc)) from None
    key = typed or os.environ.get(a.api_key_env or DEFAULT_API_KEY_ENV) or _NO_KEY
    # Named, never the SDK's OPENAI_BASE_URL: the endpoint the allow-list checked is the one
    # the batch goes to.
    return openai.OpenAI(
        base_url=a.base_url or DEFAULT_ENDPOINT,
        api_key=key,
        timeout=a.timeout or DEFAULT_TIMEOUT_S,
        max_retries=0,
    )


def batch_submit_step(*, job: DebateJob, client: openai.OpenAI | None = None) -> str:
    """One step of ``debate_batch JOB submit`` (see the module docstring); returns what it did
    in a sentence. ``client`` defaults to :func:`batch_api_client`. Raises DebateJobError for
    a job that cannot be submitted, :class:`~debates.batch.BatchFileError` for an output file
    that cannot be read (nothing of it imported), and the SDK's ``openai.APIError`` when the
    server refuses or cannot be reached."""
    return _step(job, client).message


def batch_submit_wait(
    *,
    job: DebateJob,
    poll_seconds: float,
    sleep: Callable[[float], None] = time.sleep,
    client: openai.OpenAI | None = None,
    on_step: Callable[[str], object] | None = None,
) -> list[str]:
    """Steps until the job is no longer running (or nothing is left to send or poll), sleeping
    ``poll_seconds`` (seconds) after a submission and while batches are in flight; an import
    is followed by the next step at once. Up to :data:`MAX_API_ERRORS` transient API errors
    in a row (connection, 429, 5xx) are waited out. ``on_step`` gets each step's sentence as
    it happens; all of them are returned. Raises as :func:`batch_submit_step`."""
    if client is None and job.batch:
        client = batch_api_client(job=job)  # one connection pool for every step
    messages: list[str] = []
    errors = 0
    while True:
        try:
            result = _step(job, client)
        except TRANSIENT as exc:
            errors += 1
            if errors > MAX_API_ERRORS:
                raise
            result = StepResult("polled", f"the batch API did not answer ({exc}); trying again")
        else:
            errors = 0
        messages.append(result.message)
        if on_step is not None:
            on_step(result.message)
        if result.action in ("ended", "idle"):
            return messages
        if result.action != "imported":
            sleep(poll_seconds)


def _step(job: DebateJob, client: openai.OpenAI | None) -> StepResult:
    job.refresh_from_db()
    open_rows = list(_open(job))
    if job.status != DebateJob.Status.RUNNING:
        return _not_running(job, client, open_rows)
    batch_job_check(job=job)
    client = client or batch_api_client(job=job)
    notes = [_provisional_settle(job, client, row) for row in open_rows if not row.batch_id]
    open_rows = list(_open(job))
    busy = [row for row in open_rows if not row.batch_id]
    if busy:
        result = StepResult(
            "busy",
            f"submission {busy[0].pk} is being exported by another process (since "
            f"{busy[0].updated:%Y-%m-%d %H:%M:%S}); waiting for it",
        )
    elif open_rows:
        result = _poll(job, client, open_rows)
    else:
        result = _submit(job, client)
    notes = [note for note in notes if note]
    return StepResult(result.action, "; ".join([*notes, result.message])) if notes else result


def _open(job: DebateJob) -> Iterable[BatchSubmission]:
    """The job's submissions not settled yet (in flight, ended but not imported, exporting)."""
    return (
        BatchSubmission.objects.filter(job=job, imported=False)
        .exclude(status=BatchSubmission.Status.ABANDONED)
        .order_by("pk")
    )


def _not_running(
    job: DebateJob, client: openai.OpenAI | None, open_rows: list[BatchSubmission]
) -> StepResult:
    """A job that is not running is not advanced: a cancelled one's batches are cancelled (they
    would be billed for nothing), a paused one's stay in flight until it is resumed."""
    flying = [row for row in open_rows if row.batch_id and row.status not in ENDED]
    if job.status == DebateJob.Status.CANCELLED and flying:
        client = client or batch_api_client(job=job)
        for row in flying:
            try:
                _status_store(row, client.batches.cancel(row.batch_id))
            except openai.APIStatusError as exc:  # e.g. it ended meanwhile
                log.warning("batch %s not cancelled: %s", row.batch_id, exc)
        # Nothing of a cancelled job is imported any more.
        rows = BatchSubmission.objects.filter(pk__in=[r.pk for r in flying])
        rows.filter(ended__isnull=True).update(ended=timezone.now())
        rows.update(imported=True)
        ids = ", ".join(row.batch_id for row in flying)
        return StepResult("ended", f"job {job.pk} is cancelled: batch {ids} cancelled")
    if flying:
        return StepResult(
            "ended",
            f"job {job.pk} is {job.status}: {len(flying)} batch(es) stay in flight, imported "
            "by a submit once it runs again",
        )
    return StepResult("ended", f"job {job.pk} is {job.status}; nothing to submit")


def _provisional_settle(job: DebateJob, client: openai.OpenAI, row: BatchSubmission) -> str:
    """Settle a submission whose batch was not created, if its process is gone (untouched for
    :data:`STALE_SECONDS`): adopt the batch the server made from its uploaded file, else put
    its requests back to due. Returns what it did ("" when the row is still fresh)."""
    if row.updated > timezone.now() - timedelta(seconds=STALE_SECONDS):
        return ""
    return _provisional_resolve(job, client, row)


def _provisional_resolve(job: DebateJob, client: openai.OpenAI, row: BatchSubmission) -> str:
    if row.input_file_id:
        page = client.with_options(max_retries=READ_RETRIES).batches.list(limit=100)
        for batch in page.data:
            if batch.input_file_id == row.input_file_id:
                _created(job, row, batch)
                return f"adopted batch {batch.id}, created before the last process stopped"
    with transaction.atomic():
        returned = batch_requests_unsent(job=job, batch_ref=row.provisional_ref)
        row.status, row.ended, row.imported = BatchSubmission.Status.ABANDONED, timezone.now(), True
        row.returned = returned
        row.save(update_fields=["status", "ended", "imported", "returned", "updated"])
    return f"submission {row.pk} was never created: its {returned:,} request(s) are due again"


def _created(job: DebateJob, row: BatchSubmission, batch: Batch) -> None:
    """Store the created batch's id on the row and on its requests (one transaction)."""
    with transaction.atomic():
        BatchRequest.objects.filter(job=job, batch_ref=row.provisional_ref).update(
            batch_ref=batch.id
        )
        row.batch_id = batch.id
        _status_store(row, batch, "batch_id")


def _status_store(row: BatchSubmission, batch: Batch, *fields: str) -> None:
    """Store what the API says of the batch: status, file ids, the end, a failed one's errors
    (and ``fields`` of the row set by the caller). Only these fields are written: a row
    object loaded before another process imported the batch must not undo its ``imported``."""
    row.status = batch.status[:20]
    row.output_file_id = batch.output_file_id or ""
    row.error_file_id = batch.error_file_id or ""
    if batch.status in ENDED and row.ended is None:
        row.ended = timezone.now()
    if batch.errors is not None and batch.errors.data:
        row.detail = "; ".join(
            f"line {e.line}: {e.code}: {e.message}" if e.line else f"{e.code}: {e.message}"
            for e in batch.errors.data
        )[:2000]
    stored = ["status", "output_file_id", "error_file_id", "ended", "detail", "updated"]
    row.save(update_fields=[*stored, *fields])


def _submit(job: DebateJob, client: openai.OpenAI) -> StepResult:
    """Send every due request, in as many batches as the file limits need."""
    sent: list[BatchSubmission] = []
    while True:
        row = BatchSubmission.objects.create(job=job)
        out = io.StringIO()
        try:
            count = batch_export(
                job=job,
                out=out,
                batch_ref=row.provisional_ref,
                limit=MAX_REQUESTS,
                max_bytes=MAX_BYTES,
            )
        except BaseException:
            row.delete()  # nothing was marked sent: it is batch_export's last statement
            raise
        if not count:
            row.delete()
            break
        row.request_count = count
        row.save(update_fields=["request_count", "updated"])
        try:
            _upload_and_create(job, client, row, out.getvalue().encode("utf-8"))
        except Exception:
            _settle_after_error(job, client, row)
            raise
        sent.append(row)
    if not sent:
        return _idle(job)
    said = ", ".join(f"{row.batch_id} ({row.request_count:,} requests)" for row in sent)
    return StepResult("submitted", f"submitted batch {said}")


def _upload_and_create(
    job: DebateJob, client: openai.OpenAI, row: BatchSubmission, data: bytes
) -> None:
    name = f"dream-job{job.pk}-submission{row.pk}.jsonl"
    uploaded = client.files.create(file=(name, data), purpose="batch", timeout=UPLOAD_TIMEOUT_S)
    row.input_file_id = uploaded.id
    row.save(update_fields=["input_file_id", "updated"])
    batch = client.batches.create(
        input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
    )
    _created(job, row, batch)


def _settle_after_error(job: DebateJob, client: openai.OpenAI, row: BatchSubmission) -> None:
    """This process failed to upload or create ``row``'s batch: settle the row now rather than
    after :data:`STALE_SECONDS` (adopting a batch the server did create despite the error).
    If even that fails, the row is left for a later step to settle."""
    try:
        log.warning("batch submission %s: %s", row.pk, _provisional_resolve(job, client, row))
    except Exception:
        log.exception("batch submission %s left exporting; a later step settles it", row.pk)


def _idle(job: DebateJob) -> StepResult:
    """Nothing due and nothing in flight: the job has ended, or waits for files sent by hand."""
    by_hand = BatchRequest.objects.filter(job=job, status=BatchRequest.Status.SENT).count()
    if by_hand:
        return StepResult(
            "idle",
            f"nothing due: {by_hand:,} request(s) were sent in files by `debate_batch {job.pk} "
            f"export`; import their output with `debate_batch {job.pk} import FILE`",
        )
    job_finish_if_done(job_id=job.pk)  # a debate given up at the last import ends no job
    job.refresh_from_db()
    return StepResult("ended", f"nothing due and nothing in flight: job {job.pk} is {job.status}")


def _poll(job: DebateJob, client: openai.OpenAI, rows: list[BatchSubmission]) -> StepResult:
    """Poll each batch once; import the ones that ended."""
    said: list[str] = []
    imported = False
    reader = client.with_options(max_retries=READ_RETRIES)
    for row in rows:
        if row.status not in ENDED:
            _status_store(row, reader.batches.retrieve(row.batch_id))
        if row.status in ENDED:
            said.append(batch_submission_import(job=job, submission=row, client=client))
            imported = True
        else:
            said.append(f"batch {row.batch_id}: {row.status}")
    return StepResult("imported" if imported else "polled", "; ".join(said))


def _file_lines(client: openai.OpenAI, file_id: str) -> list[str]:
    """An output or error file's lines; a line of a request the batch never ran (expired,
    cancelled) is blanked, so the import skips it and line numbers stay the file's."""
    text = client.with_options(max_retries=READ_RETRIES).files.content(file_id).read()
    lines = text.decode("utf-8", errors="replace").splitlines()  # the import names a bad line
    for number, line in enumerate(lines):
        try:
            record = json.loads(line)
        except ValueError:
            continue  # the import names the line
        error = record.get("error") if isinstance(record, dict) else None
        if isinstance(error, dict) and error.get("code") in NOT_RUN:
            lines[number] = ""
    return lines


def batch_submission_import(
    *, job: DebateJob, submission: BatchSubmission, client: openai.OpenAI
) -> str:
    """Import an ended batch once: download its output and error files, import them
    (:func:`~debates.services.batch.batch_import`), put its sent requests without a reply
    back to due (:func:`~debates.services.batch.batch_requests_unsent`) and set
    ``imported``, all in one transaction that locks the row (a second caller finds it
    imported and imports nothing). Returns what it did in a sentence. Raises
    :class:`~debates.batch.BatchFileError` for a file that cannot be read (nothing imported,
    the row stays unimported) and the SDK's errors for a failed download."""
    files = [
        (f"{submission.batch_id} {kind} file", _file_lines(client, file_id))
        for kind, file_id in (
            ("output", submission.output_file_id),
            ("error", submission.error_file_id),
        )
        if file_id
    ]
    with transaction.atomic():
        row = BatchSubmission.objects.select_for_update().get(pk=submission.pk)
        if row.imported:
            return f"batch {row.batch_id} was imported before"
        # An empty file from the API has nothing to import (a hand-made 0-byte file is
        # refused by batch_import, but this one is no mistake of the user's).
        reports = [batch_import(job=job, lines=lines, name=name) for name, lines in files if lines]
        row.replies = sum(report.answered for report in reports)
        row.returned = batch_requests_unsent(job=job, batch_ref=row.batch_id)
        row.imported = True
        row.save(update_fields=["replies", "returned", "imported", "updated"])
    submission.imported, submission.replies, submission.returned = True, row.replies, row.returned
    return _import_said(row, reports)


def _import_said(row: BatchSubmission, reports: list[ImportReport]) -> str:
    failed = sum(report.failed for report in reports)
    given_up = sum(report.given_up for report in reports)
    ended = sum(report.ended for report in reports)
    due = BatchRequest.objects.filter(job_id=row.job_id, status=BatchRequest.Status.DUE).count()
    return (
        f"batch {row.batch_id} {row.status}: {row.replies:,} replies stored, {failed:,} failed "
        f"line(s) ({given_up:,} given up), {row.returned:,} request(s) without a reply due "
        f"again; {ended:,} debate(s) ended; {due:,} request(s) due next"
    )


@dataclass(frozen=True, slots=True)
class BatchOverview:
    """A batch job's state for its page: the latest ``submissions`` (newest first), its
    requests counted by status (``requests``: due, sent, answered, failed) and how many
    batches are in flight."""

    submissions: list[BatchSubmission]
    requests: dict[str, int]
    in_flight: int


def batch_job_overview(*, job: DebateJob, shown: int = 10) -> BatchOverview:
    """The :class:`BatchOverview` of ``job``, its ``shown`` latest submissions."""
    counts = dict(
        BatchRequest.objects.filter(job=job)
        .values_list("status")
        .annotate(n=Count("pk"))
        .values_list("status", "n")
    )
    return BatchOverview(
        submissions=list(BatchSubmission.objects.filter(job=job).order_by("-pk")[:shown]),
        requests={status: counts.get(status, 0) for status in BatchRequest.Status.values},
        in_flight=BatchSubmission.objects.filter(job=job, imported=False)
        .exclude(status=BatchSubmission.Status.ABANDONED)
        .count(),
    )
