"""Final-label resolution: one final label per pooled pair, with its provenance. Pure logic.

Input per pair (:class:`PairEvidence`): the original grade (when the pair was judged in the
pool's qrels and the pool keeps judged pairs), and every debate of the pair (one per debate
job covering it), each with its human review: live judgments (undone ones are left out by
the caller) and an admin's adjudication. Reviews of the same query and document in jobs on
other pools of the dataset come too, as ``votes_only`` evidence: their human votes count,
their debates do not.

Order of precedence (human beats debate consensus, as in DREAM: Ban et al., ICLR 2026,
arXiv 2602.06526, where humans make the final call on escalated pairs):

1. **adjudicated**: an admin's adjudication of one of the pair's reviews (the most recent,
   when several jobs' reviews were adjudicated: an admin's word is final on the pair);
2. **human**: the strict majority of the pair's human votes, once one of its reviews is
   complete (at least ``judgments_needed`` live judgments). The votes are merged across
   every review of the pair, in every job (two jobs may send one pair to humans): each
   annotator has one vote, their latest judgment, and votes of the other scale (a binary
   job's next to a graded one's) are left out. Equal votes without an adjudication leave
   the pair unresolved (reason ``human tie``), so two conflicting votes from two jobs ask
   for an adjudication instead of one of them being kept; a pair none of whose reviews is
   complete has no human answer yet. An audit of an agreed pair whose humans disagree with
   the consensus overrides it; both labels are kept in the provenance. On a graded job
   (grades 0..G, for benchmarks whose qrels are graded) the human grade is the median of
   the votes (:func:`assess.review.agreement.median_grade`): an odd count gives the middle
   grade; an even count gives the two middle grades when they are equal, and is a ``human
   tie`` when they differ (e.g. 1 and 2), which only an adjudication settles;
3. **consensus**: the debate's agreed label, with its consensus round; a label a job reused
   from an earlier job's debate with the same reuse key (``settled_by`` "reused") keeps that
   provenance and says so: ``reused`` is "reused by job N from job M (debate D)";
4. **nothing**: the pair is unresolved, with a reason: ``escalated, awaiting human``
   (escalated and no human answer yet), ``human review incomplete``, ``human tie``,
   ``pending`` (debate not finished), ``failed`` (the debate failed for good) or
   ``not debated`` (no job covers the pair). A refinement then marks the never-debated
   pairs of a budgeted pool that lie beyond its budget ``beyond budget``
   (:func:`beyond_budget_mark`): holes by design, not pairs still due.

Labels and grades: a binary job's labels (consensus, human, adjudicated) are 1/0, a graded
job's are grades 0..G. :func:`final_grade` turns a final label into the grade the refined
qrels get: a graded label as it is; a binary 1 as the refinement's ``relevant_grade`` (the
grade a binary "relevant" stands for on the benchmark's scale, default 1), 0 as 0.

Corrections: a pair the original qrels judge keeps its original grade in the refined qrels
(a consensus never changes it), unless humans decided it (source :data:`HUMAN` or
:data:`ADJUDICATED`) on the other side of relevance: that verdict is a *correction* (its
grade replaces the original, :attr:`FinalLabel.corrects_original`), as when a check of the
judged pairs (:mod:`debates.check_judged`) sent a suspect original label to humans.

Several debate jobs covering the same pair: their human votes merge (rule 2); without a
human answer the most recently finished debate (agreed or escalated; ties broken by the
larger debate id, i.e. the later job) decides. Only when no debate finished does an
unfinished one (pending/running, else failed) give the reason. So re-debating a pair with a
newer job (a new prompt version, a stronger model) replaces the older consensus.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TypedDict

from assess.models.overrides import overrides_consensus
from corpora.formats import relevance_level_check
from debates.llm.config import backend_and_model, model_shown

from ..review.agreement import majority_label, median_grade

# Sources (LabelProvenance.Source values) and unresolved reasons, as stored and exported.
CONSENSUS = "consensus"
STAGE0 = "stage0"  # settled by the stage-0 judge before any debate (no LLM call)
REUSED = "reused"  # Debate.settled_by of a label taken over from an earlier job (no LLM call)
HUMAN = "human"
ADJUDICATED = "adjudicated"
UNRESOLVED = "unresolved"

AWAITING_HUMAN = "escalated, awaiting human"
REVIEW_INCOMPLETE = "human review incomplete"
HUMAN_TIE = "human tie"
PENDING = "pending"
FAILED = "failed"
NOT_DEBATED = "not debated"
# A budgeted pool's never-debated pair beyond its budget: left unjudged by design, neither
# counted unresolved nor due (assess.refined.refine.budget_holes says which).
BEYOND_BUDGET = "beyond budget"
# The job caps how many pairs humans review (highest impact first); the rest wait here.
OVER_BUDGET = "over the human budget"
UNRESOLVED_REASONS = (
    AWAITING_HUMAN,
    REVIEW_INCOMPLETE,
    HUMAN_TIE,
    PENDING,
    FAILED,
    NOT_DEBATED,
    OVER_BUDGET,
    BEYOND_BUDGET,
)

# Debate statuses (debates.models.Debate.Status values).
AGREED = "agreed"
ESCALATED = "escalated"
SETTLED = (AGREED, ESCALATED)

# Default refusal threshold of a refinement: more than 5% of the pool's pairs unresolved.
DEFAULT_MAX_UNRESOLVED_SHARE = 0.05


@dataclass(frozen=True, slots=True)
class HumanJudgment:
    """One live judgment: who, what (1 relevant, 0 not; a grade 0..G on a graded job), when."""

    annotator: str
    label: int
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Adjudication:
    """An admin's final word on a review (label 1 or 0; a grade 0..G on a graded job)."""

    admin: str
    label: int
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class DebateEvidence:
    """One debate of the pair and its human review (if any).

    ``status`` is the Debate status (pending, running, agreed, escalated, failed);
    ``final_label`` and ``consensus_round`` are set when agreed. ``models`` are the agents'
    model names ``(A, B)``. ``review_kind`` is "escalated", "audit" or "" (no review).
    ``graded`` is True for a graded job: its labels are grades 0..G and human judgments
    combine by median instead of majority.
    """

    debate_id: int
    job_id: int
    status: str
    final_label: int | None = None
    consensus_round: int | None = None
    escalation_reason: str = ""
    models: tuple[str, ...] = ()
    prompt_version: str = ""
    finished: datetime | None = None
    review_kind: str = ""
    judgments_needed: int = 1
    judgments: tuple[HumanJudgment, ...] = ()
    adjudication: Adjudication | None = None
    # Its review waits: the job's human budget goes to pairs of higher impact first.
    over_budget: bool = False
    graded: bool = False
    # "stage0": the agreed label is the stage-0 judge's, not a debate's (no LLM call);
    # "reused": an earlier job's debate's, ``reused_from`` (its job id, debate id).
    settled_by: str = ""
    reused_from: tuple[int, int] | None = None
    # A review of the same query and document in a job on another pool: its votes count
    # (rule 2), its debate does not decide here.
    votes_only: bool = False


