"""Read-only queries for the judging, adjudication, agreement and annotator pages.

Human labels of one pair: the adjudication when an admin decided it, else the majority of
its live (not undone) judgments once the pair has all the judgments it needs (on a graded
job's pair: their median grade, :func:`assess.review.agreement.median_grade`); a tie waits
for an adjudication.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from debates.audit_design import stratum_name
from debates.engine import evidence_spans
from debates.llm.config import model_shown
from debates.models import Debate, DebateJob, Turn
from debates.rubric import grade_names, rubric

from ..models import Adjudication, GoldPair, Judgment, ReviewItem
from ..models.simulated import JOB_SIMULATED_SCOPE, simulated_sentence
from . import agreement
from .agreement import Proportion
from .audit import audit_pilot_waiting
from .budget import budget_coverage
from .gold_queue import gold_ahead
from .highlight import query_terms, segments, term_spans
from .human_labels import live_labels, review_final_labels
from .same_pair import judged_elsewhere
from .services import undo_window_seconds
from .simulated_marks import job_simulated_labels

LABEL_TEXT = {1: "relevant", 0: "not relevant", None: "unreadable reply"}


def label_text(label: int | None, top_grade: int = 1) -> str:
    """How a human label reads: "relevant" / "not relevant" on a binary pair, the rubric's
    name on a graded one (top grade ``top_grade`` 2..4, e.g. 2 -> "highly relevant")."""
    if label is None or top_grade == 1:
        return LABEL_TEXT.get(label, f"grade {label}")
    names = grade_names(top_grade)
    return names[label] if 0 <= label < len(names) else f"grade {label}"


def job_top_grade(job: DebateJob) -> int:
    """The top grade G of ``job``'s labels: its ``max_grade`` on a graded job, 1 on a binary
    one."""
    return job.max_grade if job.scale == DebateJob.Scale.GRADED else 1


# Keyed by the stored value (Debate.escalation_reason is a plain string).
REASON_TEXT: dict[str, str] = {
    Debate.Reason.DISAGREEMENT: (
        "The two agents still disagreed after the last round ({rounds} of {rounds})."
    ),
    Debate.Reason.UNPARSED: (
        "A reply could not be read even after asking again, so the debate stopped."
    ),
    Debate.Reason.TRUNCATED: (
        "A reply was cut at its token budget, even when asked again with twice the budget, "
        "so the debate stopped."
    ),
    Debate.Reason.TOO_LONG: (
        "The pair's texts are too long for the agents' context (even with an empty "
        "document), so no agent could read it: it needs a human."
    ),
    Debate.Reason.SUSPECT_ORIGINAL: (
        "The agents agreed against the benchmark's original label (a check of the judged "
        "pairs): is the original label wrong?"
    ),
}


# ---------------------------------------------------------------------------------------------
# The judging page


@dataclass(frozen=True, slots=True)
class EvidenceView:
    """One quoted evidence sentence and whether it was found in the chunk."""

    text: str
    found: bool


@dataclass(frozen=True, slots=True)
class TurnView:
    """One agent's turn as the page shows it. ``css`` is "a" or "b" (the agent's colour)."""

    agent: str
    stance: str
    label: int | None
    label_text: str
    argument: str
    evidence: list[EvidenceView]
    model: str
    parse_error: str
    css: str
    reasoning: str = ""  # the reply's reasoning, shown collapsed ("" when none)
    reasoning_tokens: int = 0
    # P(label) from the reply's token logprobs, shown beside the label; None: not known.
    label_probability: float | None = None


@dataclass(frozen=True, slots=True)
class RoundView:
    """One debate round: both agents' turns, and whether their labels agreed."""

    number: int
    turns: list[TurnView]
    agreed: bool


@dataclass(frozen=True, slots=True)
class GradeChoice:
    """One key of the judging page: the label sent, its key, its name and (graded pairs)
    the rubric's line for it."""

    label: int
    name: str
    rubric: str


@dataclass(frozen=True, slots=True)
class PairView:
    """What a human sees of one review item.

    ``chunk`` is a list of :class:`~assess.review.highlight.Segment` (kinds "q" for query terms, "a"
    and "b" for the evidence either agent quoted). ``rounds`` is empty when ``show_debate``
    is False (audits: the human judges without the agents' agreeing labels).
    """

    item: ReviewItem
    debate: Debate | None
    query_id: str
    query: str
    answers: list[str]
    doc_id: str
    title: str
    chunk: list
    show_debate: bool
    rounds: list[RoundView]
    why: str
    chunk_truncated: bool
    top_grade: int = 1
    choices: list[GradeChoice] = field(default_factory=list)

    @property
    def graded(self) -> bool:
        return self.top_grade > 1


