"""What stage 0 did on one job, measured: the pairs it settled on each side, the LLM calls
that saved, the audited error of its labels against alpha, and the relevant pairs (holes)
its "not relevant" labels lost. The job page's stage-0 panel, the API's job ``stage0_report``
and ``debate_job ID progress`` all read :func:`job_stage0_report`. Reads only.

Stage 0's guarantee (:mod:`debates.stage0_band`: error <= alpha among the labels it settles,
with probability >= 1 - delta, on pairs exchangeable with its band's human labels) bounds
the share of *wrong labels*, not the relevant pairs lost: on a pool of holes a few percent
relevant, settling nearly every pair "not relevant" keeps the error far below alpha and can
still lose many of the relevant holes (docs/debates-and-backends.md, "Stage 0 first"). So
the report says both, from the audit of the stage-0 strata ("label L, round 0", audited at
the job's audit share like any agreed label):

- the audited error rate of stage-0 labels, weighted by 1 / inclusion under a Neyman audit,
  with its 95% Wilson interval (:func:`assess.review.agreement.audit_error_rate`, the
  audit's own estimator), against the job's alpha;
- of the audited stage-0 "not relevant" labels, how many people found relevant, and the
  estimated relevant pairs among all the settled "not relevant" ones (that side's audited
  error rate and its interval times the labels it settled).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from django.db.models import Count, Q, Sum
from django.http import HttpRequest
from django.template.loader import render_to_string

from debates.audit_design import stratum_name
from debates.models import Debate, DebateJob
from debates.stage0_band import band_load

from ..models import ReviewItem
from .agreement import Proportion, audit_error_rate, weighting_note
from .human_labels import review_final_labels
from .simulated_marks import simulated_items_count


@dataclass(frozen=True, slots=True)
class Stage0Report:
    """One job's stage 0, measured (see the module docstring).

    ``pairs`` the job's debates; ``relevant``/``not_relevant`` the labels stage 0 settled on
    each side; ``reused`` the pairs that took an earlier job's outcome (no debate, no LLM
    call: :mod:`debates.services.reuse`); ``note`` the job's stage-0 note; ``calls``: the
    job's LLM calls (stage 0 makes none); ``alpha``, ``delta``, ``beta`` (the share of holes
    its band may give up; 1: not bounded),
    ``band_labels``: the guarantee and the human labels its band was set on (0 before
    routing); ``sampled`` stage-0 labels drawn for the audit, ``error`` the audited error
    rate of the judged ones (``n`` 0: none judged yet); ``not_relevant_audited`` the judged
    audits of "not relevant" labels, ``found_relevant`` of them people found relevant, and
    ``lost`` the estimated relevant pairs among all ``not_relevant`` labels with its 95%
    interval (None without a judged one); ``simulated_human``: judged audits the simulated
    annotator took part in."""

    pairs: int
    relevant: int
    not_relevant: int
    calls: int
    alpha: float
    delta: float
    band_labels: int
    sampled: int
    error: Proportion
    not_relevant_audited: int
    found_relevant: int
    lost: tuple[float, float, float] | None
    simulated_human: int
    reused: int = 0
    note: str = ""
    beta: float = 1.0

    @property
    def scope(self) -> str:
        """What this job's guarantee bounds, in words (:func:`guarantee_scope`)."""
        return guarantee_scope(self.beta)

    @property
    def settled(self) -> int:
        """The pairs stage 0 settled (both sides)."""
        return self.relevant + self.not_relevant

    @property
    def debated(self) -> int:
        """The job's pairs debated: neither settled by stage 0 nor reused from an earlier
        job."""
        return self.pairs - self.settled - self.reused

    @property
    def calls_per_pair(self) -> float | None:
        """LLM calls per pair of the job (None for a job without pairs)."""
        return self.calls / self.pairs if self.pairs else None

    @property
    def calls_per_debated_pair(self) -> float | None:
        """LLM calls per pair stage 0 did not settle (None when it settled every pair)."""
        return self.calls / self.debated if self.debated else None

    @property
    def within_alpha(self) -> bool | None:
        """Whether the audited error rate is at most alpha (None: nothing judged yet)."""
        return None if self.error.estimate is None else self.error.estimate <= self.alpha

    def as_json(self) -> dict[str, Any]:
        """The API's ``stage0_report``: ``{"pairs", "settled": {"relevant",
        "not_relevant"}, "reused", "debated", "llm_calls_per_pair", "llm_calls_per_debated_pair",
        "alpha", "delta", "beta", "band_labels", "audit": {"sampled", "error": {"successes", "n",
        "estimate", "low", "high", "confidence", "weighted", "n_effective"}, "within_alpha"},
        "not_relevant_audited", "found_relevant", "lost_relevant": {"estimate", "low",
        "high"} | null, "simulated_human_labels", "guarantee"}``."""
        lost = self.lost
        return {
            "pairs": self.pairs,
            "settled": {"relevant": self.relevant, "not_relevant": self.not_relevant},
            "reused": self.reused,
            "debated": self.debated,
            "llm_calls_per_pair": self.calls_per_pair,
            "llm_calls_per_debated_pair": self.calls_per_debated_pair,
            "alpha": self.alpha,
            "delta": self.delta,
            "band_labels": self.band_labels,
            "audit": {
                "sampled": self.sampled,
                "error": asdict(self.error),
                "within_alpha": self.within_alpha,
            },
            "not_relevant_audited": self.not_relevant_audited,
            "found_relevant": self.found_relevant,
            "lost_relevant": (
                None if lost is None else {"estimate": lost[0], "low": lost[1], "high": lost[2]}
            ),
            "simulated_human_labels": self.simulated_human,
            "guarantee": self.scope,
            "beta": self.beta,
        }


