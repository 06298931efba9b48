"""What the run of a claimed debate reads once: the pair's text, the job's settings and how
many turns are stored, in one statement (:func:`claimed_debate_load`), on PostgreSQL the same
statement as the claim itself (:func:`debate_claim_load`).

Why one written-out statement and not the ORM: the debate with its job, pair, query and
document as model instances, then a second query for its turns, cost ~2 ms of CPU per
debate at 64 requests in flight (``bench/llm_throughput_bench.py --profile``), more than
everything else the run does around its ~3 LLM calls. The job's settings (engine config,
agent configs) are parsed once per process and distinct settings, keyed by the stored
values themselves, so a changed row is parsed again: the database stays the source of
truth. :data:`LOAD_SQL` is the same text on PostgreSQL and SQLite; :data:`CLAIM_LOAD_SQL`,
the claim and the read in one (one lane trip and one statement less per debate), is
PostgreSQL's.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import connection

from corpora.models import Document, Pair, Query
from debates.engine import DebateConfig, PairText
from debates.llm.config import AgentConfig
from debates.models import Debate, DebateJob, Turn
from debates.services.common import lease_seconds, with_connection_retry
from debates.services.leases import Lease, LeaseSQL, lease_claim, lease_claim_params

#: The job columns that make a debate's engine config: DebateConfig's fields, by name.
CONFIG_COLUMNS = tuple(field.name for field in dataclasses.fields(DebateConfig))

_DEBATE, _JOB, _TURN, _PAIR, _QUERY, _DOCUMENT = (
    connection.ops.quote_name(model._meta.db_table)
    for model in (Debate, DebateJob, Turn, Pair, Query, Document)
)

# What a run reads of debate ``d`` (a row with its id, job_id and pair_id): the job's id and
# key token, the query's id, text and answers, the document's id, title and text, the agents'
# configs, the original grade a check-judged job compares the consensus with (NULL for other
# jobs), where the job was launched, :data:`CONFIG_COLUMNS`, then the stored turns.
_COLUMNS = f"""
SELECT d.job_id, j.api_keys_encrypted, q.query_id, q.text, q.answers, doc.doc_id, doc.title,
    doc.text, j.agent_a, j.agent_b, CASE WHEN j.check_judged THEN p.original_relevance END,
    j.launched_from, {", ".join(f"j.{column}" for column in CONFIG_COLUMNS)},
    (SELECT COUNT(*) FROM {_TURN} t WHERE t.debate_id = d.id)
"""  # noqa: S608
_JOINS = f"""
JOIN {_JOB} j ON j.id = d.job_id
JOIN {_PAIR} p ON p.id = d.pair_id
JOIN {_QUERY} q ON q.id = p.query_id
JOIN {_DOCUMENT} doc ON doc.id = p.document_id
"""

#: One row (see ``_COLUMNS``) for debate ``%(debate_id)s``, claimed or not.
LOAD_SQL = f"{_COLUMNS} FROM {_DEBATE} d {_JOINS} WHERE d.id = %(debate_id)s"  # noqa: S608

#: PostgreSQL only: the claim (:data:`debates.services.leases.LeaseSQL.CLAIM`, its parameters)
#: and :data:`LOAD_SQL`'s row of the debate it claimed, in one statement (a data-modifying
#: WITH, which SQLite does not have); no row when nothing was claimed.
CLAIM_LOAD_SQL = f"""
WITH d AS ({LeaseSQL.CLAIM} RETURNING id, job_id, pair_id)
{_COLUMNS} FROM d {_JOINS}
"""  # noqa: S608


@dataclass(frozen=True, slots=True)
class ClaimedDebate:
    """A claimed debate as its run needs it: ids, what the agents see of the pair, the
    job's stored agent configs (JSON text) and engine settings (:data:`CONFIG_COLUMNS`), the
    job's encrypted API keys (decrypted by the run, never kept here), and how many of its
    turns are stored. The settings are parsed by :meth:`engine_config` and
    :meth:`agent_configs`, which raise ValueError for settings this code cannot run.
    ``original_to_check`` is the pair's original grade when its job checks the judged pairs
    (None otherwise): compared with the consensus once the debate ended
    (:func:`debates.check_judged.check_judged_outcome`), never part of what the agents see.
    ``launched_from`` is the job's (``DebateJob.LaunchedFrom``): a job made in the browser or
    the API has its agents checked against the operator's settings before any call."""

    debate_id: int
    job_id: int
    pair: PairText
    agents_stored: tuple[str, str]
    config_stored: tuple[Any, ...]
    api_keys_encrypted: str
    turns_stored: int
    original_to_check: int | None = None
    launched_from: str = DebateJob.LaunchedFrom.WEB

    def engine_config(self) -> DebateConfig:
        """The job's engine config (parsed once per process and distinct settings)."""
        return _engine_config(self.config_stored)

    def agent_configs(self) -> tuple[AgentConfig, AgentConfig]:
        """Agent A's and agent B's configs (parsed once per process and distinct configs)."""
        return _agent_config(self.agents_stored[0]), _agent_config(self.agents_stored[1])