def grade_choices(top_grade: int) -> list[GradeChoice]:
    """The judging page's labels, highest first: binary (``top_grade`` 1) 1 relevant, 0 not
    relevant; graded 0..G with the rubric of :func:`debates.rubric.rubric` (G = 2..4)."""
    if top_grade == 1:
        return [GradeChoice(1, "relevant", ""), GradeChoice(0, "not relevant", "")]
    names, lines = grade_names(top_grade), rubric(top_grade)
    return [GradeChoice(g, names[g], lines[g]) for g in range(top_grade, -1, -1)]


def _turn_view(turn: Turn, spans: dict[str, list[tuple[int, int]]]) -> TurnView:
    evidence = [EvidenceView(str(q), bool(spans[str(q)])) for q in (turn.evidence or [])]
    return TurnView(
        agent=turn.agent,
        stance=turn.stance,
        label=turn.label,
        # A graded debate's grade 2..G is shown as such, not as an unreadable reply.
        label_text=LABEL_TEXT.get(turn.label, f"grade {turn.label}"),
        argument=turn.argument,
        evidence=evidence,
        model=model_shown(turn.model),
        parse_error=turn.parse_error,
        css=turn.agent.lower(),
        reasoning=turn.reasoning,
        reasoning_tokens=turn.reasoning_tokens,
        label_probability=turn.label_probability if turn.label is not None else None,
    )


def pair_view(*, item: ReviewItem, show_debate: bool | None = None) -> PairView:
    """The query, reference answers, chunk (query terms and evidence highlighted) and, unless
    hidden, the debate round by round with why it was escalated, and the labels the human
    may give (``choices``: 1/0, or on a graded job's pair the grades G..0 with the rubric).

    ``show_debate`` defaults to True for escalated items and False for audits: an audit asks
    for a judgment blind to the agents' consensus, and the page does not say it is an audit.
    A suspect original label (a check-judged job's consensus against the qrels) is shown as
    an audit is: agents who agreed, and why it escalated, would tell the original label.
    Never includes other humans' labels. A gold item (a known-answer pair) is shown as an
    audit is, the pair alone: nothing on the page tells them apart.
    """
    if item.debate_id is None:
        return _gold_pair_view(item)
    debate = (
        Debate.objects.select_related("job", "pair__query", "pair__document")
        .prefetch_related("turns")
        .get(pk=item.debate_id)
    )
    if show_debate is None:
        show_debate = (
            item.kind == ReviewItem.Kind.ESCALATED
            and debate.escalation_reason != Debate.Reason.SUSPECT_ORIGINAL
        )
    query, document = debate.pair.query, debate.pair.document
    chunk = document.text
    marks = [(s, e, "q") for s, e in term_spans(chunk, query_terms(query.text))]
    rounds: list[RoundView] = []
    if show_debate:
        turns = sorted(debate.turns.all(), key=lambda t: (t.round, t.agent))
        # Each distinct quote is located once: agents repeat their quotes round after round.
        spans: dict[str, list[tuple[int, int]]] = {}
        for turn in turns:
            for quote in map(str, turn.evidence or []):
                if quote not in spans:
                    spans[quote] = evidence_spans(chunk, [quote])
                marks += [(s, e, turn.agent.lower()) for s, e in spans[quote]]
        by_round: dict[int, list[TurnView]] = defaultdict(list)
        for turn in turns:
            by_round[turn.round].append(_turn_view(turn, spans))
        for number in sorted(by_round):
            views = by_round[number]
            labels = {t.label for t in views}
            agreed = len(views) == 2 and len(labels) == 1 and None not in labels
            rounds.append(RoundView(number, views, agreed))
    why = ""
    if show_debate and debate.escalation_reason in REASON_TEXT:
        why = REASON_TEXT[debate.escalation_reason].format(rounds=debate.job.rounds)
    return PairView(
        item=item,
        debate=debate,
        query_id=query.query_id,
        query=query.text,
        answers=[str(a) for a in (query.answers or [])],
        doc_id=document.doc_id,
        title=document.title,
        chunk=segments(chunk, marks),
        show_debate=show_debate,
        rounds=rounds,
        why=why,
        chunk_truncated=debate.chunk_truncated,
        top_grade=job_top_grade(debate.job),
        choices=grade_choices(job_top_grade(debate.job)),
    )