def provenance_models(
    agent_a: dict, agent_b: dict, *, settled_by: str, stage0_hash: str
) -> tuple[str, ...]:
    """The models a label's provenance names: for a stage-0 label the judge, by its model
    hash (``"stage0:<hash>"``); else each agent's model (its backend when it names none), a
    GGUF file by its name only (:func:`debates.llm.config.model_shown`: researchers read
    exports, the folder is the server's)."""
    if settled_by == STAGE0:
        return (f"stage0:{stage0_hash}",)
    named = map(backend_and_model, (agent_a, agent_b))
    return tuple(model_shown(model) or backend for backend, model in named)


@dataclass(frozen=True, slots=True)
class PairEvidence:
    """Everything known about one pooled pair. ``original_grade`` is its grade in the pool's
    qrels (None when unjudged there)."""

    query_id: str
    doc_id: str
    original_grade: int | None = None
    debates: tuple[DebateEvidence, ...] = ()


@dataclass(frozen=True, slots=True)
class FinalLabel:
    """The resolution of one pair.

    ``label`` is 1/0 (a grade 0..G when ``graded``: the deciding debate's job is graded),
    or None when unresolved (then ``reason`` says why). ``source`` is one
    of :data:`CONSENSUS`, :data:`STAGE0`, :data:`HUMAN`, :data:`ADJUDICATED`,
    :data:`UNRESOLVED`. The debate
    fields describe the debate that decided (or, when unresolved, the one that explains
    why); ``consensus_label`` is that debate's agreed label even when humans overrode it.
    ``annotators`` are sorted usernames of the votes behind a human label (merged over the
    pair's reviews), else of the deciding debate's review; ``decided_at`` the time of the
    deciding event (adjudication, last vote, or the debate's end). ``reused`` says when the
    deciding debate's consensus was reused from an earlier job ("reused by job N from job M
    (debate D)"), else "".
    """

    query_id: str
    doc_id: str
    label: int | None
    source: str
    reason: str = ""
    original_grade: int | None = None
    consensus_label: int | None = None
    consensus_round: int | None = None
    debate_status: str = ""
    escalation_reason: str = ""
    review_kind: str = ""
    debate_id: int | None = None
    job_id: int | None = None
    models: tuple[str, ...] = ()
    prompt_version: str = ""
    annotators: tuple[str, ...] = ()
    judgments: tuple[HumanJudgment, ...] = field(default=())
    adjudicator: str = ""
    debated_at: datetime | None = None
    decided_at: datetime | None = None
    graded: bool = False
    reused: str = ""
    # The consensus (label, round) of the debate rule 3 takes, the pair's newest settled
    # debate on the pool, whether or not humans answered the pair: the label the refined
    # qrels would give it without a human answer. None when that debate escalated or none
    # settled. The debate fields above describe the review that gave a human answer, which
    # may be another (older) job's; the intervals' model reads these two, so that a pair's
    # machine label never depends on which job's audit drew it.
    machine_label: int | None = None
    machine_round: int | None = None

    @property
    def resolved(self) -> bool:
        return self.label is not None

    @property
    def overrides_consensus(self) -> bool:
        """Humans decided a label different from the agents' consensus
        (:func:`overrides_consensus`)."""
        return overrides_consensus(
            source=self.source,
            label=self.label,
            consensus_label=self.consensus_label,
            machine_label=self.machine_label,
        )

    @property
    def corrects_original(self) -> bool:
        """A human or adjudicated label on the other side of relevance than the original
        grade: the refined qrels take its grade instead of the original (a correction)."""
        return self.source in (HUMAN, ADJUDICATED) and self.disagrees_with_original

    @property
    def disagrees_with_original(self) -> bool:
        """The final label contradicts the original grade (grade > 0 means relevant)."""
        return (
            self.label is not None
            and self.original_grade is not None
            and (self.original_grade > 0) != (self.label > 0)
        )


