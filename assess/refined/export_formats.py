"""Export file formats: JSONL lines, the human-readable CSV, and a hashing writer. Pure.

Every export is deterministic: records arrive sorted (query id, then doc id, by code point),
JSON objects are written with sorted keys, UTF-8 without escaping (``ensure_ascii=False``)
and no spaces, one object a line ending in ``\\n``. Equal input gives equal bytes, so the
sha256 shown next to a download identifies its content.

Only the CSV meant for people opening it in a spreadsheet is altered: a text cell starting
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'`` so a
spreadsheet shows it as text instead of running it as a formula (OWASP, "CSV Injection").
Numbers we format ourselves (grades, rounds, ids) are written as they are. Machine formats
(TREC, BEIR, JSONL) are never altered.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

# Field order of the labels JSONL (keys are sorted in the file; this lists them for docs).
LABEL_FIELDS = (
    "query_id",
    "doc_id",
    "label",
    "source",
    # True when the row is a simulated label (assess.models.simulated.qrel_set_simulated_rows):
    # a final label of simulated debaters, of the simulated annotator or of a stage-0 judge
    # that learnt from simulated labels, the set's own or copied with the rows of the
    # refined set it was refined from (then "source" is "original"); for planning a study,
    # never a benchmark.
    "simulated",
    # The name of the refined set whose final label the simulated row is (this set, or one
    # it was refined from); null when the row is not simulated.
    "simulated_from",
    "assessed_label",
    "assessed_source",
    "original_label",
    "consensus_label",
    "consensus_round",
    # True when a human verdict replaced the original grade (a correction: "label" is the
    # corrected grade, "original_label" the grade it replaced); false otherwise.
    "correction",
    "job",
    "debate",
    "models",
    "prompt_version",
    "annotators",
    "adjudicator",
    "decided_at",
    # What the label cost: the LLM calls and tokens of the debate behind it and the human
    # active seconds (wall seconds for a judgment not measured; human and adjudicated labels;
    # 0 for consensus; null for original rows).
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",  # part of prompt_tokens: served from the server's prefix cache
    "reasoning_tokens",  # part of completion_tokens: a reasoning model's thinking
    # The job's token budgets and each agent's reasoning_effort / extra_body (null: no job).
    "generation",
    "human_seconds",
    # The pair's probability of going to humans at refinement (1 escalated; an agreed pair's
    # audit stratum's probability, drawn or not); null for original rows and undecided pairs.
    "inclusion",
    # The LLM money of the debate behind the label at DREAM_LLM_PRICES (batch prices for a
    # batch-mode job; assess.refined.debate_cost); null without a debate or a known price.
    "llm_money",
    # The probability each agent gave its final-round label, from its reply's token logprobs
    # ({"A": p, "B": p}, null where the server sent none; the whole field null without a
    # debate). Binary: P(relevant) = p for a label 1, 1 - p for a label 0.
    "label_probabilities",
    # Where the label came from, finer than "source": original, consensus, stage0, single-human,
    # humans-unanimous, humans-majority or adjudicated (export_formats.label_source).
    "label_source",
    # The live judgments behind a human label as stored at refinement: annotator, label,
    # time, and the annotator's accuracy on known-answer pairs then (gold_answers,
    # gold_accuracy); [] for other labels.
    "human_judgments",
    # A consensus label a job took over from an earlier job's debate with the same reuse key:
    # "reused by job N from job M (debate D)" (its llm_calls are 0: it cost nothing); null
    # otherwise. The other fields are that label's provenance.
    "reused",
)

DISAGREEMENT_HEADER = (
    "query_id",
    "query",
    "doc_id",
    "title",
    "why listed",
    "final label",
    "source",
    "label source",  # LABEL_SOURCES: consensus, single-human, humans-unanimous, ...
    "unresolved reason",
    "original grade",
    "consensus label",
    "consensus round",
    "debate status",
    "escalation reason",
    "review",
    "human judgments",  # annotator=label, with their gold accuracy then: (gold 80% of 10)
    "adjudicator",
    "agent A label",
    "agent A argument",
    "agent B label",
    "agent B argument",
    "debate",
    "job",
    "models",
    "prompt version",
    "decided at",
)


def jsonl_line(record: Mapping[str, Any]) -> str:
    """One JSON object as a canonical line: sorted keys, UTF-8 text kept, no spaces, ``\\n``."""
    return json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_jsonl(records: Iterable[Mapping[str, Any]], out: SupportsWrite[str]) -> int:
    """Write each record as :func:`jsonl_line`; return the number of lines."""
    count = 0
    write = out.write
    for record in records:
        write(jsonl_line(record))
        count += 1
    return count


def neutralise_cell(value: Any) -> str | int | float:
    """A CSV cell safe to open in a spreadsheet.

    ``None`` becomes ``""``; ints and floats stay numbers; any other value is turned into
    text and, when it starts with one of :data:`FORMULA_PREFIXES`, gets a leading ``'``.
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return value
    text = str(value)
    if text.startswith(FORMULA_PREFIXES):
        return "'" + text
    return text