def _gold_pair_view(item: ReviewItem) -> PairView:
    gold = GoldPair.objects.select_related("job", "query", "document").get(pk=item.gold_id or 0)
    query, document = gold.query, gold.document
    marks = [(s, e, "q") for s, e in term_spans(document.text, query_terms(query.text))]
    return PairView(
        item=item,
        debate=None,
        query_id=query.query_id,
        query=query.text,
        answers=[str(a) for a in (query.answers or [])],
        doc_id=document.doc_id,
        title=document.title,
        chunk=segments(document.text, marks),
        show_debate=False,
        rounds=[],
        why="",
        chunk_truncated=False,
        top_grade=job_top_grade(gold.job),
        choices=grade_choices(job_top_grade(gold.job)),
    )


@dataclass(frozen=True, slots=True)
class JudgingStatus:
    """The annotator's judgments saved today (live ones) and the pairs still waiting for them."""

    today: int
    queue: int


def today_start(now: datetime) -> datetime:
    """Midnight of ``now``'s day in the site's time zone (the start of an annotator's
    "today" counts)."""
    local = timezone.localtime(now)
    return local.replace(hour=0, minute=0, second=0, microsecond=0)


def judging_status(
    *, annotator: Any, exclude_ids: list[int] | tuple[int, ...] = (), now: datetime | None = None
) -> JudgingStatus:
    """Counts for the judging page's status line.

    ``queue``: pairs this annotator could still be given (needing judgments, not decided by
    an admin, not judged by them, not skipped, and not leased to someone else), the one they
    hold included, plus the known-answer pairs they will meet among them
    (:func:`assess.review.gold_queue.gold_ahead`): every answer lowers it by one, so the
    count never tells a gold pair from another.
    """
    now = now or timezone.now()
    today = Judgment.objects.filter(
        annotator=annotator, undone_at__isnull=True, created__gte=today_start(now)
    ).count()
    # Open items minus the few unavailable ones: both counts use small index ranges (the
    # partial index review_open_by_age, leases, this annotator's judgments), so the status
    # line stays cheap with a large queue.
    # Debates' items only: a known-answer pair is not part of the work to be done.
    open_items = ReviewItem.objects.filter(
        debate__isnull=False, judgments_done__lt=F("judgments_needed")
    )
    still_open = Q(item__judgments_done__lt=F("item__judgments_needed"))
    unavailable = (
        open_items.filter(lease_expires_at__gte=now)
        .exclude(leased_to=annotator)
        .values_list("pk")
        .union(
            # No ORDER BY inside a UNION (Judgment is ordered by default; SQLite refuses it).
            Judgment.objects.filter(annotator=annotator, undone_at=None)
            .filter(still_open)
            .order_by()
            .values_list("item_id"),
            Adjudication.objects.filter(still_open).values_list("item_id"),
            open_items.filter(pk__in=list(exclude_ids)).values_list("pk"),
            # Labels sent back for re-judging never come back to their annotator.
            Judgment.objects.filter(annotator=annotator, returned=True)
            .filter(still_open)
            .order_by()
            .values_list("item_id"),
            # Nor does a debate's pair they were given as a known-answer pair of its job.
            open_items.filter(Exists(_gold_twins(annotator))).values_list("pk"),
            # Nor a query and chunk they judged in another job (assess.review.same_pair).
            open_items.filter(Exists(judged_elsewhere(annotator))).values_list("pk"),
        )
    )
    queue = open_items.count() - unavailable.count()
    queue += _gold_ahead_count(annotator, open_items, unavailable, now)
    return JudgingStatus(today=today, queue=queue)


def _gold_twins(annotator: Any) -> QuerySet[GoldPair]:
    """The gold pairs given to ``annotator`` that are the pair of the outer review item's
    debate, in its job (for ``Exists`` over debates' items)."""
    return GoldPair.objects.filter(
        items__assigned_to=annotator,
        job_id=OuterRef("debate__job_id"),
        query_id=OuterRef("debate__pair__query_id"),
        document_id=OuterRef("debate__pair__document_id"),
    )


