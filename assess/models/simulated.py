"""How a label's provenance says it is simulated, in one place for every report that must say
so (the refined set's page and API, the re-benchmark's page, API and printout, the job's
budget planner, every download, the labels export and the benchmark zip). Query conditions
and counts over :class:`~assess.models.LabelProvenance` rows; no model of its own.

Three things make a final label simulated: a consensus of simulated debaters (backend
``simulated``: every agent model name starts with
:data:`debates.llm.config.SIMULATED_MODEL_PREFIX`, and :class:`LabelProvenance` stores the
names in ``agent_models``), a human label the simulated annotator
(:data:`SIMULATED_ANNOTATOR`, ``simulate_annotators``) took part in (its username is among
the provenance's ``annotators``), and a stage-0 label of a job whose judge was trained, or
whose band was set, on any simulated label (``DebateJob.stage0_simulated_labels``). An
adjudicated label is an admin's, never simulated.

Which rows of a refined set are simulated (:func:`qrel_set_simulated_rows`, the one
definition every count and mark uses): its own final labels that are, and the rows it copied
from its original set that were simulated there (refining a refined set copies its rows, and
their marks go with them, through any number of refinements) unless this set wrote a real
label of its own over them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.db.models import Case, Count, Q, QuerySet, Value, When

from corpora.simulated import SIMULATED_KINDS
from debates.llm.config import SIMULATED_MODEL_PREFIX, agents_simulated

from .refined import LabelProvenance, Refinement

# Re-exported: assess reads whether a job's agents are simulated, and the kinds a count gives
# ({"debate": n, "human": m, "stage0": k}, declared once beside the downloads' header).
__all__ = ["SIMULATED_KINDS", "agents_simulated"]

#: The simulated annotator's username (``assess.review.simulated_annotators`` creates it).
SIMULATED_ANNOTATOR: Final = "simulated-annotator"
#: Appended to a final-label source whose labels are simulated: "consensus (simulated)".
SIMULATED_SUFFIX: Final = " (simulated)"
#: The final-label source of each kind, in :data:`SIMULATED_KINDS` order.
SIMULATED_SOURCES: Final = ("consensus", "human", "stage0")

# As database conditions on LabelProvenance rows (the JSON text of the lists holds each name
# in double quotes: a quote before the prefix keeps the test a prefix test, as
# is_simulated_model's, on PostgreSQL and SQLite alike).
SIMULATED_DEBATE_Q: Final = Q(
    source="consensus", agent_models__icontains=f'"{SIMULATED_MODEL_PREFIX}'
)
SIMULATED_HUMAN_Q: Final = Q(source="human", annotators__icontains=f'"{SIMULATED_ANNOTATOR}"')
SIMULATED_STAGE0_Q: Final = Q(source="stage0", job__stage0_simulated_labels__gt=0)
SIMULATED_Q: Final = SIMULATED_DEBATE_Q | SIMULATED_HUMAN_Q | SIMULATED_STAGE0_Q
_KIND_OF_ROW = Case(
    When(SIMULATED_DEBATE_Q, then=Value("debate")),
    When(SIMULATED_HUMAN_Q, then=Value("human")),
    When(SIMULATED_STAGE0_Q, then=Value("stage0")),
    default=Value(""),
)


def no_simulated_labels() -> dict[str, int]:
    """``{"debate": 0, "human": 0, "stage0": 0}``."""
    return dict.fromkeys(SIMULATED_KINDS, 0)


def simulated_label_counts(*, rows: QuerySet[Any]) -> dict[str, int]:
    """``{"debate": n, "human": m, "stage0": k}``: the simulated final labels among
    ``rows`` (a queryset of :class:`~assess.models.LabelProvenance`, e.g. one refinement's
    own), in one query. A refined set's simulated labels, copied ones included, are
    :func:`qrel_set_simulated_labels`."""
    found = rows.aggregate(
        debate=Count("pk", filter=SIMULATED_DEBATE_Q),
        human=Count("pk", filter=SIMULATED_HUMAN_Q),
        stage0=Count("pk", filter=SIMULATED_STAGE0_Q),
    )
    return {kind: int(found[kind] or 0) for kind in SIMULATED_KINDS}


@dataclass(frozen=True)
class SimulatedRow:
    """One simulated label of a refined set: its ``kind`` (:data:`SIMULATED_KINDS`), the
    name of the refined set whose final label it is (``made_in``: the set itself, or one it
    was refined from), and whether that set holds a qrels row for the pair (``in_qrels``: a
    final label may have none, e.g. a query's own document left out)."""

    kind: str
    made_in: str
    in_qrels: bool = True


def refinement_chain(qrel_set: Any) -> list[Any]:
    """The refined sets ``qrel_set`` was made from, oldest first, ending with ``qrel_set``:
    ``[A, B]`` when ``B`` was refined from a pool on ``A``, itself refined from imported
    qrels. Empty for a set no refinement made (an imported one). One query per set."""
    chain: list[Any] = []
    current = qrel_set
    while current is not None and all(current.pk != q.pk for q in chain):
        made = Refinement.objects.filter(qrel_set=current).select_related("original").first()
        if made is None:
            break
        chain.append(current)
        current = made.original
    return chain[::-1]


def qrel_set_simulated_rows(*, qrel_set: Any) -> dict[tuple[int, int], SimulatedRow]:
    """``{(query pk, document pk): SimulatedRow}``: the simulated labels of ``qrel_set`` (a
    :class:`~corpora.models.QrelSet`), the one definition of which are (module docstring).

    Along the refinement chain (:func:`refinement_chain`), oldest first: a set's own
    simulated final labels written to it (its applied provenance rows matching
    :data:`SIMULATED_Q`; a judged pair keeps its original, real grade), over the
    simulated rows of the set before it that it copied (a pair with a qrels row there), but
    for those it wrote a real label of its own over (an applied provenance row that is not
    simulated). Empty for an imported set. About three queries per refined set in the chain.
    """
    found: dict[tuple[int, int], SimulatedRow] = {}
    for refined in refinement_chain(qrel_set):
        provenance = LabelProvenance.objects.filter(qrel_set=refined)
        if found:
            # Only rows the original held were copied; a real label written over one ends it.
            found = {key: row for key, row in found.items() if row.in_qrels}
            relabelled = provenance.filter(applied=True).exclude(SIMULATED_Q)
            for key in relabelled.values_list("query_id", "document_id"):
                found.pop(key, None)
        # Only labels written to the set: on a pair the original qrels judged, the original
        # (real) grade is kept whatever simulated debaters said (applied False).
        own = provenance.filter(SIMULATED_Q, applied=True).annotate(simulated_kind=_KIND_OF_ROW)
        for q, d, kind, qrel in own.values_list(
            "query_id", "document_id", "simulated_kind", "qrel_id"
        ):
            found[(q, d)] = SimulatedRow(kind, refined.name, qrel is not None)
    return found


def simulated_rows_counts(rows: Mapping[Any, SimulatedRow]) -> dict[str, int]:
    """``{"debate": n, "human": m, "stage0": k}`` of ``rows`` (as
    :func:`qrel_set_simulated_rows` gives them). Pure."""
    kinds = Counter(row.kind for row in rows.values())
    return {kind: kinds.get(kind, 0) for kind in SIMULATED_KINDS}


def qrel_set_simulated_labels(qrel_set: Any) -> dict[str, int]:
    """``{"debate": n, "human": m, "stage0": k}``: the simulated labels of ``qrel_set`` (a
    :class:`~corpora.models.QrelSet`; an imported one has none), copied ones included
    (:func:`qrel_set_simulated_rows`): what every download of it (registered with
    :func:`corpora.simulated.simulated_label_counter_register`) and every report on it
    count."""
    return simulated_rows_counts(qrel_set_simulated_rows(qrel_set=qrel_set))


def simulated_rows_sentence(rows: Mapping[Any, SimulatedRow], *, name: str, scope: str = "") -> str:
    """:func:`simulated_sentence` of ``rows`` (a set's :func:`qrel_set_simulated_rows`),
    saying how many came with the rows copied from the sets the set ``name`` was refined
    from: "SIMULATED labels ...: 2 debate labels from simulated debaters (backend
    simulated); for planning a study, never a benchmark (2 of them copied from the refined
    set 'a')"; "" when ``rows`` is empty. Pure."""
    said = simulated_sentence(simulated_rows_counts(rows), scope=scope)
    copied = Counter(row.made_in for row in rows.values() if row.made_in != name)
    if not said or not copied:
        return said
    sets = ", ".join(
        f"{n:,} from the refined set {made_in!r}" for made_in, n in sorted(copied.items())
    )
    return f"{said} (copied with the rows: {sets})"


def qrel_sets_simulated(qrel_sets: Sequence[Any]) -> set[int]:
    """The ids of ``qrel_sets`` (:class:`~corpora.models.QrelSet` rows, refined or imported)
    that hold a simulated label (:func:`qrel_set_simulated_rows`, copied ones included); an
    imported set never does. The dataset page marks them (registered with
    :func:`corpora.views.simulated_qrel_sets_register`), the re-benchmark page's choices
    too."""
    return {q.pk for q in qrel_sets if qrel_set_simulated_rows(qrel_set=q)}


def sources_split(by_source: Mapping[str, int], simulated: Mapping[str, int]) -> dict[str, int]:
    """``by_source`` (pairs by final-label source, as a refinement stored them) with the
    ``simulated`` labels (``{"debate": n, "human": m, "stage0": k}`` among the pairs
    ``by_source`` counts: :func:`simulated_label_counts` of the refinement's own provenance)
    moved under keys of their own, sorted by key: ``{"consensus": 12, "consensus
    (simulated)": 3, "human (simulated)": 1, ...}`` (a source left with no real label has no
    plain key)."""
    out = dict(by_source)
    for kind, source in zip(SIMULATED_KINDS, SIMULATED_SOURCES, strict=True):
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
    """``{"debate": n, "human": m, "stage0": k}`` from counts by source whose simulated
    labels have keys of their own (``"consensus (simulated)"``, ``"human (simulated)"``,
    ``"stage0 (simulated)"``)."""
    return {
        kind: by_source.get(source + SIMULATED_SUFFIX, 0)
        for kind, source in zip(SIMULATED_KINDS, SIMULATED_SOURCES, strict=True)
    }


def simulated_sentence(counts: Mapping[str, int], *, scope: str = "") -> str:
    """The loud line every report of simulated labels carries, e.g. "SIMULATED labels: 3
    debate labels from simulated debaters (backend simulated), 1 human label from the
    simulated annotator (simulate_annotators); for planning a study, never a benchmark";
    "" when ``counts`` ({"debate", "human", "stage0"}) has none. ``scope`` says what was
    counted where one page shows counts of different things ("SIMULATED labels in this
    job's debates and reviews so far: ..." beside "... in the final labels of the refined
    set x: ...")."""
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
    if stage0 := counts.get("stage0", 0):
        parts.append(
            f"{stage0:,} stage-0 label{'s' if stage0 != 1 else ''} from a judge trained or "
            "calibrated on simulated labels"
        )
    if not parts:
        return ""
    where = f" {scope}" if scope else ""
    return f"SIMULATED labels{where}: {', '.join(parts)}; for planning a study, never a benchmark"


def simulated_tag(simulated: int, labels: int) -> str:
    """The mark a printed count of ``labels`` carries when ``simulated`` of them are, on every
    line of a printout that counts labels (the line that says what SIMULATED means is
    :func:`simulated_sentence`): " (SIMULATED)" when all are, " (3 SIMULATED)" when some
    are, "" when none is. Pure."""
    if simulated <= 0:
        return ""
    return " (SIMULATED)" if simulated >= labels else f" ({simulated:,} SIMULATED)"


#: What a job's simulated labels (``assess.review.simulated_marks.job_simulated_labels``)
#: count, as the job page and ``debate_job ID progress`` say it beside the refined set's.
JOB_SIMULATED_SCOPE: Final = (
    "in this job so far (its agreed debates and stage-0 labels, and the simulated "
    "annotator's judgments of its review items)"
)


def refined_simulated_scope(name: str) -> str:
    """What a refined set's simulated labels (:func:`qrel_set_simulated_labels`, copied
    ones included) count, for a page that also shows a job's: "in the final labels of the
    refined set test-dream"."""
    return f"in the final labels of the refined set {name}"
