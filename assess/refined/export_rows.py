"""The rows of each export kind, read from the database in canonical order and in batches
(:mod:`assess.refined.exports` writes them to files): labels with provenance, debate
transcripts and the disagreements of a refined set.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from django.db import connection
from django.db.models import Count, F, Q

from assess.models.overrides import HUMAN_SOURCES, overrides_consensus
from corpora.models import Document, Pool, Qrel, QrelSet, Query
from corpora.ordering import code_point
from debates.engine import max_tokens_cap_effective
from debates.llm.config import AgentConfig, model_shown
from debates.models import Debate, DebateJob, Turn
from debates.prices import Price, llm_prices

from ..models import Judgment, LabelProvenance, Refinement, ReviewItem
from ..models.simulated import SimulatedRow, qrel_set_simulated_rows
from . import debate_cost
from .corrections import correction_of
from .debate_cost import needs_turns
from .export_formats import label_source
from .labels import BEYOND_BUDGET

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

BATCH_SIZE = 5000


class ExportError(ValueError):
    """An export that cannot be made (wrong source for the kind, no refinement...)."""


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


# Columns of one labels row, as :func:`_label_rows` reads them (it appends two more, the
# debate's LLM money, :func:`_with_money`, and the row's simulated label or None,
# :func:`_row_simulated`; so row[28] is the inclusion, row[29] and row[30] the label
# probabilities of agent A's and B's final-round turns, row[31] the reuse note, row[32] and
# row[33] the query's and document's primary keys, row[34] the money, row[35] the
# simulated label).
_LABEL_SQL = """
SELECT q.query_id, d.doc_id, r.relevance, p.label, p.source, p.applied,
       p.original_relevance, p.consensus_label, p.consensus_round, p.job_id, p.debate_id,
       CAST(p.agent_models AS TEXT), p.prompt_version, CAST(p.annotators AS TEXT),
       p.adjudicator, CAST(p.decided_at AS TEXT),
       db.calls, db.prompt_tokens, db.completion_tokens,
       CASE WHEN p.source IN ('human', 'adjudicated') THEN COALESCE((
           SELECT SUM(COALESCE(j.active_seconds, j.seconds_on_task)) FROM {judgment} j
             JOIN {item} ri ON ri.id = j.item_id
            WHERE ri.debate_id = p.debate_id AND j.undone_at IS NULL), 0)
            WHEN p.source IS NOT NULL THEN 0 END,
       db.cached_tokens, db.reasoning_tokens, CAST(dj.agent_a AS TEXT),
       CAST(dj.agent_b AS TEXT), dj.max_tokens, dj.max_tokens_cap, dj.batch,
       CAST(p.judgments AS TEXT), p.inclusion,
       (SELECT t.label_probability FROM {turn} t WHERE t.debate_id = p.debate_id
           AND t.agent = 'A' ORDER BY t.round DESC LIMIT 1),
       (SELECT t.label_probability FROM {turn} t WHERE t.debate_id = p.debate_id
           AND t.agent = 'B' ORDER BY t.round DESC LIMIT 1),
       p.reused, r.query_id, r.document_id
