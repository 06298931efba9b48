"""TREC run files and run/qrels rows for ir_measures. Pure functions, no database.

A TREC run line is ``qid Q0 docid rank score tag`` (trec_eval's format), fields separated by
any whitespace. trec_eval ignores the rank column: it sorts each query's documents by score
and breaks ties by document id, so a file with equal scores can be silently reordered. This
project's rank order is therefore (score descending, ``doc_id`` ascending) everywhere, and
exported scores are made strictly decreasing, in float64 and in the float32 trec_eval stores
(:func:`strictly_decreasing`), so trec_eval, ir_measures and this app read the same ranking
from the same file.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO

import numpy as np

from core.text import plural

from .formats import (
    FormatError,
    LineErrors,
    check_id,
    duplicates_refusal,
    parse_all,
    parse_lines,
)


@dataclass(frozen=True, slots=True)
class RunRecord:
    line: int
    query_id: str
    doc_id: str
    rank: int
    score: float
    tag: str


# trec_eval keeps run scores in a C ``float``: a double at or beyond this magnitude rounds to
# infinity there (2**128 - 2**103 is halfway between the largest float32, about 3.4028235e38,
# and 2**128, and ties round to even, i.e. up).
FLOAT32_OVERFLOW = 2.0**128 - 2.0**103
FLOAT32_MAX = float(np.finfo(np.float32).max)
_FLOAT32_RANGE = "(|score| <= 3.4028235e+38)"  # FLOAT32_MAX as float32 prints it


def fits_float32(value: float) -> bool:
    """Whether ``value`` is finite as a 32-bit float (|value| rounds to at most
    :data:`FLOAT32_MAX`, about 3.4028235e38), the type trec_eval stores run scores in."""
    return abs(value) < FLOAT32_OVERFLOW


def parse_score(token: str, path: str, line: int) -> float:
    """A run score: a decimal or scientific number that fits a 32-bit float (|score| up to
    about 3.4028235e38), as trec_eval and ir_measures read it and :func:`strictly_decreasing`
    exports it. Raises :class:`FormatError` naming file and line otherwise."""
    try:
        value = float(token)
    except ValueError:
        raise FormatError(path, line, f"score {token!r} is not a number") from None
    if not math.isfinite(value):
        raise FormatError(path, line, f"score {token!r} is not a finite number")
    if not fits_float32(value):
        raise FormatError(
            path,
            line,
            f"score {token!r} is outside the 32-bit float range trec_eval stores scores in "
            + _FLOAT32_RANGE,
        )
    return value


def parse_trec_run(path) -> Iterator[RunRecord]:
    """Stream a TREC run file: ``qid Q0 docid rank score tag`` a line (plain or ``.gz``).

    The second column is ignored (as trec_eval does); ``rank`` must be an integer but is not
    used for ordering (see the module note). Blank lines are skipped. Raises
    :class:`FormatError` naming file and line for a wrong field count, a bad id, a
    non-integer rank, a non-numeric or infinite score, or an empty file: one error listing
    every bad line with its reason (:func:`corpora.formats.parse_lines`).
    """
    yield from parse_lines(path, _run_line(path), _NO_RUN_LINES)


def read_trec_run(path) -> tuple[list[RunRecord], LineErrors]:
    """Every line of the TREC run file ``path`` that can be read (see :func:`parse_trec_run`)
    and the lines that cannot, collected, not raised (:func:`corpora.formats.parse_all`), so
    that an import checks the rows too before it refuses once. FormatError for an empty file."""
    return parse_all(path, _run_line(path), _NO_RUN_LINES)


_NO_RUN_LINES = "file is empty (no run lines)"


def _run_line(path) -> Callable[[int, str], RunRecord | None]:
    """The reader of one line of the run file ``path`` (see :func:`parse_trec_run`)."""

    def read(number: int, text: str) -> RunRecord | None:
        fields = text.split()
        if not fields:
            return None
        if len(fields) != 6:
            raise FormatError(
                path, number, f"expected 6 fields (qid Q0 docid rank score tag), got {len(fields)}"
            )
        try:
            rank = int(fields[3])
        except ValueError:
            raise FormatError(path, number, f"rank {fields[3]!r} is not an integer") from None
        return RunRecord(
            line=number,
            query_id=check_id(fields[0], "qid", path, number),
            doc_id=check_id(fields[2], "docid", path, number),
            rank=rank,
            score=parse_score(fields[4], str(path), number),
            tag=fields[5],
        )

    return read


def duplicate_lines(records: Iterable[RunRecord]) -> dict[tuple[str, str], list[int]]:
    """``{(query id, doc id): lines}`` of every document that appears more than once for the
    same query, in the order the pairs first repeat."""
    first: dict[tuple[str, str], int] = {}
    lines: dict[tuple[str, str], list[int]] = {}
    for record in records:
        key = (record.query_id, record.doc_id)
        if key in first:
            lines.setdefault(key, [first[key]]).append(record.line)
        else:
            first[key] = record.line
    return lines


def duplicates_error(lines: dict[tuple[str, str], list[int]], path) -> FormatError:
    """The refusal of a run listing the documents of ``lines`` (:func:`duplicate_lines`, not
    empty) twice for a query, every line of each."""
    reason = f"{len(lines)} document(s) listed twice for the same query"
    return duplicates_refusal(lines, path, reason)


def rank_order(entries: Iterable[tuple[str, float]]) -> list[tuple[str, int, float]]:
    """``(doc_id, score)`` pairs as ``(doc_id, rank, score)`` in rank order, ranks from 1.

    Rank order: score descending, then ``doc_id`` ascending in code-point order.
    """
    ordered = sorted(entries, key=lambda e: (-e[1], e[0]))
    return [(doc_id, rank, score) for rank, (doc_id, score) in enumerate(ordered, start=1)]


def _float32(value: float) -> float:
    return float(np.float32(value))


def strictly_decreasing(scores: Sequence[float]) -> list[float]:
    """Scores in rank order, each lowered just enough to stay below the one before it, also
    after rounding to 32 bits.

    trec_eval keeps run scores in a C ``float`` (``TEXT_RESULTS.sim``), so two doubles that
    round to the same float32 tie there and are re-broken by doc id. A score whose float32
    is already below its predecessor's is kept exactly; any other becomes the next float32
    below the previous exported score. Both the float64 and the float32 readings of the
    result strictly decrease. ``[3.0, 2.0, 2.0, 1.0]`` → ``[3.0, 2.0, 1.9999998807907104, 1.0]``.
    Raises ValueError for a score beyond float32's range (about ±3.4e38, see
    :func:`fits_float32`), or tied scores at the bottom of that range that cannot be lowered
    further without reaching minus infinity.
    """
    out: list[float] = []
    previous32: float | None = None
    for score in scores:
        if not math.isfinite(score) or not fits_float32(score):
            raise ValueError(
                f"score {score!r} is outside the 32-bit float range trec_eval stores scores in "
                + _FLOAT32_RANGE
            )
        score32 = _float32(score)
        if previous32 is not None and score32 >= previous32:
            if previous32 <= -FLOAT32_MAX:
                raise ValueError(
                    f"score {score!r} ties with the lowest 32-bit float {previous32!r}: it cannot "
                    "be lowered to keep the exported scores strictly decreasing"
                )
            score = score32 = float(np.nextafter(np.float32(previous32), np.float32(-np.inf)))
        out.append(float(score))
        previous32 = score32
    return out


def format_trec_run_line(query_id: str, doc_id: str, rank: int, score: float, tag: str) -> str:
    """One TREC run line with single spaces: ``qid Q0 docid rank score tag\\n``.

    The score is Python's shortest round-trip form (``repr``), so it reads back exactly.
    """
    return f"{query_id} Q0 {doc_id} {rank} {score!r} {tag}\n"


def write_trec_run(rows: Iterable[tuple[str, str, int, float]], out: IO[str], tag: str) -> int:
    """Write ``(query_id, doc_id, rank, score)`` rows as a TREC run; return lines written.

    Rows arrive grouped by query in rank order (callers pass query id, then rank). Within a
    query the scores written strictly decrease (:func:`strictly_decreasing`); ranks are
    renumbered 1, 2, ... in the order given. Raises ValueError for a tag with whitespace.
    """
    if not tag or any(ch.isspace() for ch in tag):
        raise ValueError(f"run tag {tag!r} is empty or contains whitespace")
    count = 0
    for query_id, group in _by_query(rows):
        scores = _exported_scores(query_id, group)
        for rank, ((doc_id, _, _), score) in enumerate(zip(group, scores, strict=True), start=1):
            out.write(format_trec_run_line(query_id, doc_id, rank, score, tag))
            count += 1
    return count


def check_trec_run(rows: Iterable[tuple[str, str, int, float]]) -> int:
    """Check that :func:`write_trec_run` can write these rows, writing nothing; return the
    number of lines it would write. Raises ValueError naming the query whose scores cannot be
    written (see :func:`strictly_decreasing`)."""
    count = 0
    for query_id, group in _by_query(rows):
        count += len(_exported_scores(query_id, group))
    return count


def _exported_scores(query_id: str, group: list[tuple[str, int, float]]) -> list[float]:
    try:
        return strictly_decreasing([score for _, _, score in group])
    except ValueError as exc:
        raise ValueError(f"query {query_id!r}: {exc}") from None


def _by_query(
    rows: Iterable[tuple[str, str, int, float]],
) -> Iterator[tuple[str, list[tuple[str, int, float]]]]:
    current: str | None = None
    group: list[tuple[str, int, float]] = []
    for query_id, doc_id, rank, score in rows:
        if query_id != current:
            if current is not None:  # then the group holds current's rows
                yield current, group
            current, group = query_id, []
        group.append((doc_id, rank, score))
    if current is not None:
        yield current, group


def ir_measures_qrels(rows: Iterable[tuple[str, str, int]]) -> dict[str, dict[str, int]]:
    """``(query_id, doc_id, relevance)`` rows as ir_measures qrels ``{qid: {docid: grade}}``."""
    qrels: dict[str, dict[str, int]] = {}
    for query_id, doc_id, relevance in rows:
        qrels.setdefault(query_id, {})[doc_id] = int(relevance)
    return qrels


def ir_measures_run(rows: Iterable[tuple[str, str, int, float]]) -> dict[str, dict[str, float]]:
    """``(query_id, doc_id, rank, score)`` rows as an ir_measures run ``{qid: {docid: score}}``.

    Scores are the exported ones (strictly decreasing in rank order), so ir_measures and
    trec_eval evaluate exactly the stored ranking rather than re-breaking ties by doc id.
    """
    grouped: dict[str, list[tuple[int, str, float]]] = {}
    for query_id, doc_id, rank, score in rows:
        grouped.setdefault(query_id, []).append((rank, doc_id, score))
    run: dict[str, dict[str, float]] = {}
    for query_id, entries in grouped.items():
        entries.sort()
        scores = strictly_decreasing([score for _, _, score in entries])
        run[query_id] = {doc_id: s for (_, doc_id, _), s in zip(entries, scores, strict=True)}
    return run


#: At most this many ids of the queries without a result are named (the rest are counted).
EMPTY_QUERIES_NAMED = 3


def queries_answered_words(asked: Sequence[str], answered: Iterable[str]) -> tuple[str, str]:
    """How many of the ``asked`` query ids (in the order asked) a run answered, for the
    ``retrieve`` command: ``("323 queries", "")`` when each has an entry, else ``("298
    queries with results", "25 of the 323 queries matched no document (e.g. PLAIN-1008,
    PLAIN-1014, PLAIN-1016, ...)")``, naming the first :data:`EMPTY_QUERIES_NAMED`. A query
    BM25 shares no term with (stop words alone, a misspelling) gets no entry: counting only
    the answered ones would hide it."""
    have = set(answered)
    empty = [query_id for query_id in asked if query_id not in have]
    if not empty:
        return plural(len(asked), "query", "queries"), ""
    more = ", ..." if len(empty) > EMPTY_QUERIES_NAMED else ""
    named = ", ".join(empty[:EMPTY_QUERIES_NAMED]) + more
    got = plural(len(asked) - len(empty), "query", "queries")
    of = plural(len(asked), "query", "queries")
    return f"{got} with results", f"{len(empty):,} of the {of} matched no document (e.g. {named})"