#: What the guarantee does not cover when no share of holes is bounded (beta 1), said
#: wherever the report is shown.
GUARANTEE_SCOPE = (
    "the guarantee bounds the share of wrong labels among the pairs stage 0 settled, not "
    "the relevant pairs (holes) it lost by settling them not relevant"
)


def guarantee_scope(beta: float) -> str:
    """What stage 0's guarantee bounds at ``beta`` (the chance its band lets a relevant pair be
    settled not relevant; 1 or more: not bounded, :data:`GUARANTEE_SCOPE`). Both bounds are
    rates for pairs like its band's human labels, which a job's own shares scatter around;
    the audit counts what this job's labels got wrong and the holes they lost."""
    if beta >= 1.0:
        return GUARANTEE_SCOPE
    return (
        "the guarantee bounds the error rate of stage 0's labels and the chance that a "
        f"relevant pair (hole) is settled not relevant, at most {beta:g}, both for pairs like "
        "its band's human labels (a job's own shares scatter around them); the audit counts "
        'the holes its "not relevant" labels lost'
    )


def job_stage0_report(*, job: DebateJob) -> Stage0Report | None:
    """:class:`Stage0Report` of ``job``; None for a job launched without stage 0. The audit's
    human labels are the review's (:func:`assess.review.human_labels.review_final_labels`:
    an adjudication, or the majority of a complete item's judgments), read as relevant at
    grade >= 1; stage 0's own labels are 0 or 1."""
    if not job.stage0:
        return None
    debates = Debate.objects.filter(job=job)
    stage0 = Q(settled_by="stage0", status=Debate.Status.AGREED)
    counts = debates.aggregate(
        pairs=Count("pk"),
        relevant=Count("pk", filter=stage0 & Q(final_label__gte=1)),
        not_relevant=Count("pk", filter=stage0 & Q(final_label=0)),
        reused=Count("pk", filter=Q(settled_by="reused")),
        calls=Sum("calls"),
    )
    audits = ReviewItem.objects.filter(
        debate__job=job, kind=ReviewItem.Kind.AUDIT, debate__settled_by="stage0"
    )
    columns = ("debate_id", "debate__final_label", "debate__consensus_round", "inclusion")
    rows = list(audits.values_list(*columns))
    human = review_final_labels(job=job, items=audits) if rows else {}
    # (human 0/1 or None while not judged, stage 0's label 0/1, stratum, inclusion) of each
    # audit of a stage-0 label: one not judged yet is missing at random within its stratum's
    # audits of the same inclusion (audit_error_rate).
    drawn = [
        (
            int(human[debate_id][0] >= 1) if debate_id in human else None,
            int(label >= 1),
            stratum_name(label, round_),
            pi or job.audit_share or 1.0,
        )
        for debate_id, label, round_, pi in rows
        if label is not None
    ]
    judged = [(h, c) for h, c, _, _ in drawn if h is not None]
    error = _error_rate(drawn)
    negatives = [row for row in drawn if row[1] == 0]
    side = _error_rate(negatives)
    n0 = int(counts["not_relevant"])
    lost = None
    if side.estimate is not None and side.low is not None and side.high is not None:
        lost = (side.estimate * n0, side.low * n0, side.high * n0)
    band = band_load(job.stage0_band) if job.stage0_band else None
    simulated = simulated_items_count(items=audits) if judged else 0
    return Stage0Report(
        pairs=int(counts["pairs"]),
        relevant=int(counts["relevant"]),
        not_relevant=n0,
        calls=int(counts["calls"] or 0),
        alpha=job.stage0_alpha,
        delta=job.stage0_delta,
        band_labels=band.n if band else 0,
        sampled=len(rows),
        error=error,
        not_relevant_audited=sum(1 for h, *_ in negatives if h is not None),
        found_relevant=sum(1 for h, *_ in negatives if h == 1),
        lost=lost,
        simulated_human=simulated,
        reused=int(counts["reused"]),
        note=job.stage0_note,
        # The beta the band was chosen at (a band stored before the bound existed has none:
        # not bounded); before routing, the job's.
        beta=(band.beta or 1.0) if band else job.stage0_beta,
    )