def _gold_ahead_count(annotator: Any, open_items, unavailable, now: datetime) -> int:
    """The gold pairs ``annotator`` will meet among the open pairs left for them, summed
    over the jobs with a gold share that have such pairs."""
    jobs = list(
        DebateJob.objects.filter(
            gold_share__gt=0, pk__in=open_items.values("debate__job")
        ).select_related("pool")
    )
    if not jobs:
        return 0
    ids = [pk for (pk,) in unavailable]
    mine = open_items.filter(debate__job__in=jobs)
    real = Counter(dict(mine.values_list("debate__job").annotate(n=Count("pk")).order_by()))
    real.subtract(
        dict(mine.filter(pk__in=ids).values_list("debate__job").annotate(n=Count("pk")).order_by())
    )
    return sum(gold_ahead(annotator=annotator, job=job, real=real[job.pk], now=now) for job in jobs)


def undoable_judgment(*, annotator: Any, now: datetime | None = None) -> Judgment | None:
    """The judgment ``u`` on the judging page undoes: ``annotator``'s newest live judgment
    saved within :func:`assess.review.services.undo_window_seconds`, or None. The page carries its
    ``client_id`` so that the undo request names it (a re-sent undo cannot undo the one
    before; see :func:`assess.review.services.judgment_undo`)."""
    now = now or timezone.now()
    newest = (
        Judgment.objects.filter(annotator=annotator, undone_at__isnull=True)
        .order_by("-created", "-pk")
        .first()
    )
    if newest is None or newest.created < now - timedelta(seconds=undo_window_seconds()):
        return None
    return newest


# ---------------------------------------------------------------------------------------------
# Human labels, agreement, audits


@dataclass(frozen=True, slots=True)
class PairKappa:
    """Cohen's kappa of one pair of annotators (usernames, ``annotator_a`` sorting first)
    over the ``items`` pairs both of them judged; None when undefined (see
    :func:`assess.review.agreement.cohen_kappa`)."""

    annotator_a: str
    annotator_b: str
    items: int
    kappa: float | None
    weighted_kappa: float | None = None


@dataclass(frozen=True, slots=True)
class JobAgreement:
    """Agreement among humans on one job's pairs judged more than once.

    ``pair_kappas`` holds Cohen's kappa for every pair of annotators who judged a pair in
    common, most shared pairs first (then by username); ``kappa_pair`` is the first of them
    and ``kappa`` its value, the job's headline kappa. ``alpha`` is Krippendorff's alpha
    (nominal) over all judgments, any number of annotators. On a graded job (``graded``)
    the ordinal figures come next to them: ``alpha_ordinal`` (Krippendorff's alpha at the
    ordinal level) and each pair's quadratic weighted kappa (``weighted_kappa``, headline
    in ``kappa_weighted``). Values are None when undefined (too few pairs, or one label
    only).
    """

    pairs: int
    annotators: int
    kappa: float | None
    alpha: float | None
    disagreements: int
    kappa_pair: PairKappa | None = None
    pair_kappas: list[PairKappa] = field(default_factory=list)
    graded: bool = False
    alpha_ordinal: float | None = None
    kappa_weighted: float | None = None


@dataclass(frozen=True, slots=True)
class AuditSummary:
    """Humans vs the agents' consensus on one job's audited pairs.

    ``sampled`` audit items, ``judged`` of them with a human label; ``agreement`` the share
    where human and consensus agree, ``kappa`` Cohen's kappa between them, ``error`` the
    share where the agents agreed on a wrong label with its 95% Wilson interval. On a
    graded job (``graded``) labels are grades: ``error`` counts any grade difference,
    ``side_error`` only a different side of relevance (grade 0 vs >= 1), and
    ``kappa_weighted`` is the quadratic weighted kappa of human vs consensus grades.
    """

    share: float
    sampled: int
    judged: int
    agreement: float | None
    kappa: float | None
    # Proportion by name: the field ``agreement`` hides the module in the class body.
    error: Proportion
    graded: bool = False
    side_error: Proportion | None = None
    kappa_weighted: float | None = None


