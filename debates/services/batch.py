"""Batch mode: a job's debates advance round by round through batch files instead of direct
calls (OpenAI's Batch API at half the price, or ``vllm run-batch`` offline).

- :func:`batch_export` advances every open debate of the job as far as the replies in hand
  allow (:mod:`debates.batch`: the engine replays each debate and stops at the first request
  without a reply), records the requests that are due, and writes them as a batch input
  file; they are then "sent" and never written again (``again=True`` writes the sent ones
  that have no reply yet, e.g. after a lost file).
- :func:`batch_import` reads an output file whole (a line that is not JSON, names a
  request this job never made or never exported, or answers a custom_id differently from an
  earlier line; or a 0-byte file: an error naming the file and line, and nothing is imported),
  stores each reply once (a line seen before is ignored), puts a failed line's request (an
  error, a non-200 status, or a 200 without a completion, ``choices: []``) back to due, and
  advances the debates it answered: their turns are stored and counted, and
  consensus or escalation is decided by the engine exactly as on the direct path.

Batch jobs need ``openai`` agents: their request bodies are what the direct client would
send (:meth:`debates.llm.openai_backend.OpenAIClient.request_body`). The same files go to an
OpenAI-compatible Batch API with ``debate_batch JOB submit`` (:mod:`debates.services.batch_api`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from django.db import IntegrityError, transaction
from django.db.models import F, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from debates import engine
from debates.batch import (
    BatchClient,
    BatchFileError,
    BatchPending,
    OutputLine,
    batch_pair_runner,
    output_lines,
    request_line,
)
from debates.check_judged import check_judged_outcome
from debates.engine import DebateOutcome, TurnRecord
from debates.llm.config import AgentConfig
from debates.llm.logprobs import logprobs_refused
from debates.llm.openai_backend import OpenAIClient, refusal_adaptation
from debates.llm.registry import client_from_config
from debates.models import BatchRequest, Debate, DebateJob, Turn
from debates.services.common import DebateJobError
from debates.services.leases import job_finish_if_done
from debates.services.run import job_debate_config, pair_text_build, turn_record_build
from debates.signals import debate_ended

log = logging.getLogger(__name__)

# A request whose line failed this often is given up: its debate fails (re-runnable).
MAX_LINE_FAILURES = 3


def _templates(job: DebateJob) -> tuple[OpenAIClient, OpenAIClient]:
    """The direct path's clients of the job's agents, used to build request bodies and read
    replies (never to call). Raises DebateJobError for an agent that is not openai."""
    out = []
    for agent, config in zip(("A", "B"), job.agents, strict=True):
        if config.backend != "openai":
            raise DebateJobError(f"agent {agent}: batch mode needs the openai backend")
        # No rate limit: a batch client never calls.
        plain = AgentConfig.load({**config.dump(), "rpm": None}, check_file=False)
        client = client_from_config(plain)
        assert isinstance(client, OpenAIClient)
        out.append(client)
    return out[0], out[1]


def _turn_store(debate: Debate, record: TurnRecord, prompt_version: str) -> None:
    """Store a turn the replay completed, with its cost, once (a replay meets it again)."""
    if Turn.objects.filter(debate=debate, round=record.round, agent=record.agent).exists():
        return
    try:
        with transaction.atomic():
            Turn.objects.create(
                debate=debate,
                round=record.round,
                agent=record.agent,
                stance=record.stance,
                label=record.label,
                argument=record.argument,
                evidence=list(record.evidence),
                raw=record.raw,
                raw_attempts=list(record.raw_attempts),
                parse_error=record.parse_error or "",
                model=record.model[:200],
                attempts=record.attempts,
                prompt_tokens=record.prompt_tokens,
                completion_tokens=record.completion_tokens,
                latency_ms=record.latency_ms,
                chunk_truncated=record.chunk_truncated,
                finish_reason=(record.finish_reason or "")[:20],
                prompt_version=prompt_version,
                reasoning=record.reasoning,
                reasoning_tokens=record.reasoning_tokens,
                cached_tokens=record.cached_tokens,
                cut_off=record.cut_off,
                attempt_log=list(record.attempt_log),
                label_probability=record.label_probability,
            )
            Debate.objects.filter(pk=debate.pk).update(
                calls=F("calls") + record.attempts,
                prompt_tokens=F("prompt_tokens") + record.prompt_tokens,
                completion_tokens=F("completion_tokens") + record.completion_tokens,
                reasoning_tokens=F("reasoning_tokens") + record.reasoning_tokens,
                cached_tokens=F("cached_tokens") + record.cached_tokens,
                latency_ms=F("latency_ms") + record.latency_ms,
            )
            if record.chunk_truncated:
                Debate.objects.filter(pk=debate.pk).update(chunk_truncated=True)
    except IntegrityError:  # stored meanwhile by another replay
        return


def _debate_end(debate: Debate, outcome: DebateOutcome) -> None:
    ended = Debate.objects.filter(pk=debate.pk, status=Debate.Status.PENDING).update(
        status=outcome.status,
        final_label=outcome.final_label,
        consensus_round=outcome.consensus_round,
        escalation_reason=outcome.escalation_reason or "",
        finished=timezone.now(),
        last_error="",
    )
    if ended:
        job_finish_if_done(job_id=debate.job_id)
        debate_ended.send_robust(
            sender=Debate, debate_id=debate.pk, job_id=debate.job_id, status=outcome.status
        )


def _debate_advance(
    debate: Debate, job: DebateJob, templates: tuple[OpenAIClient, OpenAIClient]
) -> list[tuple[str, dict[str, Any]]]:
    """Replay ``debate`` with the replies in hand; store the turns it completes and, when it
    ends, its outcome. Returns the requests now due (empty when the debate ended)."""
    answers = {
        r.custom_id: r.response
        for r in debate.batch_requests.filter(status=BatchRequest.Status.ANSWERED)
        if r.response is not None
    }
    due: list[tuple[str, dict[str, Any]]] = []
    clients = [
        BatchClient(
            job=job.pk,
            debate=debate.pk,
            agent=agent,
            answers=answers,
            build=template.request_body,
            read=template.result_from_body,
            model=template.model,
            context_window=template.context_window,
            count_tokens=template.count_tokens,
            due=due,
        )
        for agent, template in zip(("A", "B"), templates, strict=True)
    ]
    done = [turn_record_build(turn=t) for t in debate.turns.order_by("round", "agent")]
    try:
        outcome = engine.debate_pair(
            pair_text_build(pair=debate.pair),
            clients[0],
            clients[1],
            job_debate_config(job=job),
            done_turns=done,
            on_turn=lambda record: _turn_store(debate, record, job.prompt_version),
            pair_runner=batch_pair_runner,
        )
    except BatchPending:
        return due
    except Exception as exc:  # noqa: BLE001 (one bad debate must not stop the others)
        # The same fault would recur at every replay (a prompt that cannot fit, a reply body
        # that is no chat completion): the debate fails, re-runnable, and the rest go on.
        _debate_fail(debate, f"{type(exc).__name__}: {exc}")
        return []
    original = debate.pair.original_relevance if job.check_judged else None
    _debate_end(debate, check_judged_outcome(outcome, original=original))
    return []


def _debate_fail(debate: Debate, error: str) -> None:
    """Fail a batch job's debate for good (``debate_job_retry_failed`` gives it back) and
    finish its job if it was the last open one."""
    failed = Debate.objects.filter(pk=debate.pk, status=Debate.Status.PENDING).update(
        status=Debate.Status.FAILED, last_error=error[:2000], finished=timezone.now()
    )
    if failed:
        job_finish_if_done(job_id=debate.job_id)
        debate_ended.send_robust(
            sender=Debate, debate_id=debate.pk, job_id=debate.job_id, status=Debate.Status.FAILED
        )


def _due_record(job: DebateJob, debate: Debate, due: list[tuple[str, dict[str, Any]]]) -> int:
    """Record due requests not recorded yet; returns how many were new."""
    made = 0
    for cid, body in due:
        _, created = BatchRequest.objects.get_or_create(
            job=job, custom_id=cid, defaults={"debate": debate, "body": body}
        )
        made += created
    return made


def batch_job_check(*, job: DebateJob) -> tuple[OpenAIClient, OpenAIClient]:
    """The job's body builders; raises DebateJobError unless it is a running batch job of
    openai agents."""
    if not job.batch:
        raise DebateJobError(f"job {job.pk} is not a batch job (launch it with --batch)")
    if job.status != DebateJob.Status.RUNNING:
        raise DebateJobError(f"job {job.pk} is {job.status}; only a running job advances")
    return _templates(job)


def batch_advance(*, job: DebateJob, debates: Iterable[Debate] | None = None) -> int:
    """Advance the job's open debates (or ``debates``) as far as their replies allow and
    record the requests now due; returns how many requests are due in all."""
    templates = batch_job_check(job=job)
    if debates is None:
        waiting = BatchRequest.objects.filter(
            job=job, status__in=[BatchRequest.Status.DUE, BatchRequest.Status.SENT]
        ).values("debate_id")
        debates = (
            job.debates.filter(status=Debate.Status.PENDING)
            .exclude(pk__in=waiting)
            .select_related("pair__query", "pair__document")
        )
    for debate in (
        debates.select_related("pair__query", "pair__document")
        if hasattr(debates, "select_related")
        else debates
    ):
        _due_record(job, debate, _debate_advance(debate, job, templates))
    return BatchRequest.objects.filter(job=job, status=BatchRequest.Status.DUE).count()


def batch_export(
    *,
    job: DebateJob,
    out: IO[str],
    batch_ref: str,
    again: bool = False,
    limit: int | None = None,
    max_bytes: int | None = None,
) -> int:
    """Advance the job (:func:`batch_advance`), then write every due request as a batch
    input line to ``out`` (custom_id order) and mark it sent in ``batch_ref`` (a file name or
    a batch id); ``again`` also writes the sent requests that have no reply yet. At most
    ``limit`` lines and ``max_bytes`` bytes of UTF-8 are written (but always one line): the
    rest stays due for the next file. Returns the lines written (0: nothing is due, the job
    may have finished)."""
    batch_advance(job=job)
    statuses = [BatchRequest.Status.DUE] + ([BatchRequest.Status.SENT] if again else [])
    requests = BatchRequest.objects.filter(job=job, status__in=statuses).order_by("custom_id")
    written: list[int] = []
    size = 0
    for request in requests.iterator():
        line = request_line(custom_id=request.custom_id, body=request.body) + "\n"
        size += len(line.encode("utf-8"))
        full = (limit is not None and len(written) >= limit) or (
            max_bytes is not None and size > max_bytes
        )
        if written and full:
            break
        out.write(line)
        written.append(request.pk)
    BatchRequest.objects.filter(pk__in=written).update(
        status=BatchRequest.Status.SENT,
        batch_ref=batch_ref[:200],
        sent=Coalesce(F("sent"), Value(timezone.now())),  # the first export is kept
    )
    return len(written)


def batch_requests_unsent(*, job: DebateJob, batch_ref: str) -> int:
    """Put the requests of ``job`` sent in ``batch_ref`` that got no reply (still ``sent``)
    back to due, for the next batch: those of a batch that failed, expired or was cancelled,
    or that was never created. Not a failure of the request (``failures`` is unchanged).
    Returns how many."""
    return BatchRequest.objects.filter(
        job=job, batch_ref=batch_ref, status=BatchRequest.Status.SENT
    ).update(status=BatchRequest.Status.DUE)


@dataclass
class ImportReport:
    """What :func:`batch_import` did: replies stored, lines ignored (seen before), failed
    lines (their requests due again, or given up), debates that ended, requests due next."""

    answered: int = 0
    ignored: int = 0
    failed: int = 0
    given_up: int = 0
    ended: int = 0
    due: int = 0
    errors: list[str] = field(default_factory=list)


def batch_import(*, job: DebateJob, lines: Iterable[str], name: str) -> ImportReport:
    """Import an output file (``lines``, named ``name`` in messages) of ``job``: see the
    module docstring. Raises :class:`~debates.batch.BatchFileError` naming ``name:line``
    (nothing imported) for an unreadable line, a custom_id this job never asked for or never
    exported, two different answers under one custom_id, or a 0-byte file; and
    DebateJobError for a job that is not a running batch job."""
    templates = batch_job_check(job=job)
    read = output_lines(lines, name=name)
    _lines_check(job, read, name)
    report = ImportReport()
    touched: set[int] = set()
    with transaction.atomic():
        for line in read:
            touched |= _line_apply(job, line, report)
    debates = Debate.objects.filter(pk__in=touched, status=Debate.Status.PENDING)
    before = job.debates.exclude(status=Debate.Status.PENDING).count()
    for debate in debates.select_related("pair__query", "pair__document"):
        _due_record(job, debate, _debate_advance(debate, job, templates))
    report.ended = job.debates.exclude(status=Debate.Status.PENDING).count() - before
    report.due = BatchRequest.objects.filter(job=job, status=BatchRequest.Status.DUE).count()
    return report


def _lines_check(job: DebateJob, read: list[OutputLine], name: str) -> None:
    """Refuse the file (BatchFileError naming ``name:line``) when a line answers a request
    this job never asked for, or one it made due but never exported: no prompt of it reached
    a model, so a reply to it can only have been made by hand."""
    sent = dict(
        BatchRequest.objects.filter(job=job, custom_id__in={r.custom_id for r in read}).values_list(
            "custom_id", "sent"
        )
    )
    for line in read:
        if line.custom_id not in sent:
            raise BatchFileError(
                f"{name}:{line.line}: custom_id {line.custom_id!r} was not asked for by job "
                f"{job.pk}"
            )
        if sent[line.custom_id] is None:
            raise BatchFileError(
                f"{name}:{line.line}: custom_id {line.custom_id!r} was never exported (job "
                f"{job.pk} has it due, in no batch file or batch yet): only a request that was "
                "sent can be answered"
            )


def _line_apply(job: DebateJob, line: OutputLine, report: ImportReport) -> set[int]:
    """Apply one output line; returns the debate ids it may have moved on."""
    request = BatchRequest.objects.select_for_update().get(job=job, custom_id=line.custom_id)
    if request.status == BatchRequest.Status.ANSWERED:
        report.ignored += 1
        return set()
    if line.body is not None:
        request.status, request.response = BatchRequest.Status.ANSWERED, line.body
        request.answered, request.error = timezone.now(), ""
        request.save(update_fields=["status", "response", "answered", "error"])
        report.answered += 1
        return {request.debate_id}
    switch, omit = refusal_adaptation(line.error, request.body)
    # A server refusing logprobs is asked again without them, as the direct client does.
    unlogged = logprobs_refused(status=400, message=line.error, sent=request.body)
    if switch or omit or unlogged:
        # A reasoning model refused max_tokens or the temperature: the request goes again as
        # the direct client would send it after the same refusal (not counted as a failure).
        body = dict(request.body)
        if switch:
            body["max_completion_tokens"] = body.pop("max_tokens")
        if omit:
            body.pop("temperature", None)
        if unlogged:
            body.pop("logprobs", None)
            body.pop("top_logprobs", None)
        request.body, request.status, request.error = body, BatchRequest.Status.DUE, line.error
        request.save(update_fields=["body", "status", "error"])
        report.failed += 1
        return set()
    request.failures += 1
    request.error = line.error[:2000]
    report.failed += 1
    if request.failures >= MAX_LINE_FAILURES:
        request.status = BatchRequest.Status.FAILED
        error = f"batch request {request.custom_id} failed {request.failures} times: {line.error}"
        debate = Debate.objects.get(pk=request.debate_id)
        transaction.on_commit(lambda: _debate_fail(debate, error))
        report.given_up += 1
    else:
        request.status = BatchRequest.Status.DUE
    request.save(update_fields=["status", "failures", "error"])
    return set()