def _error_rate(drawn: list[tuple[int | None, int, str, float]]) -> Proportion:
    """:func:`assess.review.agreement.audit_error_rate` of ``drawn`` ((human or None,
    stage 0's label, stratum, inclusion) per audit)."""
    return audit_error_rate(
        [(h, c) for h, c, _, _ in drawn],
        inclusion=[pi for *_, pi in drawn],
        strata=[name for _, _, name, _ in drawn],
    )


def stage0_report_lines(report: Stage0Report) -> list[str]:
    """Plain-text lines of ``report`` for ``debate_job ID progress``: what stage 0 settled,
    the calls per pair, the audited error against alpha, the holes lost, and the scope of
    the guarantee."""
    lines = [
        f"stage 0: settled {report.settled:,} of {report.pairs:,} pairs "
        f"({report.not_relevant:,} not relevant, {report.relevant:,} relevant), "
        + (f"{report.reused:,} reused from an earlier job (no LLM call), " if report.reused else "")
        + f"{report.debated:,} debated; LLM calls per pair {_rate(report.calls_per_pair)} over "
        f"all pairs, {_rate(report.calls_per_debated_pair)} over the debated ones"
    ]
    error = report.error
    if error.n and error.estimate is not None:
        within = "within" if report.within_alpha else "ABOVE"
        lines.append(
            f"stage 0 audit: error rate of stage-0 labels {error.estimate:.4f} ({error.successes:,}"
            f" of {error.n:,} audited{weighting_note(error)})"
            f", 95% Wilson interval {error.low:.4f}-{error.high:.4f}, {within} alpha "
            f"{report.alpha:g}"
            + (
                f" (human labels SIMULATED: {report.simulated_human:,} by the simulated annotator)"
                if report.simulated_human
                else ""
            )
        )
    else:
        lines.append(f"stage 0 audit: {report.sampled:,} stage-0 labels sampled, none judged yet")
    if report.settled:
        lines.append(f"stage 0 holes: {report.scope}; {holes_sentence(report)}")
    else:  # no band applied: no guarantee to state, no hole given up
        lines.append("stage 0 holes: none given up (it settled no pair)")
    if report.note:  # why it settled what it did (the job page shows it at the top)
        lines.append(f"stage 0 note: {report.note}")
    return lines


def holes_sentence(report: Stage0Report) -> str:
    """What the audit says of the relevant pairs stage 0 settled "not relevant", e.g. "people
    found 2 of the 92 audited stage-0 "not relevant" labels relevant; about 23 of the 1,049
    pairs it settled not relevant may be relevant (95%: 6-81)", or with none found "...; up
    to 46 ... may be relevant (the upper end of the 95% interval)"."""
    words = (
        f"people found {report.found_relevant:,} of the {report.not_relevant_audited:,} "
        'audited stage-0 "not relevant" labels relevant'
    )
    lost = report.lost
    if lost is None:
        return words
    estimate, low, high = (round(x) for x in lost)
    of = f"of the {report.not_relevant:,} pairs it settled not relevant may be relevant"
    if report.found_relevant:
        return f"{words}; about {estimate:,} {of} (95%: {low:,}-{high:,})"
    return f"{words}; up to {high:,} {of} (the upper end of the 95% interval)"


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def job_stage0_panel(request: HttpRequest, job: DebateJob) -> str:
    """The job page's stage-0 panel (``templates/assess/partials/job_stage0_panel.html``,
    registered with :func:`debates.views.job_panel_register`): :func:`job_stage0_report` in
    words; "" for a job without stage 0. Read-only."""
    report = job_stage0_report(job=job)
    if report is None:
        return ""
    error = report.error
    # Shares as percentages with two decimals: an error of 0.0026 reads 0.26%.
    shares = (
        {
            "estimate": f"{error.estimate:.2%}",
            "low": f"{error.low:.2%}",
            "high": f"{error.high:.2%}",
        }
        if error.estimate is not None and error.low is not None and error.high is not None
        else {}
    )
    context = {
        "job": job,
        "report": report,
        "scope": report.scope,
        "alpha": f"{report.alpha:g}",
        "confidence": f"{1 - report.delta:g}",
        "shares": shares,
        "holes": holes_sentence(report),
    }
    return render_to_string("assess/partials/job_stage0_panel.html", context, request=request)


def job_stage0_notes(job: DebateJob) -> list[str]:
    """The stage-0 lines of ``debate_job ID progress`` (registered with
    :func:`debates.services.progress.job_notes_register`): :func:`stage0_report_lines`, none
    for a job without stage 0."""
    report = job_stage0_report(job=job)
    return stage0_report_lines(report) if report is not None else []