def _when(at: datetime | None) -> tuple[bool, datetime]:
    # None sorts first, so an undated event never wins over a dated one (and an aware time
    # is never compared with the naive minimum).
    return (at is not None, at or datetime.min)


def _order_key(debate: DebateEvidence) -> tuple:
    return (*_when(debate.finished), debate.debate_id)


def _last(judgments: Iterable[HumanJudgment]) -> datetime | None:
    return max((j.at for j in judgments if j.at is not None), default=None)


def _complete(debate: DebateEvidence) -> bool:
    """Whether the debate's review has the live judgments it needs (an answer or a tie)."""
    return bool(debate.judgments) and len(debate.judgments) >= max(debate.judgments_needed, 1)


def _votes(debates: Iterable[DebateEvidence]) -> tuple[HumanJudgment, ...]:
    """One vote per annotator over the reviews of ``debates``: their latest judgment (an
    annotator who judged the pair in two jobs, before the queue kept such pairs apart)."""
    latest: dict[str, HumanJudgment] = {}
    for debate in debates:
        for judgment in debate.judgments:
            seen = latest.get(judgment.annotator)
            if seen is None or _when(judgment.at) >= _when(seen.at):
                latest[judgment.annotator] = judgment
    return tuple(latest.values())


@dataclass(frozen=True, slots=True)
class _HumanAnswer:
    """The pair's human answer over all its reviews: ``kind`` ADJUDICATED, HUMAN or
    HUMAN_TIE, its label (None for a tie), when, the debate whose review it is described by
    (the adjudicated one, or the most recently completed) and the merged votes."""

    kind: str
    label: int | None
    at: datetime | None
    debate: DebateEvidence
    votes: tuple[HumanJudgment, ...]