def job_agreement(*, job: DebateJob) -> JobAgreement:
    """Cohen's kappa and Krippendorff's alpha of the humans on ``job``'s pairs with at least
    two live judgments (see :class:`JobAgreement`).

    Cohen's kappa (J. Cohen, "A coefficient of agreement for nominal scales", Educational and
    Psychological Measurement 20(1), 1960) is defined for two fixed raters: each annotator
    pair is scored on the pairs both judged, annotator X's label against annotator Y's,
    whoever judged first (:func:`assess.review.agreement.cohen_kappa`; on a graded job also
    the quadratic weighted kappa, :func:`assess.review.agreement.weighted_kappa`, from
    scikit-learn, and Krippendorff's alpha at the ordinal level). The headline ``kappa`` is
    the pair with the most pairs in common.

    Worked example (tests/assess/test_agreement_kappa_pairs_the_same_two_annotators.py): on four
    pairs alice says 1, 1, 1, 0 and bob 1, 0, 0, 0, bob judging first on pairs 3 and 4.
    Alice vs bob: p_o = 2/4 (pairs 1 and 4 agree); alice says 1 on 3/4, bob on 1/4, so
    p_e = 3/4 * 1/4 + 1/4 * 3/4 = 0.375 and kappa = (0.5 - 0.375) / (1 - 0.375) = 0.2.
    Pairing the first judgment of each pair with the second instead mixes both annotators
    into each "rater" (1, 1, 0, 0 against 1, 0, 1, 0: p_o = p_e = 0.5, kappa 0), which is
    not Cohen's kappa.
    """
    graded = job.scale == DebateJob.Scale.GRADED
    labels = live_labels(ReviewItem.objects.filter(debate__job=job))
    multi = {item: pairs for item, pairs in labels.items() if len(pairs) >= 2}
    units = {item: dict(pairs) for item, pairs in multi.items()}
    annotators = {a for pairs in multi.values() for a, _ in pairs}
    names = dict(
        get_user_model()
        .objects.filter(pk__in=list(annotators))
        .values_list("pk", get_user_model().USERNAME_FIELD)
    )
    # {(name X, name Y): [(X's label, Y's label), ...]}, X sorting first, over shared pairs.
    shared: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for unit in units.values():
        by_name = sorted((str(names.get(a, a)), label) for a, label in unit.items())
        for i, (name_x, label_x) in enumerate(by_name):
            for name_y, label_y in by_name[i + 1 :]:
                shared[(name_x, name_y)].append((label_x, label_y))
    pair_kappas = sorted(
        (
            PairKappa(
                x,
                y,
                len(rows),
                agreement.cohen_kappa(rows),
                agreement.weighted_kappa(rows) if graded else None,
            )
            for (x, y), rows in shared.items()
        ),
        key=lambda row: (-row.items, row.annotator_a, row.annotator_b),
    )
    headline = pair_kappas[0] if pair_kappas else None
    split = sum(1 for pairs in multi.values() if len({label for _, label in pairs}) > 1)
    return JobAgreement(
        pairs=len(multi),
        annotators=len(annotators),
        kappa=headline.kappa if headline else None,
        alpha=agreement.krippendorff_alpha(units),
        disagreements=split,
        kappa_pair=headline,
        pair_kappas=pair_kappas,
        graded=graded,
        alpha_ordinal=agreement.krippendorff_alpha(units, level="ordinal") if graded else None,
        kappa_weighted=headline.weighted_kappa if headline else None,
    )


def job_audit(*, job: DebateJob) -> AuditSummary:
    """How often humans agree with the agents' consensus on the audited pairs of ``job``,
    and the estimated rate of agreed-but-wrong labels (95% Wilson interval; the audit items
    not judged yet count as missing at random within their stratum's items of the same
    inclusion, :func:`assess.review.agreement.audit_error_rate`)."""
    audits = ReviewItem.objects.filter(debate__job=job, kind=ReviewItem.Kind.AUDIT)
    columns = ("debate_id", "debate__final_label", "debate__consensus_round", "inclusion")
    rows = {row[0]: row[1:] for row in audits.values_list(*columns)}
    human = review_final_labels(job=job)
    # (human label or None, consensus, stratum, inclusion) of every audited agreed label.
    drawn = [
        (
            human[debate_id][0] if debate_id in human else None,
            label,
            stratum_name(label, round_),
            pi or job.audit_share or 1.0,
        )
        for debate_id, (label, round_, pi) in rows.items()
        if label is not None
    ]
    pairs = [(h, c) for h, c, _, _ in drawn if h is not None]
    # Weighted by 1 / inclusion: a Neyman audit draws error-prone units more often.
    strata = [name for _, _, name, _ in drawn]
    inclusion = [pi for *_, pi in drawn]
    agree = sum(1 for h, c in pairs if h == c)
    graded = job.scale == DebateJob.Scale.GRADED
    return AuditSummary(
        share=job.audit_share,
        sampled=len(rows),
        judged=len(pairs),
        agreement=agree / len(pairs) if pairs else None,
        kappa=agreement.cohen_kappa(pairs),
        error=agreement.audit_error_rate(
            [(h, c) for h, c, _, _ in drawn], inclusion=inclusion, strata=strata
        ),
        graded=graded,
        side_error=(
            agreement.audit_error_rate(
                [(None if h is None else int(h > 0), int(c > 0)) for h, c, _, _ in drawn],
                inclusion=inclusion,
                strata=strata,
                # Strata join by grade, as the intervals join them, not by side.
                collapse_on=[c for _, c, _, _ in drawn],
            )
            if graded
            else None
        ),
        kappa_weighted=agreement.weighted_kappa(pairs) if graded else None,
    )