FROM {qrel} r
JOIN {query} q ON q.id = r.query_id
JOIN {document} d ON d.id = r.document_id
LEFT JOIN (
    SELECT * FROM {provenance} WHERE qrel_set_id = %s AND query_id {members}
) p ON p.qrel_id = r.id
LEFT JOIN {debate} db ON db.id = p.debate_id
LEFT JOIN {job} dj ON dj.id = p.job_id
WHERE r.qrel_set_id = %s AND r.query_id {members}
ORDER BY q.query_id {collate}, d.doc_id {collate}
"""
# A batch holds whole queries, about this many rows (one bigger query is a batch of its own).
LABEL_BATCH_ROWS = 50_000
LABEL_BATCH_QUERIES = 500


def _label_batches(qrel_set: QrelSet) -> Iterator[list[int]]:
    """The set's query primary keys in query-id order (code point), in batches of whole
    queries of about :data:`LABEL_BATCH_ROWS` rows."""
    per_query = sorted(
        Qrel.objects.filter(qrel_set=qrel_set)
        .values_list("query__query_id", "query_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    batch: list[int] = []
    rows = 0
    for _, pk, n in per_query:
        if batch and (rows + n > LABEL_BATCH_ROWS or len(batch) >= LABEL_BATCH_QUERIES):
            yield batch
            batch, rows = [], 0
        batch.append(pk)
        rows += n
    if batch:
        yield batch


def _label_rows(qrel_set: QrelSet) -> Iterator[tuple]:
    """Raw labels rows (columns of ``_LABEL_SQL``) in canonical order.

    One sorted SQL query over a million joined rows costs PostgreSQL a large disk sort, and
    the ORM's per-row JSON and datetime conversions cost more than the export itself; so
    rows are read a batch of whole queries at a time (batches follow query-id order), each
    batch sorted by the database in code-point order, keeping memory bounded by the batch.
    Each row gets the LLM money of its debate appended (:func:`_with_money`), then its
    simulated label (:func:`assess.models.simulated.qrel_set_simulated_rows`, read once).
    """
    prices = llm_prices()
    simulated = qrel_set_simulated_rows(qrel_set=qrel_set)
    pairs: dict[tuple, AgentPrices] = {}  # agent prices per distinct (agent A, agent B) text
    tables = {
        "qrel": Qrel._meta.db_table,
        "query": Query._meta.db_table,
        "document": Document._meta.db_table,
        "provenance": LabelProvenance._meta.db_table,
        "debate": Debate._meta.db_table,
        "job": DebateJob._meta.db_table,
        "judgment": Judgment._meta.db_table,
        "item": ReviewItem._meta.db_table,
        "turn": Turn._meta.db_table,
    }
    with connection.cursor() as cursor:
        for batch in _label_batches(qrel_set):
            if connection.vendor == "postgresql":
                sql = _LABEL_SQL.format(members="= ANY(%s)", collate='COLLATE "C"', **tables)
                params: list[int | list[int]] = [qrel_set.pk, batch] * 2
            else:
                # SQLite's default BINARY collation compares UTF-8 bytes: code-point order.
                marks = ", ".join(["%s"] * len(batch))
                sql = _LABEL_SQL.format(members=f"IN ({marks})", collate="", **tables)
                params = [qrel_set.pk, *batch] * 2
            cursor.execute(sql, params)
            for row in _with_money(cursor.fetchall(), prices, pairs):
                yield (*row, simulated.get((row[32], row[33])))


AgentPrices = tuple[Price | None, Price | None]


def _with_money(
    rows: list[tuple], prices: dict[str, Price], pairs: dict[tuple, AgentPrices]
) -> list[tuple]:
    """``rows`` (columns of ``_LABEL_SQL``) each with one more column: the LLM money of the
    row's debate at the configured prices (batch prices for a batch-mode job), rounded to
    10 decimals; None without a debate or when a price is unknown
    (:mod:`assess.refined.debate_cost`, the rule of the cost pages). ``pairs`` caches the
    agents' prices per distinct pair of stored configs (a job's, repeated over its rows)."""
    priced: list[AgentPrices | None] = []
    for row in rows:
        agents = row[22:24]
        if row[10] is None or row[16] is None or agents[0] is None:
            priced.append(None)
            continue
        if agents not in pairs:
            pairs[agents] = debate_cost.agent_prices(agents[0], agents[1], prices)
        priced.append(pairs[agents])
    # Debates whose agents have different prices are priced per agent from their turns.
    turns = debate_cost.turn_tokens(
        row[10] for row, pair in zip(rows, priced, strict=True) if pair and needs_turns(pair)
    )
    out = []
    for row, pair in zip(rows, priced, strict=True):
        money = None
        if pair is not None:
            money = debate_cost.debate_money(
                prompt=row[17],
                completion=row[18],
                cached=row[20] or 0,
                pair=pair,
                batch=bool(row[26]),
                per_agent=turns.get(row[10]),
            )
        out.append((*row, None if money is None else round(money, 10)))
    return out


_encode = json.encoder.encode_basestring  # what json.dumps(ensure_ascii=False) uses


@functools.lru_cache(maxsize=4096)
def _canonical_json(text: str | None) -> str:
    # Model lists and annotator lists repeat across millions of rows: canonicalise each
    # distinct stored text once.
    if text is None:
        return "[]"
    return json.dumps(json.loads(text), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _utc_iso(value: str | datetime | None) -> str | None:
    """A stored timestamp as ISO 8601 in UTC (``2026-01-02T03:04:05+00:00``).

    Read as text (PostgreSQL ``2026-01-02 03:04:05+00``, SQLite ``2026-01-02 03:04:05``):
    parsing text is several times cheaper than the driver's timestamptz conversion, which
    dominated a million-row export. Naive values are UTC, as Django stores them.
    """
    if value is None:
        return None
    if isinstance(value, str):
        if len(value) >= 22 and value[10] == " " and value.endswith("+00"):
            # PostgreSQL's UTC text; isoformat() writes microseconds as 6 digits, or none.
            clock = value[11:-3]
            if "." in clock:
                whole, fraction = clock.split(".")
                clock = f"{whole}.{fraction:0<6}"
            return f"{value[:10]}T{clock}+00:00"
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat()


@functools.lru_cache(maxsize=4096)
def _judgments_json(text: str | None) -> str:
    """The ``human_judgments`` field: the live judgments behind a human label as stored at
    refinement, each ``{"annotator", "label", "at", "gold_answers", "gold_accuracy"}`` (the
    annotator's record on known-answer pairs then), canonical JSON; "[]" for none."""
    return _canonical_json(text) if text else "[]"


def _label_source(source: str | None, judgments: str | None) -> str:
    """Where a row's label came from (:func:`assess.refined.export_formats.label_source`):
    "original" for a row copied from the original qrels."""
    if source is None:
        return "original"
    labels = [j["label"] for j in json.loads(judgments)] if judgments else []
    return label_source(source, labels)


def _seconds(value) -> float | None:
    # Human seconds behind a label, to the millisecond (None for an original row).
    return None if value is None else round(float(value), 3)


@functools.lru_cache(maxsize=1024)
def _generation_json(
    agent_a: str | None, agent_b: str | None, max_tokens: int | None, cap: int | None
) -> str:
    """The ``generation`` field of a label from its job's stored agents and budgets, as
    canonical JSON: ``{"max_tokens", "max_tokens_cap", "max_tokens_cap_default", "agents":
    [A's options, B's]}`` (each agent's ``reasoning_effort`` and ``extra_body`` when given;
    ``max_tokens_cap`` the cap the job applied, ``max_tokens_cap_default`` true when the job
    set none and that cap was the default, twice ``max_tokens``:
    :func:`debates.engine.max_tokens_cap_effective`); "null" without a job. Jobs repeat over
    millions of rows: each distinct one is built once."""
    if agent_a is None or agent_b is None or max_tokens is None:
        return "null"
    agents = []
    for text in (agent_a, agent_b):
        try:
            agents.append(AgentConfig.stored(json.loads(text)).generation_options())
        except ValueError:  # a config this code no longer reads: its options unknown
            agents.append({})
    value = {
        "agents": agents,
        "max_tokens": max_tokens,
        "max_tokens_cap": max_tokens_cap_effective(max_tokens, cap),
        "max_tokens_cap_default": cap is None,
    }
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _probabilities(row: tuple) -> dict[str, float | None] | None:
    """The ``label_probabilities`` field: ``{"A": p, "B": p}`` of the deciding debate's
    final-round turns (None where unknown); None for a row without a debate."""
    if row[10] is None:
        return None
    return {"A": row[29], "B": row[30]}


def _probabilities_json(row: tuple) -> str:
    found = _probabilities(row)
    if found is None:
        return "null"
    return (
        "{"
        + ",".join(f'"{agent}":{"null" if p is None else repr(p)}' for agent, p in found.items())
        + "}"
    )


def _row_simulated(row: tuple) -> SimulatedRow | None:
    """The row's simulated label (the ``simulated`` and ``simulated_from`` fields), None when
    it is not one (:func:`assess.models.simulated.qrel_set_simulated_rows`: an own final
    label or one copied from the refined set this one was refined from)."""
    return row[35]


def _label_record(row: tuple) -> dict:
    (query_id, doc_id, grade, label, source, applied, original, consensus_label) = row[:8]
    (consensus_round, job, debate, models, version, annotators, adjudicator, decided) = row[8:16]
    (calls, prompt_tokens, completion_tokens, human_seconds, cached, reasoning) = row[16:22]
    assessed = source is not None
    simulated = _row_simulated(row)
    return {
        "query_id": query_id,
        "doc_id": doc_id,
        "label": grade,
        "source": source if applied else "original",
        "simulated": simulated is not None,
        "simulated_from": simulated.made_in if simulated is not None else None,
        "assessed_label": label if assessed else None,
        "assessed_source": source if assessed else None,
        "original_label": original,
        "consensus_label": consensus_label,
        "consensus_round": consensus_round,
        "correction": correction_of(applied=applied, original=original),
        "job": job,
        "debate": debate,
        "models": json.loads(models) if models else [],
        "prompt_version": version or None,
        "annotators": json.loads(annotators) if annotators else [],
        "adjudicator": adjudicator or None,
        "decided_at": _utc_iso(decided),
        "llm_calls": calls,
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "cached_tokens": cached,
        "reasoning_tokens": reasoning,
        "generation": json.loads(_generation_json(*row[22:26])),
        "human_seconds": _seconds(human_seconds),
        "inclusion": row[28],
        "llm_money": row[34],
        "reused": row[31] or None,
        "label_probabilities": _probabilities(row),
        "label_source": _label_source(source if applied else None, row[27]),
        "human_judgments": json.loads(_judgments_json(row[27])),
    }


def labels_records(*, qrel_set: QrelSet) -> Iterator[dict]:
    """One dict per row of ``qrel_set`` in canonical order (query id, then doc id, by code
    point), with its provenance (fields: :data:`assess.refined.export_formats.LABEL_FIELDS`).

    ``label`` is the grade in the set; ``source`` is "original" for rows copied from the
    original qrels (or of an imported set), else consensus/human/adjudicated. A re-assessed
    original row carries its ``assessed_label``/``assessed_source`` too; ``original_label``
    is the grade before refinement when the pair was judged; ``correction`` is true when a
    human verdict replaced that grade (``label`` is then the corrected grade). ``llm_money``
    is the money of the debate behind the row (the one its ``llm_calls`` count) at
    ``DREAM_LLM_PRICES``, batch prices for a batch-mode job; null for a row without a debate
    (original rows) or when a price is unknown. ``simulated`` is true for a simulated
    label, copied rows included (then ``source`` is "original" and ``simulated_from`` names
    the refined set whose final label it was: :func:`assess.models.simulated.
    qrel_set_simulated_rows`).
    """
    for row in _label_rows(qrel_set):
        yield _label_record(row)


def _number(value: int | None) -> str:
    return "null" if value is None else str(value)


def _text(value: str | None) -> str:
    return _encode(value) if value else "null"


def label_line(row: tuple) -> str:
    """The labels JSONL line of one raw row: byte-identical to
    ``export_formats.jsonl_line(_label_record(row))`` (sorted keys, compact, UTF-8), built
    directly because a million ``json.dumps`` of a 16-key dict take most of an export."""
    (query_id, doc_id, grade, label, source, applied, original, consensus_label) = row[:8]
    (consensus_round, job, debate, models, version, annotators, adjudicator, decided) = row[8:16]
    (calls, prompt_tokens, completion_tokens, human_seconds, cached, reasoning) = row[16:22]
    seconds = _seconds(human_seconds)
    simulated = _row_simulated(row)
    corrected = "true" if correction_of(applied=applied, original=original) else "false"
    if source is None:
        assessed_label = assessed_source = "null"
    else:
        assessed_label, assessed_source = _number(label), _encode(source)
    return (
        f'{{"adjudicator":{_text(adjudicator)},'
        f'"annotators":{_canonical_json(annotators)},'
        f'"assessed_label":{assessed_label},'
        f'"assessed_source":{assessed_source},'
        f'"cached_tokens":{_number(cached)},'
        f'"completion_tokens":{_number(completion_tokens)},'
        f'"consensus_label":{_number(consensus_label)},'
        f'"consensus_round":{_number(consensus_round)},'
        f'"correction":{corrected},'
        f'"debate":{_number(debate)},'
        f'"decided_at":{_text(_utc_iso(decided))},'
        f'"doc_id":{_encode(doc_id)},'
        f'"generation":{_generation_json(*row[22:26])},'
        f'"human_judgments":{_judgments_json(row[27])},'
        f'"human_seconds":{"null" if seconds is None else repr(seconds)},'
        f'"inclusion":{"null" if row[28] is None else repr(row[28])},'
        f'"job":{_number(job)},'
        f'"label":{grade},'
        f'"label_probabilities":{_probabilities_json(row)},'
        f'"label_source":{_encode(_label_source(source if applied else None, row[27]))},'
        f'"llm_calls":{_number(calls)},'
        f'"llm_money":{"null" if row[34] is None else repr(row[34])},'
        f'"models":{_canonical_json(models)},'
        f'"original_label":{_number(original)},'
        f'"prompt_tokens":{_number(prompt_tokens)},'
        f'"prompt_version":{_text(version)},'
        f'"query_id":{_encode(query_id)},'
        f'"reasoning_tokens":{_number(reasoning)},'
        f'"reused":{_text(row[31])},'
        f'"simulated":{"false" if simulated is None else "true"},'
        f'"simulated_from":{"null" if simulated is None else _encode(simulated.made_in)},'
        f'"source":{_encode(source if applied else "original")}}}\n'
    )


def labels_lines(*, qrel_set: QrelSet) -> Iterator[str]:
    """The labels JSONL of ``qrel_set``, a line at a time (each ending in a newline), as
    :func:`labels_write` writes it: for streaming it in a response."""
    for row in _label_rows(qrel_set):
        yield label_line(row)


def labels_write(*, qrel_set: QrelSet, out: SupportsWrite[str]) -> int:
    """Write the labels JSONL of ``qrel_set`` to ``out``; return the lines written."""
    count = 0
    write = out.write
    for row in _label_rows(qrel_set):
        write(label_line(row))
        count += 1
    return count


# A transcript line: (JSONL key, Turn column), one per field. Every reply of the turn is in
# ``raw_attempts`` (two or three when re-asked); ``attempt_log`` has, per attempt, why it was
# asked, its budget, finish reason, tokens, error, reasoning and, when the reply held text a
# database cannot store, the exact reply escaped.
_TRANSCRIPT_COLUMNS = (
    ("debate", "debate_id"),
    ("job", "debate__job_id"),
    ("query_id", "debate__pair__query__query_id"),
    ("doc_id", "debate__pair__document__doc_id"),
    ("debate_status", "debate__status"),
    ("final_label", "debate__final_label"),
    ("consensus_round", "debate__consensus_round"),
    ("escalation_reason", "debate__escalation_reason"),
    ("round", "round"),
    ("agent", "agent"),
    ("stance", "stance"),
    ("label", "label"),
    ("argument", "argument"),
    ("evidence", "evidence"),
    ("raw", "raw"),
    ("raw_attempts", "raw_attempts"),
    ("attempt_log", "attempt_log"),
    ("reasoning", "reasoning"),
    ("reasoning_tokens", "reasoning_tokens"),
    ("cached_tokens", "cached_tokens"),
    ("cut_off", "cut_off"),
    ("parse_error", "parse_error"),
    ("model", "model"),
    ("prompt_version", "prompt_version"),
    ("attempts", "attempts"),
    ("prompt_tokens", "prompt_tokens"),
    ("completion_tokens", "completion_tokens"),
    ("latency_ms", "latency_ms"),
    ("chunk_truncated", "chunk_truncated"),
    ("finish_reason", "finish_reason"),
    ("created", "created"),
)
_EMPTY_AS_NULL = (
    "escalation_reason",
    "reasoning",
    "parse_error",
    "prompt_version",
    "finish_reason",
)
_EMPTY_AS_LIST = ("evidence", "raw_attempts", "attempt_log")


def _transcript_record(row: tuple) -> dict:
    record = dict(zip((key for key, _ in _TRANSCRIPT_COLUMNS), row, strict=True))
    for key in _EMPTY_AS_NULL:
        record[key] = record[key] or None
    for key in _EMPTY_AS_LIST:
        record[key] = record[key] or []
    record["created"] = _iso(record["created"])
    record["model"] = model_shown(record["model"])  # a GGUF file by its name: no server folder
    return record


def transcripts_records(*, pool: Pool) -> Iterator[dict]:
    """One dict per stored turn of every debate of ``pool``'s jobs (fields:
    :data:`_TRANSCRIPT_COLUMNS`), ordered by query id, doc id (code point), job, round,
    agent; with the debate's outcome on every line."""
    qs = (
        Turn.objects.filter(debate__pair__pool=pool)
        .order_by(
            code_point("debate__pair__query__query_id"),
            code_point("debate__pair__document__doc_id"),
            "debate__job_id",
            "round",
            "agent",
        )
        .values_list(*(column for _, column in _TRANSCRIPT_COLUMNS))
    )
    for row in qs.iterator(chunk_size=BATCH_SIZE):
        yield _transcript_record(row)


# Columns of one disagreements candidate, as :func:`disagreement_rows` reads them: the query
# and document ids and their short texts, never the document body.
_DISAGREEMENT_COLUMNS = (
    "query__query_id",
    "query__text",
    "document__doc_id",
    "document__title",
    "label",
    "source",
    "reason",
    "original_relevance",
    "consensus_label",
    "machine_label",
    "consensus_round",
    "debate_status",
    "escalation_reason",
    "review_kind",
    "judgments",
    "adjudicator",
    "debate_id",
    "job_id",
    "agent_models",
    "prompt_version",
    "decided_at",
)

# Every provenance row :func:`_why_listed` can list, and a few more (an audit whose one
# judgment agrees): the database leaves out the bulk of a refined set, the agreed pairs
# nobody contradicted, and Python decides on the rest. A budgeted pool's pairs beyond its
# budget (never debated, left unjudged by design) are no disagreement and may be tens of
# thousands: never listed (the refinement counts them, Refinement.beyond_budget).
_MAYBE_LISTED = (
    Q(debate_status=Debate.Status.ESCALATED)
    | (Q(label__isnull=True) & ~Q(reason=BEYOND_BUDGET))
    | (Q(source__in=HUMAN_SOURCES, consensus_label__isnull=False) & ~Q(consensus_label=F("label")))
    | (Q(source__in=HUMAN_SOURCES, machine_label__isnull=False) & ~Q(machine_label=F("label")))
    | ~Q(judgments=[])
    | Q(original_relevance__gt=0, label__lte=0)
    | Q(original_relevance__lte=0, label__gt=0)
)


def _why_listed(row: dict) -> list[str]:
    """Why a provenance row (a dict of :data:`_DISAGREEMENT_COLUMNS`) is in the
    disagreements CSV; empty when it is not."""
    why = []
    label, original = row["label"], row["original_relevance"]
    if row["debate_status"] == Debate.Status.ESCALATED:
        why.append("escalated")
    if label is None and row["reason"] != BEYOND_BUDGET:
        why.append(f"unresolved: {row['reason']}")
    # LabelProvenance.overrides_consensus, on plain values.
    if overrides_consensus(
        source=row["source"],
        label=label,
        consensus_label=row["consensus_label"],
        machine_label=row["machine_label"],
    ):
        why.append("human overrode consensus")
    if len({j["label"] for j in row["judgments"] or []}) > 1:
        why.append("annotators disagree")
    if label is not None and original is not None and (original > 0) != (label > 0):
        why.append("differs from original grade")
    return why


def _last_turns(
    debate_ids: list[int], *, stored_by: datetime
) -> dict[int, dict[str, tuple[int | None, str]]]:
    """``{debate id: {agent: (label, argument)}}`` of each debate's last round stored at or
    before ``stored_by`` (the refinement's creation): turns a debate adds later are not part
    of the refined set, so they never change its export."""
    out: dict[int, dict[str, tuple[int | None, str]]] = {}
    for start in range(0, len(debate_ids), BATCH_SIZE):
        chunk = debate_ids[start : start + BATCH_SIZE]
        for debate, agent, label, argument in (
            Turn.objects.filter(debate_id__in=chunk, created__lte=stored_by)
            .order_by("debate_id", "round", "agent")
            .values_list("debate_id", "agent", "label", "argument")
        ):
            out.setdefault(debate, {})[agent] = (label, argument)
    return out


def _judged_text(judgment: dict) -> str:
    # "ann1=1 (gold 80% of 10)": the label and the annotator's record on known-answer
    # pairs at refinement (absent from provenance stored before it was recorded).
    text = f"{judgment['annotator']}={judgment['label']}"
    accuracy, answers = judgment.get("gold_accuracy"), judgment.get("gold_answers")
    if accuracy is not None and answers:
        text += f" (gold {accuracy:.0%} of {answers})"
    return text


def _disagreement_row(row: dict, why: list[str], turns: dict) -> list:
    last = turns.get(row["debate_id"], {})
    a_label, a_argument = last.get("A", (None, ""))
    b_label, b_argument = last.get("B", (None, ""))
    judged = "; ".join(_judged_text(j) for j in row["judgments"] or [])
    return [
        row["query__query_id"],
        row["query__text"],
        row["document__doc_id"],
        row["document__title"],
        "; ".join(why),
        row["label"],
        row["source"],
        label_source(row["source"], [j["label"] for j in row["judgments"] or []]),
        row["reason"],
        row["original_relevance"],
        row["consensus_label"],
        row["consensus_round"],
        row["debate_status"],
        row["escalation_reason"],
        row["review_kind"],
        judged,
        row["adjudicator"],
        a_label,
        a_argument,
        b_label,
        b_argument,
        row["debate_id"],
        row["job_id"],
        " / ".join(row["agent_models"] or []),
        row["prompt_version"],
        _iso(row["decided_at"]) or "",
    ]


def disagreement_rows(*, qrel_set: QrelSet) -> Iterator[list]:
    """Rows of the disagreements CSV (header
    :data:`assess.refined.export_formats.DISAGREEMENT_HEADER`) for a refined set: every pair that
    was escalated, is unresolved, had its consensus overridden by humans, split its annotators, or
    contradicts its original grade; never a pair beyond a budgeted pool's budget (reason
    ``beyond budget``: left unjudged by design, no disagreement). Canonical order (query
    id, then doc id, by code point).

    A function of the refined set alone, as its export key promises: provenance rows are
    written once by the refinement, and the agents' last arguments are those of the turns
    stored by the time the refinement was created. Memory is bounded by
    :data:`BATCH_SIZE` listed rows: the database filters the candidates and streams them
    (no document text is read), and turns are fetched a batch at a time.
    Raises :class:`ExportError` for a set that was not refined.
    """
    created = Refinement.objects.filter(qrel_set=qrel_set).values_list("created", flat=True).first()
    if created is None:
        raise ExportError(f"qrel set {qrel_set.name!r} was not refined: no provenance to list")
    candidates = (
        LabelProvenance.objects.filter(_MAYBE_LISTED, qrel_set=qrel_set)
        .order_by(code_point("query__query_id"), code_point("document__doc_id"))
        .values(*_DISAGREEMENT_COLUMNS)
    )
    batch: list[tuple[dict, list[str]]] = []

    def flush() -> Iterator[list]:
        turns = _last_turns(
            sorted({row["debate_id"] for row, _ in batch if row["debate_id"]}), stored_by=created
        )
        for row, why in batch:
            yield _disagreement_row(row, why, turns)
        batch.clear()

    for row in candidates.iterator(chunk_size=BATCH_SIZE):
        why = _why_listed(row)
        if why:
            batch.append((row, why))
            if len(batch) >= BATCH_SIZE:
                yield from flush()
    yield from flush()