def _human_answer(debates: Sequence[DebateEvidence]) -> _HumanAnswer | None:
    """Rules 1 and 2 of the module docstring over every review of one pair; None when no
    review is adjudicated or complete."""
    adjudicated = [d for d in debates if d.adjudication is not None]
    complete = [d for d in debates if _complete(d)]
    if adjudicated:
        lead = max(adjudicated, key=lambda d: (*_when(_adjudicated_at(d)), d.debate_id))
    elif complete:
        lead = max(complete, key=lambda d: (*_when(_last(d.judgments)), d.debate_id))
    else:
        return None
    votes = _votes(d for d in debates if d.graded == lead.graded)
    if lead.adjudication is not None:
        adjudication = lead.adjudication
        return _HumanAnswer(ADJUDICATED, adjudication.label, adjudication.at, lead, votes)
    labels = [j.label for j in votes]
    label = median_grade(labels) if lead.graded else majority_label(labels)
    kind = HUMAN if label is not None else HUMAN_TIE
    return _HumanAnswer(kind, label, _last(votes), lead, votes)


def _adjudicated_at(debate: DebateEvidence) -> datetime | None:
    return debate.adjudication.at if debate.adjudication is not None else None


def _review_incomplete(debate: DebateEvidence) -> bool:
    """A review with dated live judgments, fewer than it needs (no answer from it yet)."""
    return not _complete(debate) and _last(debate.judgments) is not None


class _PairFields(TypedDict):
    """The FinalLabel fields every resolution of a pair shares."""

    query_id: str
    doc_id: str
    original_grade: int | None
    machine_label: int | None
    machine_round: int | None


class _DebateFields(TypedDict):
    """The FinalLabel fields describing the deciding (or explaining) debate."""

    consensus_label: int | None
    consensus_round: int | None
    debate_status: str
    escalation_reason: str
    review_kind: str
    debate_id: int | None
    job_id: int | None
    models: tuple[str, ...]
    prompt_version: str
    annotators: tuple[str, ...]
    judgments: tuple[HumanJudgment, ...]
    adjudicator: str
    debated_at: datetime | None
    graded: bool
    reused: str


def reused_note(debate: DebateEvidence) -> str:
    """ "reused by job N from job M (debate D)" for a debate whose agreed label job N took over
    from debate D of job M ("reused by job N" when that debate is gone); "" otherwise."""
    if debate.settled_by != REUSED:
        return ""
    if debate.reused_from is None:
        return f"reused by job {debate.job_id}"
    job, source = debate.reused_from
    return f"reused by job {debate.job_id} from job {job} (debate {source})"