def job_review_notes(job: DebateJob) -> list[str]:
    """Plain-text lines on ``job``'s review queue and audit estimate, for
    ``debate_job ID progress`` (registered with :func:`debates.services.progress.
    job_notes_register`): the "SIMULATED labels" line when the job's debaters or annotators
    are simulated, the queue counts, then the audit's estimated error rate of the consensus
    labels with its 95% Wilson interval once audited pairs are judged, and what a Neyman
    audit waits for (:func:`assess.review.audit.audit_pilot_waiting`)."""
    queue = job_queue_counts(job=job)
    audit = job_audit(job=job)
    simulated = simulated_sentence(job_simulated_labels(job=job), scope=JOB_SIMULATED_SCOPE)
    lines = [f"{simulated}."] if simulated else []
    lines.append(
        f"human review: {queue.escalated:,} escalated ({queue.escalated_done:,} judged), "
        f"{queue.audits:,} audited agreed labels ({queue.audits_done:,} judged), "
        f"audit share {audit.share:.0%}"
    )
    budget = job_budget(job=job)
    if budget.budget is not None:
        covered = f"{budget.covered:.3f}" if budget.covered is not None else "n/a"
        lines.append(
            f"human budget: {budget.budget:,} of {budget.items:,} pairs, {budget.over:,} over "
            f"the human budget, covering {covered} of their total impact"
        )
    error = audit.error
    if error.n:
        lines.append(
            f"audit: estimated error rate of consensus labels {error.estimate:.3f} "
            f"({error.successes:,} of {error.n:,} audited pairs{agreement.weighting_note(error)}), "
            "95% Wilson interval "
            f"{error.low:.3f}-{error.high:.3f}"
        )
    else:
        lines.append(f"audit: {audit.sampled:,} agreed pairs sampled, none judged yet")
    if waiting := audit_pilot_waiting(job=job):
        lines.append(f"audit: {waiting}")
    return lines


@dataclass(frozen=True, slots=True)
class BudgetSummary:
    """One job's human budget : ``budget`` pairs (None: no limit) of ``items``
    review items; ``over`` items wait beyond it; ``covered`` is the share of the items'
    total impact on the benchmark that the budget covers (None when the total is 0)."""

    budget: int | None
    items: int
    over: int
    covered: float | None


def job_budget(*, job: DebateJob) -> BudgetSummary:
    """The human budget of ``job`` over its review items, in budget order
    (:func:`assess.review.services.review_budget_renumber`)."""
    impacts = list(
        ReviewItem.objects.filter(debate__job=job)
        .order_by("budget_rank", "pk")
        .values_list("impact", flat=True)
    )
    budget = job.human_budget
    over = max(0, len(impacts) - budget) if budget is not None else 0
    return BudgetSummary(budget, len(impacts), over, budget_coverage(impacts, budget))


@dataclass(frozen=True, slots=True)
class QueueCounts:
    """One job's review items by kind and state."""

    escalated: int
    escalated_done: int
    audits: int
    audits_done: int
    leased: int


def job_queue_counts(*, job: DebateJob, now: datetime | None = None) -> QueueCounts:
    """Review items of ``job``: escalated and audit items, how many have all their judgments
    (or an adjudication), and how many are leased right now."""
    now = now or timezone.now()
    done = Q(judgments_done__gte=F("judgments_needed")) | Q(adjudication__isnull=False)
    counts = ReviewItem.objects.filter(debate__job=job).aggregate(
        escalated=Count("pk", filter=Q(kind=ReviewItem.Kind.ESCALATED)),
        escalated_done=Count("pk", filter=Q(kind=ReviewItem.Kind.ESCALATED) & done),
        audits=Count("pk", filter=Q(kind=ReviewItem.Kind.AUDIT)),
        audits_done=Count("pk", filter=Q(kind=ReviewItem.Kind.AUDIT) & done),
        leased=Count("pk", filter=Q(lease_expires_at__gt=now)),
    )
    return QueueCounts(**counts)
