"""How a label's provenance says it is simulated, in one place for every report that must say
so (the refined set's page and API, the re-benchmark's page, API and printout, the job's
budget planner). Query conditions and counts over :class:`~assess.models.LabelProvenance`
rows, and whether a job's agents are simulated; no model of its own.

Two things make a final label simulated: a consensus of simulated debaters (backend
``simulated``: every agent model name starts with
:data:`debates.llm.config.SIMULATED_MODEL_PREFIX`, and :class:`LabelProvenance` stores the
names in ``agent_models``), and a human label the simulated annotator
(:data:`SIMULATED_ANNOTATOR`, ``simulate_annotators``) took part in (its username is among
the provenance's ``annotators``). An adjudicated label is an admin's, never simulated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from django.db.models import Count, Q, QuerySet

from debates.llm.config import (
    SIMULATED_BACKEND,
    SIMULATED_MODEL_PREFIX,
    backend_and_model,
    is_simulated_model,
)

from .refined import LabelProvenance

#: The simulated annotator's username (``assess.review.simulated_annotators`` creates it).
SIMULATED_ANNOTATOR: Final = "simulated-annotator"
#: Appended to a final-label source whose labels are simulated: "consensus (simulated)".
SIMULATED_SUFFIX: Final = " (simulated)"
#: The kinds of simulated labels, as reports count them: {"debate": n, "human": m}.
SIMULATED_KINDS: Final = ("debate", "human")

# As database conditions on LabelProvenance rows (the JSON text of the lists holds each name
# in double quotes: a quote before the prefix keeps the test a prefix test, as
# is_simulated_model's, on PostgreSQL and SQLite alike).
SIMULATED_DEBATE_Q: Final = Q(
    source="consensus", agent_models__icontains=f'"{SIMULATED_MODEL_PREFIX}'
)
SIMULATED_HUMAN_Q: Final = Q(source="human", annotators__icontains=f'"{SIMULATED_ANNOTATOR}"')


def simulated_label_counts(*, rows: QuerySet[Any]) -> dict[str, int]:
    """``{"debate": n, "human": m}``: the simulated final labels among ``rows`` (a queryset of
    :class:`~assess.models.LabelProvenance`, e.g. one refined set's), in one query."""
    found = rows.aggregate(
        debate=Count("pk", filter=SIMULATED_DEBATE_Q), human=Count("pk", filter=SIMULATED_HUMAN_Q)
    )
    return {kind: int(found[kind] or 0) for kind in SIMULATED_KINDS}


def qrel_set_simulated_labels(qrel_set: Any) -> dict[str, int]:
    """``{"debate": n, "human": m}``: the simulated final labels of ``qrel_set`` (a
    :class:`~corpora.models.QrelSet`; an imported one has none), for the marks every
    download of it carries (registered with
    :func:`corpora.simulated.simulated_label_counter_register`)."""
    return simulated_label_counts(rows=LabelProvenance.objects.filter(qrel_set=qrel_set))


def label_simulated(
    *, source: str | None, models: Sequence[str], annotators: Sequence[str]
) -> bool:
    """Whether one final label is simulated, as :data:`SIMULATED_DEBATE_Q` and
    :data:`SIMULATED_HUMAN_Q` tell it of a provenance row: a consensus whose agent
    ``models`` include a simulated one, or a human label the simulated annotator is among
    the ``annotators`` of. Pure."""
    if source == "consensus":
        return any(is_simulated_model(model) for model in models)
    return source == "human" and SIMULATED_ANNOTATOR in annotators


def qrel_sets_simulated(qrel_sets: Sequence[Any]) -> set[int]:
    """The ids of ``qrel_sets`` (:class:`~corpora.models.QrelSet` rows, refined or imported)
    whose refined labels hold a simulated one, in one query; an imported set has no
    provenance and is never among them. The dataset page marks them (registered with
    :func:`corpora.views.simulated_qrel_sets_register`), the re-benchmark page's choices
    too."""
    rows = LabelProvenance.objects.filter(qrel_set__in=[q.pk for q in qrel_sets])
    found = rows.filter(SIMULATED_DEBATE_Q | SIMULATED_HUMAN_Q).order_by()
    return set(found.values_list("qrel_set_id", flat=True).distinct())


def agents_simulated(*agents: Mapping[str, Any] | None) -> bool:
    """Whether any of ``agents`` (agent configs as a job stores them, ``DebateJob.agent_a``
    and ``agent_b``) is a simulated debater: backend ``simulated``, or a model named with
    :data:`~debates.llm.config.SIMULATED_MODEL_PREFIX`. Read without validating the
    configs, as provenance reads them: a consensus one simulated agent took part in is
    simulated."""
    for raw in agents:
        backend, model = backend_and_model(dict(raw) if raw else None)
        if backend == SIMULATED_BACKEND or is_simulated_model(model):
            return True
    return False


def sources_split(by_source: Mapping[str, int], simulated: Mapping[str, int]) -> dict[str, int]:
    """``by_source`` (pairs by final-label source, as a refinement stored them) with the
    ``simulated`` labels (``{"debate": n, "human": m}``, :func:`simulated_label_counts`)
    moved under keys of their own, sorted by key: ``{"consensus": 12, "consensus
    (simulated)": 3, "human (simulated)": 1, ...}`` (a source left with no real label has no
    plain key)."""
    out = dict(by_source)
    for kind, source in zip(SIMULATED_KINDS, ("consensus", "human"), strict=True):
        n = simulated.get(kind, 0)
        if not n:
            continue
        left = out.get(source, 0) - n
        out.pop(source, None)
        if left > 0:
            out[source] = left
        out[source + SIMULATED_SUFFIX] = n
    return dict(sorted(out.items()))


def simulated_counts(by_source: Mapping[str, int]) -> dict[str, int]:
    """``{"debate": n, "human": m}`` from counts by source whose simulated labels have keys of
    their own (``"consensus (simulated)"``, ``"human (simulated)"``)."""
    return {
        "debate": by_source.get("consensus" + SIMULATED_SUFFIX, 0),
        "human": by_source.get("human" + SIMULATED_SUFFIX, 0),
    }


def simulated_sentence(counts: Mapping[str, int], *, scope: str = "") -> str:
    """The loud line every report of simulated labels carries, e.g. "SIMULATED labels: 3
    debate labels from simulated debaters (backend simulated), 1 human label from the
    simulated annotator (simulate_annotators); for planning a study, never a benchmark";
    "" when ``counts`` ({"debate", "human"}) has none. ``scope`` says what was counted where
    one page shows counts of different things ("SIMULATED labels in this job's debates and
    reviews so far: ..." beside "... in the final labels of the refined set x: ...")."""
    parts = []
    debate, human = counts.get("debate", 0), counts.get("human", 0)
    if debate:
        parts.append(
            f"{debate:,} debate label{'s' if debate != 1 else ''} from simulated debaters "
            "(backend simulated)"
        )
    if human:
        parts.append(
            f"{human:,} human label{'s' if human != 1 else ''} from the simulated annotator "
            "(simulate_annotators)"
        )
    if not parts:
        return ""
    where = f" {scope}" if scope else ""
    return f"SIMULATED labels{where}: {', '.join(parts)}; for planning a study, never a benchmark"


#: What a job's simulated labels (``assess.review.simulated_marks.job_simulated_labels``)
#: count, as the job page and ``debate_job ID progress`` say it beside the refined set's.
JOB_SIMULATED_SCOPE: Final = (
    "in this job so far (its agreed debates, and the simulated annotator's judgments of its "
    "review items)"
)


def refined_simulated_scope(name: str) -> str:
    """What a refined set's simulated labels (:func:`simulated_label_counts` of its
    provenance) count, for a page that also shows a job's: "in the final labels of the
    refined set test-dream"."""
    return f"in the final labels of the refined set {name}"