def _describe(
    debate: DebateEvidence, votes: tuple[HumanJudgment, ...] | None = None
) -> _DebateFields:
    votes = debate.judgments if votes is None else votes
    return {
        "consensus_label": debate.final_label if debate.status == AGREED else None,
        "consensus_round": debate.consensus_round if debate.status == AGREED else None,
        "debate_status": debate.status,
        "escalation_reason": debate.escalation_reason,
        "review_kind": debate.review_kind,
        "debate_id": debate.debate_id,
        "job_id": debate.job_id,
        "models": tuple(debate.models),
        "prompt_version": debate.prompt_version,
        "annotators": tuple(sorted({j.annotator for j in votes})),
        "judgments": tuple(sorted(votes, key=lambda j: (j.annotator, j.label))),
        "adjudicator": debate.adjudication.admin if debate.adjudication else "",
        "debated_at": debate.finished,
        "graded": debate.graded,
        "reused": reused_note(debate),
    }


def resolve_final_label(pair: PairEvidence) -> FinalLabel:
    """The final label of one pooled pair (rules in the module docstring).

    Returns a :class:`FinalLabel`; never raises for well-formed input.
    """
    own = [d for d in pair.debates if not d.votes_only]
    settled = [d for d in own if d.status in SETTLED]
    # Rule 3's debate: the most recently finished one; its consensus is the pair's machine
    # label whatever humans said (FinalLabel.machine_label).
    deciding = max(settled, key=_order_key) if settled else None
    agreed = deciding if deciding is not None and deciding.status == AGREED else None
    base: _PairFields = {
        "query_id": pair.query_id,
        "doc_id": pair.doc_id,
        "original_grade": pair.original_grade,
        "machine_label": agreed.final_label if agreed is not None else None,
        "machine_round": agreed.consensus_round if agreed is not None else None,
    }
    # 1-2. Humans: every review of the pair, its votes merged.
    human = _human_answer(pair.debates)
    if human is not None:
        described = _describe(human.debate, human.votes)
        if human.kind == HUMAN_TIE:
            return FinalLabel(**base, **described, label=None, source=UNRESOLVED, reason=HUMAN_TIE)
        return FinalLabel(
            **base, **described, label=human.label, source=human.kind, decided_at=human.at
        )
    if not own:
        return FinalLabel(**base, label=None, source=UNRESOLVED, reason=NOT_DEBATED)

    # 3. The most recently finished debate decides; 4. else the reason it cannot.
    if deciding is not None:
        debate = deciding
        if debate.status == AGREED:
            return FinalLabel(
                **base,
                **_describe(debate),
                label=debate.final_label,
                source=STAGE0 if debate.settled_by == STAGE0 else CONSENSUS,
                decided_at=debate.finished,
            )
        reason = REVIEW_INCOMPLETE if _review_incomplete(debate) else AWAITING_HUMAN
        if reason == AWAITING_HUMAN and debate.over_budget:
            reason = OVER_BUDGET
        return FinalLabel(**base, **_describe(debate), label=None, source=UNRESOLVED, reason=reason)
    open_debates = [d for d in own if d.status != FAILED]
    debate = max(open_debates or own, key=lambda d: d.debate_id)
    reason = PENDING if open_debates else FAILED
    return FinalLabel(**base, **_describe(debate), label=None, source=UNRESOLVED, reason=reason)


@dataclass(frozen=True, slots=True)
class ResolutionSummary:
    """Counts over a pool's final labels. ``unresolved_share`` is unresolved / pairs (0 for
    an empty pool); ``by_source`` and ``by_reason`` count pairs."""

    pairs: int
    resolved: int
    unresolved: int
    by_source: dict[str, int]
    by_reason: dict[str, int]
    new_relevant: int
    new_nonrelevant: int
    kept_original: int
    overrides_consensus: int
    disagree_with_original: int
    # Judged pairs whose original grade a human verdict replaced (FinalLabel.corrects_original).
    corrections: int = 0

    @property
    def unresolved_share(self) -> float:
        return self.unresolved / self.pairs if self.pairs else 0.0