# Parsed once per process and distinct stored values (the key is the values themselves, so
# a changed row is parsed again); an error is raised each time, never kept.
@functools.lru_cache(maxsize=256)
def _engine_config(values: tuple[Any, ...]) -> DebateConfig:
    return DebateConfig(**dict(zip(CONFIG_COLUMNS, values, strict=True)))


@functools.lru_cache(maxsize=256)
def _agent_config(text: str) -> AgentConfig:
    return AgentConfig.stored(json.loads(text))


def _as_text(value: Any) -> str:
    # A JSON column as the backend returns it: text (Django reads PostgreSQL's jsonb as text
    # for its JSONField; SQLite stores text), or already parsed by another driver.
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def claimed_debate_load(*, debate_id: int) -> ClaimedDebate:
    """Debate ``debate_id`` as its run needs it (see :class:`ClaimedDebate`), in one
    statement. Raises ``Debate.DoesNotExist`` if there is no such debate."""
    with connection.cursor() as cursor:
        cursor.execute(LOAD_SQL, {"debate_id": debate_id})
        row = cursor.fetchone()
    if row is None:
        raise Debate.DoesNotExist(f"no debate {debate_id}")
    return _claimed(debate_id, row)


def debate_claim_load(
    *, debate_id: int, seconds: float | None = None
) -> tuple[Lease, ClaimedDebate] | None:
    """Claim debate ``debate_id`` (:func:`~debates.services.leases.lease_claim`: pending ->
    running under a new lease of ``seconds``, only while its job runs and is not in batch
    mode) and read it as its run needs it (:func:`claimed_debate_load`); None, nothing read,
    when it could not be claimed (running elsewhere, ended, its job not running, or no such
    debate). On PostgreSQL both are one statement (:data:`CLAIM_LOAD_SQL`); elsewhere (the
    demo's SQLite) the claim, then the read. A connection the server closed while this worker
    waited is reopened, as for the claim alone."""
    if connection.vendor != "postgresql":
        lease = lease_claim(debate_id=debate_id, seconds=seconds)
        if lease is None:
            return None
        return lease, claimed_debate_load(debate_id=debate_id)
    seconds = lease_seconds() if seconds is None else seconds
    token = uuid.uuid4().hex

    def claim() -> Any:
        with connection.cursor() as cursor:
            cursor.execute(CLAIM_LOAD_SQL, lease_claim_params(debate_id, token, seconds))
            return cursor.fetchone()

    row = with_connection_retry(claim)
    if row is None:
        return None
    return Lease(debate_id, token, seconds), _claimed(debate_id, row)


def _claimed(debate_id: int, row: tuple[Any, ...]) -> ClaimedDebate:
    """The :class:`ClaimedDebate` of debate ``debate_id`` read as one row of ``_COLUMNS``."""
    job_id, keys, query_id, query, answers, doc_id, title, text, agent_a, agent_b = row[:10]
    answers = json.loads(answers) if isinstance(answers, str) else answers
    pair = PairText(
        query_id=query_id,
        query=query,
        doc_id=doc_id,
        title=title,
        chunk=text,
        answers=tuple(str(a) for a in (answers or ())),
    )
    return ClaimedDebate(
        debate_id=debate_id,
        job_id=job_id,
        pair=pair,
        agents_stored=(_as_text(agent_a), _as_text(agent_b)),
        config_stored=tuple(row[12:-1]),
        api_keys_encrypted=keys,
        turns_stored=int(row[-1]),
        original_to_check=row[10],
        launched_from=row[11],
    )
