"""Known-answer ("gold") pairs: where they fall in an annotator's queue, which pairs are drawn,
and how an annotator's answers on them are scored. Pure: no database.

A relevance benchmark brings its own gold, the original qrels: a judged-relevant pair is a
known positive, a judged-irrelevant one a known negative. Where the qrels hold no negatives
(most BEIR sets), a query paired with another query's relevant chunk that no run ranks in
the query's top 100, and that is not a pair of the job's pool, is a near-certain negative
(the "cross-query" basis). This is the known-answer item of crowdsourcing quality control
(Oleson et al., "Programmatic Gold: Targeted and Scalable Quality Assurance in
Crowdsourcing", HCOMP 2011; CVAT and Label Studio call them ground-truth or honeypot items).

Placement: an annotator's judgments within one job are numbered 0, 1, 2...; the positions
are cut into blocks of ``L = round(1 / g)`` and each block holds ``round(g L (b + 1)) -
round(g L b)`` gold positions (one per block at g = 5%, L = 20), at places chosen by
SHA-256 of (job, annotator, block, place). The share is exact block by block, the places
reproducible, and no fixed spacing tells an annotator which pair is gold.

Scoring: an answer is correct when it is on the known answer's side of relevance (label >= 1
against known >= 1; on graded jobs the grade's side, not the exact grade). Accuracy, recall
on known positives and recall on known negatives each come with their 95% Wilson interval
(:func:`assess.review.agreement.wilson_interval`).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .agreement import Proportion, wilson_interval

# Gold pairs drawn per job: enough for an annotator who judges every pair of the pool, at
# least MIN_DRAW so a small pool still measures, at most MAX_DRAW.
MIN_DRAW = 20
MAX_DRAW = 1000
# A cross-query negative: another query's relevant chunk ranked by no run in the top NEAR.
NEAR_RANK = 100
PER_QUERY = 3
SCAN_PER_QUERY = 200

POSITIVE = "qrels-relevant"
NEGATIVE = "qrels-nonrelevant"
CROSS_QUERY = "cross-query"


def _fraction(*parts: object) -> float:
    """SHA-256 of the parts joined by ":" as a fraction in [0, 1) (first 64 bits)."""
    text = ":".join(str(p) for p in parts)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _block_length(share: float) -> int:
    return max(1, round(1.0 / share))


def gold_position(job_id: int, annotator_id: int, position: int, share: float) -> bool:
    """Whether the annotator's judgment number ``position`` (0-based, within one job) is a
    gold pair at gold share ``share`` (0..1). See the module docstring for the blocks."""
    if share <= 0 or position < 0:
        return False
    length = _block_length(share)
    block, place = divmod(position, length)
    per_block = round(share * length * (block + 1)) - round(share * length * block)
    if per_block <= 0:
        return False
    order = sorted(
        range(length), key=lambda i: _fraction("gold-place", job_id, annotator_id, block, i)
    )
    return place in order[:per_block]


def gold_draw_size(share: float, pool_pairs: int) -> int:
    """How many gold pairs a job draws: ``ceil(g / (1 - g) * pairs)`` (the gold an annotator
    judging the whole pool meets), clamped to MIN_DRAW..MAX_DRAW; 0 when ``share`` is 0."""
    if share <= 0:
        return 0
    # Rounded before the ceiling: 0.05 / 0.95 x 1,900 is 100.00000000000001 in floats.
    need = math.ceil(round(share * pool_pairs / (1.0 - share), 9))
    return int(min(MAX_DRAW, max(MIN_DRAW, need)))


def gold_draw_key(job_id: int, query_id: str, doc_id: str) -> str:
    """The pair's place in the job's draw: hex SHA-256 of ``"gold:<job>:<query>:<doc>"``."""
    return hashlib.sha256(f"gold:{job_id}:{query_id}:{doc_id}".encode()).hexdigest()


def annotator_gold_order(job_id: int, annotator_id: int, gold_ids: Iterable[int]) -> list[int]:
    """The order an annotator meets a job's gold pairs in: by SHA-256 of (job, annotator,
    gold pair), so two annotators do not meet the same pairs in the same order."""
    return sorted(gold_ids, key=lambda g: _fraction("gold-order", job_id, annotator_id, g))


@dataclass(frozen=True, slots=True)
class GoldCandidate:
    """A pair with a known answer: ids as in the benchmark, the label and its basis."""

    query_id: str
    doc_id: str
    label: int
    basis: str


def gold_candidates_choose(
    *,
    job_id: int,
    positives: Sequence[GoldCandidate],
    negatives: Sequence[GoldCandidate],
    cross_query: Sequence[GoldCandidate],
    size: int,
) -> list[GoldCandidate]:
    """Choose ``size`` gold pairs, half known positives and half known negatives (the other
    side fills in when one runs short), each side in draw-key order
    (:func:`gold_draw_key`), qrels negatives before cross-query ones. Deterministic; the
    pairs chosen at a size stay chosen at any larger size within each side."""

    def ordered(rows: Sequence[GoldCandidate]) -> list[GoldCandidate]:
        return sorted(rows, key=lambda c: gold_draw_key(job_id, c.query_id, c.doc_id))

    pos = ordered(positives)
    neg = ordered(negatives) + ordered(cross_query)
    want_pos = min(len(pos), max(size - len(neg), (size + 1) // 2))
    want_neg = min(len(neg), size - want_pos)
    return pos[:want_pos] + neg[:want_neg]


def cross_query_negatives(
    *,
    job_id: int,
    query_ids: Sequence[str],
    relevant: Sequence[tuple[str, str]],
    judged: set[tuple[str, str]],
    near: set[tuple[str, str]],
    pooled: set[tuple[str, str]],
    size: int,
) -> list[GoldCandidate]:
    """Up to ``size`` near-certain negatives: a query of ``query_ids`` paired with a chunk
    that ``relevant`` (``(query id, doc id)`` rows judged relevant) lists for another query,
    never judged for this query (``judged``), ranked in no run's top 100 for it
    (``near``: the ``(query id, doc id)`` pairs some run ranks within NEAR_RANK) and not a
    pair of the job's pool (``pooled``, the same shape). At most
    PER_QUERY (3) per query, so a few queries do not make all the gold, read from one
    hashed order of the relevant chunks at a hashed place per query (at most
    SCAN_PER_QUERY chunks looked at per query). Deterministic for a job."""
    docs_of: dict[str, set[str]] = {}
    for query_id, doc_id in relevant:
        docs_of.setdefault(query_id, set()).add(doc_id)
    # One hashed order of every relevant chunk; each query starts reading it at its own
    # hashed place, so the draw costs one sort, not one per query.
    docs = sorted({doc for _, doc in relevant}, key=lambda d: _fraction("gold-doc", job_id, d))
    found: list[GoldCandidate] = []
    for query_id in sorted(query_ids, key=lambda q: _fraction("gold-query", job_id, q)):
        own = docs_of.get(query_id, set())
        start = int(_fraction("gold-start", job_id, query_id) * len(docs)) if docs else 0
        taken = 0
        for step in range(min(len(docs), SCAN_PER_QUERY)):
            doc = docs[(start + step) % len(docs)]
            pair = (query_id, doc)
            # A pair of the pool is one a retriever found for this query (possibly below
            # NEAR_RANK, in a deep pool), exactly where "relevant elsewhere, so not here" is
            # least safe; and the job judges it as a real pair anyway, so as gold it would
            # reach an annotator twice or be withheld from them.
            if doc in own or pair in judged or pair in near or pair in pooled:
                continue
            found.append(GoldCandidate(query_id, doc, 0, CROSS_QUERY))
            taken += 1
            if taken == PER_QUERY:
                break
        if len(found) >= size:
            break
    return found[:size]


def gold_correct(known: int, given: int) -> bool:
    """An answer on a gold pair is correct when it is on the known answer's side of
    relevance (``given >= 1`` exactly when ``known >= 1``)."""
    return (given >= 1) == (known >= 1)


@dataclass(frozen=True, slots=True)
class GoldScore:
    """An annotator's record on gold pairs: accuracy over all answers, recall on known
    positives (relevant answered relevant) and on known negatives (not relevant answered
    not relevant), each a :class:`Proportion` with its 95% Wilson interval."""

    accuracy: Proportion
    positives: Proportion
    negatives: Proportion

    @property
    def answers(self) -> int:
        return self.accuracy.n


def gold_score(answers: Iterable[tuple[int, int]]) -> GoldScore:
    """Score ``answers``, each ``(known label, given label)``.

    Example: known (1, 1, 0, 0, 0) answered (1, 0, 0, 0, 1): accuracy 3/5 = 0.6, recall on
    positives 1/2, on negatives 2/3.
    """
    pos_ok = pos_n = neg_ok = neg_n = 0
    for known, given in answers:
        ok = gold_correct(known, given)
        if known >= 1:
            pos_n += 1
            pos_ok += ok
        else:
            neg_n += 1
            neg_ok += ok
    return GoldScore(
        accuracy=wilson_interval(pos_ok + neg_ok, pos_n + neg_n),
        positives=wilson_interval(pos_ok, pos_n),
        negatives=wilson_interval(neg_ok, neg_n),
    )


def gold_flagged(score: GoldScore, *, floor: float, min_answers: int) -> bool:
    """Whether an annotator is under the accuracy ``floor`` (0..1) after at least
    ``min_answers`` gold answers (the point estimate is compared, as the annotators page
    shows it; its interval says how sure that is)."""
    accuracy = score.accuracy.estimate
    return score.answers >= max(1, min_answers) and accuracy is not None and accuracy < floor


def gold_places_between(job_id: int, annotator_id: int, start: int, stop: int, share: float) -> int:
    """How many of the places ``start`` .. ``stop - 1`` are gold places
    (:func:`gold_position`): whole blocks by their count, only the partial blocks at the ends
    place by place, so a long stretch costs a step per block."""
    if share <= 0 or stop <= start:
        return 0
    length = _block_length(share)
    total = 0
    first, last = start // length, (stop - 1) // length
    for block in range(first, last + 1):
        lo, hi = block * length, (block + 1) * length
        if lo >= start and hi <= stop:
            total += round(share * length * (block + 1)) - round(share * length * block)
        else:
            total += sum(
                gold_position(job_id, annotator_id, i, share)
                for i in range(max(lo, start), min(hi, stop))
            )
    return total


def gold_places_ahead(
    job_id: int,
    annotator_id: int,
    *,
    start: int,
    given: int,
    real: int,
    share: float,
    available: int,
) -> int:
    """How many gold pairs an annotator at place ``start``, given ``given`` gold pairs so
    far, will meet before judging the ``real`` debates' pairs left for them: the gold places
    among the places up to the last of those pairs, less those already given (a gold place
    after the last real pair is never served: gold comes only among real work), at most
    ``available`` (the gold pairs they have not met yet). The least fixed point of
    k = gold places in [0, start + real + k) - given, reached from 0."""
    if real <= 0 or share <= 0 or available <= 0:
        return 0
    k = 0
    while True:
        due = gold_places_between(job_id, annotator_id, 0, start + real + k, share) - given
        found = min(available, max(0, due))
        if found == k:
            return k
        k = found