def summarise(labels: Iterable[FinalLabel]) -> ResolutionSummary:
    """Count final labels by source and reason; "new" labels are resolved pairs that were
    unjudged in the original qrels (they are the rows a refinement adds); ``corrections``
    the judged pairs whose grade a human verdict replaces, ``kept_original`` the other
    resolved judged pairs."""
    labels = list(labels)
    by_source = Counter(f.source for f in labels)
    by_reason = Counter(f.reason for f in labels if not f.resolved)
    new = [f.label for f in labels if f.label is not None and f.original_grade is None]
    return ResolutionSummary(
        pairs=len(labels),
        resolved=sum(1 for f in labels if f.resolved),
        unresolved=sum(1 for f in labels if not f.resolved),
        by_source=dict(sorted(by_source.items())),
        by_reason=dict(sorted(by_reason.items())),
        new_relevant=sum(1 for label in new if label > 0),
        new_nonrelevant=sum(1 for label in new if label <= 0),
        kept_original=sum(
            1
            for f in labels
            if f.resolved and f.original_grade is not None and not f.corrects_original
        ),
        overrides_consensus=sum(1 for f in labels if f.overrides_consensus),
        disagree_with_original=sum(1 for f in labels if f.disagrees_with_original),
        corrections=sum(1 for f in labels if f.corrects_original),
    )


def check_relevant_grade(relevant_grade: object) -> int:
    """``relevant_grade`` if it is a whole number from 1 to 127 (booleans excluded);
    ValueError otherwise, in the words of :func:`corpora.formats.relevance_level_check`."""
    return relevance_level_check(relevant_grade, what="the relevant grade")


def final_grade(label: FinalLabel, relevant_grade: int = 1) -> int | None:
    """The grade ``label`` gives a pair in refined qrels: a graded label as it is (0..G), a
    binary one as ``relevant_grade`` (1) or 0 (0); None when unresolved. E.g. on TREC DL,
    whose binary measures count grade >= 2, a binary "relevant" should become 2."""
    if label.label is None:
        return None
    if label.graded:
        return max(label.label, 0)
    return relevant_grade if label.label > 0 else 0


def refined_rows(
    original: Iterable[tuple[str, str, int]],
    labels: Sequence[FinalLabel],
    *,
    relevant_grade: int = 1,
) -> list[tuple[str, str, int]]:
    """The refined qrels: every original row, plus each resolved label of a pair the
    original qrels do not judge, as :func:`final_grade` (binary: ``relevant_grade`` or 0;
    graded: the grade). Sorted by query id, then doc id (code point). A re-assessed pair
    that was judged keeps its original grade, unless its label is a correction
    (:attr:`FinalLabel.corrects_original`): then it takes the label's grade."""
    rows = {(q, d): g for q, d, g in original}
    for label in labels:
        grade = final_grade(label, relevant_grade)  # None when unresolved
        key = (label.query_id, label.doc_id)
        if grade is not None and (key not in rows or label.corrects_original):
            rows[key] = grade
    return [(q, d, g) for (q, d), g in sorted(rows.items())]


def beyond_budget_mark(label: FinalLabel) -> FinalLabel:
    """``label`` (a never-debated pair's, reason ``not debated``) with the reason
    :data:`BEYOND_BUDGET`: its pool's budget leaves it unjudged by design. Raises ValueError
    for a resolved label or another reason (a debated pair is never beyond the budget)."""
    if label.resolved or label.reason != NOT_DEBATED:
        raise ValueError(
            f"only a never-debated pair can be beyond the budget, not {label.query_id} "
            f"{label.doc_id} ({label.reason or label.source})"
        )
    return replace(label, reason=BEYOND_BUDGET)


def budget_split(*, pairs: int, budget: int) -> tuple[int, int]:
    """(within, labelled beyond) for a budgeted pool: of its ``pairs`` counted by a
    refinement (all but those beyond the budget: :func:`assess.refined.refine.budget_holes`),
    ``within``
    those the pool's jobs debated, at most the budget's first ``budget`` pairs of the pool's
    order; ``labelled beyond`` the rest, pairs past the budget that have a label all the
    same (from a job on another pool of the dataset, whose labels are reused, or debated
    before the budget was set or lowered). Both >= 0."""
    within = min(budget, pairs)
    return within, pairs - within