def write_csv(header: Sequence[str], rows: Iterable[Sequence[Any]], out: SupportsWrite[str]) -> int:
    """Write ``header`` and ``rows`` as CSV (RFC 4180: comma, ``"`` quoting, CRLF), every
    cell through :func:`neutralise_cell`; return the number of data rows."""
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([neutralise_cell(h) for h in header])
    count = 0
    for row in rows:
        writer.writerow([neutralise_cell(v) for v in row])
        count += 1
    return count


class HashingWriter(io.TextIOBase):
    """A text stream that encodes to UTF-8 into a binary file while computing its sha256 and
    counting bytes; ``hexdigest()`` and ``bytes`` read the result."""

    def __init__(self, raw: IO[bytes], *, buffer_size: int = 1 << 20) -> None:
        super().__init__()
        self._raw = raw
        self._hash = hashlib.sha256()
        self._parts: list[bytes] = []
        self._pending = 0
        self._buffer_size = buffer_size
        self.bytes = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        data = text.encode("utf-8")
        self._parts.append(data)
        self._pending += len(data)
        if self._pending >= self._buffer_size:
            self._drain()
        return len(text)

    def _drain(self) -> None:
        if self._parts:
            chunk = b"".join(self._parts)
            self._hash.update(chunk)
            self._raw.write(chunk)
            self.bytes += len(chunk)
            self._parts.clear()
            self._pending = 0

    def flush(self) -> None:
        self._drain()
        self._raw.flush()

    def hexdigest(self) -> str:
        """sha256 of everything written so far (flushes first)."""
        self._drain()
        return self._hash.hexdigest()


#: Where a final label came from, in every export that carries provenance.
LABEL_SOURCES = (
    "original",  # copied from the original qrels
    "consensus",  # the agents agreed (at the round in consensus_round)
    "stage0",  # the stage-0 judge settled it before any debate (models: "stage0:<hash>")
    "single-human",  # one annotator's judgment
    "humans-unanimous",  # several annotators, all the same label
    "humans-majority",  # several annotators, a majority (or, graded, the median)
    "adjudicated",  # an admin decided
    "unresolved",  # no final label (in the provenance, never a qrels row)
)


def label_source(source: str, judgment_labels: Sequence[int]) -> str:
    """The finer source of a final label from its provenance ``source`` ("consensus",
    "stage0", "human", "adjudicated", "unresolved") and the labels of the live judgments behind it:
    a human label is "single-human" from one judgment, "humans-unanimous" when several all
    agree, "humans-majority" otherwise. One of :data:`LABEL_SOURCES`; ValueError for an
    unknown ``source``."""
    if source == "human":
        if len(judgment_labels) <= 1:
            return "single-human"
        return "humans-unanimous" if len(set(judgment_labels)) == 1 else "humans-majority"
    if source in ("consensus", "stage0", "adjudicated", "unresolved", "original"):
        return source
    raise ValueError(f"unknown label source {source!r}")
