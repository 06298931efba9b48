"""What the run of a claimed debate reads once: the pair's text, the job's settings and how
many turns are stored, in one statement (:func:`claimed_debate_load`).

Why one written-out statement and not the ORM: the debate with its job, pair, query and
document as model instances, then a second query for its turns, cost ~2 ms of CPU per
debate at 64 requests in flight (``bench/llm_throughput_bench.py --profile``), more than
everything else the run does around its ~3 LLM calls. The job's settings (engine config,
agent configs) are parsed once per process and distinct settings, keyed by the stored
values themselves, so a changed row is parsed again: the database stays the source of
truth. The statement is the same text on PostgreSQL and SQLite.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass
from typing import Any

from django.db import connection

from corpora.models import Document, Pair, Query
from debates.engine import DebateConfig, PairText
from debates.llm.config import AgentConfig
from debates.models import Debate, DebateJob, Turn

#: The job columns that make a debate's engine config: DebateConfig's fields, by name.
CONFIG_COLUMNS = tuple(field.name for field in dataclasses.fields(DebateConfig))

_DEBATE, _JOB, _TURN, _PAIR, _QUERY, _DOCUMENT = (
    connection.ops.quote_name(model._meta.db_table)
    for model in (Debate, DebateJob, Turn, Pair, Query, Document)
)

#: One row: the job's id and key token, the query's id, text and answers, the document's
#: id, title and text, the agents' configs, the original grade a check-judged job compares
#: the consensus with (NULL for other jobs), :data:`CONFIG_COLUMNS`, then the stored turns.
LOAD_SQL = f"""
SELECT d.job_id, j.api_keys_encrypted, q.query_id, q.text, q.answers, doc.doc_id, doc.title,
    doc.text, j.agent_a, j.agent_b, CASE WHEN j.check_judged THEN p.original_relevance END,
    {", ".join(f"j.{column}" for column in CONFIG_COLUMNS)},
    (SELECT COUNT(*) FROM {_TURN} t WHERE t.debate_id = d.id)
FROM {_DEBATE} d
JOIN {_JOB} j ON j.id = d.job_id
JOIN {_PAIR} p ON p.id = d.pair_id
JOIN {_QUERY} q ON q.id = p.query_id
JOIN {_DOCUMENT} doc ON doc.id = p.document_id
WHERE d.id = %(debate_id)s
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
    (:func:`debates.check_judged.check_judged_outcome`), never part of what the agents see."""

    debate_id: int
    job_id: int
    pair: PairText
    agents_stored: tuple[str, str]
    config_stored: tuple[Any, ...]
    api_keys_encrypted: str
    turns_stored: int
    original_to_check: int | None = None

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
        config_stored=tuple(row[11:-1]),
        api_keys_encrypted=keys,
        turns_stored=int(row[-1]),
        original_to_check=row[10],
    )
