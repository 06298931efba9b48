"""The datasheet (``README.md``) of a benchmark zip: what a refined benchmark holds and how
its labels were made. Pure: no database.

:func:`assess.refined.benchmark_zip.benchmark_datasheet` fills a :class:`Datasheet` from the
database; :func:`datasheet_render` turns it into Markdown. Equal sheets give equal text (no
clock, no dict order: every mapping is sorted), so the zip holding it stays byte-identical.

Every value that came from the database (dataset name, source and licence, qrel set, pool
and run names, model names, backend descriptions, query ids...) is untrusted: it is written
by the writers of :mod:`assess.refined.datasheet_markdown` (a code span, a fenced block, or
words with Markdown's characters escaped), so no value can open a link, a heading, a table,
raw HTML or a new line of the document: the structure (headings, lists, fenced blocks) is
this module's alone. No table is used, since GitHub splits table cells at a ``|`` even
inside a code span.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from core.text import plural
from debates.llm.config import is_simulated_model

from ..review.agreement import Proportion, weighting_note
from .cost import SIMULATED_COST_NOTE
from .datasheet_corrections import copied_words, corrections_lines

# IntervalCell is re-exported: callers build the sheet from this module's names.
from .datasheet_interval_lines import IntervalCell as IntervalCell
from .datasheet_interval_lines import IntervalsSheet, interval_lines
from .datasheet_markdown import md_code, md_fenced, md_inline, md_title, one_line
from .datasheet_ranking import ranking_lines
from .labels import BEYOND_BUDGET, HUMAN_TIE, budget_split

# At most this many ids of a pool's query subset are listed (the rest are counted).
QUERIES_LISTED = 50

# The section the other sections send the reader to for the counts of labels ('under "..."'
# always quotes a heading of this file, word for word).
LABELS_HEADING = "Final labels of the pool's pairs"


def _share(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _count(value: int) -> str:
    return f"{value:,}"


def _percent(share: float) -> str:
    return f"{share * 100:g}%"


def _interval(p: Proportion) -> str:
    """A proportion as the job page writes it: estimate, counts, 95% Wilson interval."""
    if not p.n or p.estimate is None or p.low is None or p.high is None:
        return "not known yet (no audited pair judged)"
    return (
        f"{p.estimate:.3f} ({p.successes:,} of {p.n:,}{weighting_note(p)}), "
        f"{p.confidence:.0%} confidence interval {p.low:.3f}–{p.high:.3f} (Wilson)"
    )


@dataclass(frozen=True, slots=True)
class AgentSheet:
    """One debating agent: ``name`` "A" or "B", its initial ``stance``, the ``model`` its
    labels name, its backend ``description`` (``AgentConfig.describe()``) and its reasoning
    options (``AgentConfig.generation_options()``) as canonical JSON, "" when none."""

    name: str
    stance: str
    model: str
    description: str
    reasoning: str = ""


@dataclass(frozen=True, slots=True)
class AuditSheet:
    """Humans against the consensus on a job's audited agreed pairs
    (:class:`assess.review.selectors.AuditSummary`): ``share`` the job's audit share (under
    ``allocation`` "proportional" each agreed label's probability of being drawn; under
    "neyman" the share drawn in all, each label at its audit unit's probability),
    ``sampled`` drawn of the job's ``agreed`` labels (0: not known), ``error`` the share a
    human found wrong with its Wilson interval, ``agreement`` and ``kappa`` of human vs
    consensus; on a graded job ``side_error`` (wrong side of relevance) and
    ``kappa_weighted``."""

    share: float
    sampled: int
    error: Proportion
    agreement: float | None = None
    kappa: float | None = None
    side_error: Proportion | None = None
    kappa_weighted: float | None = None
    agreed: int = 0
    allocation: str = "proportional"


@dataclass(frozen=True, slots=True)
class AgreementSheet:
    """Agreement among annotators on a job's pairs judged more than once
    (:class:`assess.review.selectors.JobAgreement`, without the annotators' names):
    ``pairs`` such pairs, by ``annotators`` people; ``kappa`` Cohen's kappa of the two who
    share the most pairs (``kappa_items`` of them), ``alpha`` Krippendorff's alpha
    (nominal); on a graded job ``alpha_ordinal`` and ``kappa_weighted``."""

    pairs: int
    annotators: int
    kappa: float | None
    kappa_items: int
    alpha: float | None
    disagreements: int
    graded: bool = False
    alpha_ordinal: float | None = None
    kappa_weighted: float | None = None


@dataclass(frozen=True, slots=True)
class CalibrationSheet:
    """One agent's calibration (:class:`assess.review.calibration.AgentCalibration`):
    ``agent`` "A" or "B"; ``n`` points (gold and audited pairs with a human label and the
    agent's label probability) of ``labelled`` human-labelled ones; ``ece`` and ``brier``
    (None without points); ``missing`` says why there are none."""

    agent: str
    n: int
    labelled: int
    ece: float | None
    brier: float | None
    missing: str = ""


# The method of the calibration line, with its sources.
CALIBRATION_SOURCES = (
    "each agent's final-round P(relevant) from its token logprobs against the human labels "
    "of gold and audited pairs; ECE with 10 equal-mass bins (Nixon et al. 2019; Guo et al. "
    "2017), Brier score (Brier 1950)"
)


@dataclass(frozen=True, slots=True)
class JobSheet:
    """One debate job of the pool: agents, prompt version, ``rounds`` (R), label ``scale``
    ("binary" or "graded", top grade ``max_grade``), ``consensus`` rule, temperature, the
    token budget of a turn's first call (``max_tokens``) and of a re-ask (``max_tokens_cap``,
    resolved: the job's cap or twice ``max_tokens``; ``max_tokens_cap_default`` true when it
    was that default, the job having set none), the audit and human agreement."""

    job: int
    agents: tuple[AgentSheet, ...]
    prompt_version: str
    rounds: int
    scale: str
    max_grade: int
    consensus: str
    temperature: float
    max_tokens: int
    max_tokens_cap: int
    audit: AuditSheet
    agreement: AgreementSheet
    calibration: tuple[CalibrationSheet, ...] = ()
    calibration_missing: str = ""
    status: str = "finished"  # the job's status when the file was written
    max_tokens_cap_default: bool = False


@dataclass(frozen=True, slots=True)
class RunSheet:
    """A run the pool was made from: its ``name`` and the ``system`` that produced it."""

    name: str
    system: str = ""


@dataclass(frozen=True, slots=True)
class Datasheet:
    """Everything the README of one benchmark zip says.

    ``folder`` and ``split`` name the zip's paths (``<folder>/qrels/<split>.tsv``); the
    dataset fields describe the source benchmark; ``documents``, ``queries`` and
    ``qrels_rows`` count the files' lines; ``created`` is the refinement's time (UTC);
    ``by_source`` counts pool pairs by final-label source (consensus, human, adjudicated,
    unresolved), ``by_reason`` the unresolved ones by reason, ``escalations`` the escalated
    debates behind the pairs by escalation reason; ``costs`` holds the lines of
    :func:`assess.refined.cost.format_costs`. ``human_sources`` counts the human labels by
    how many annotators gave them and whether they agreed (single-human, humans-unanimous,
    humans-majority: :func:`assess.refined.export_formats.label_source`);
    ``excluded_annotators`` lists the annotators a refinement left out (flagged under the
    gold accuracy floor), each ``{"annotator", "gold_correct", "gold_answers", "floor"}``;
    ``intervals`` the refined measures' 95% intervals (None: not computed);
    ``simulated_judgments`` the live judgments of the jobs' items given by the simulated
    annotator (:mod:`assess.review.simulated_annotators`; any: a warning opens the sheet);
    ``corrections`` the judged pairs a human verdict re-graded; ``pool_strategy`` the
    pool's judging order (its label, "" for depth-k), ``pool_budget`` the pairs a job judges
    at most when the set was refined (None: every pair), ``pool_pairs`` all the pool's pairs
    (0: ``pairs``, which counts only those within the budget: labelled + unresolved),
    ``beyond_budget`` the pairs beyond the budget (never debated, left unjudged by design,
    reason ``beyond budget``: pool_pairs = pairs + beyond_budget), ``budget_recorded`` False
    for a set refined before its budget was stored (``pool_budget`` is then the pool's
    now); ``simulated_labels`` the "SIMULATED labels: ..."
    line of the set's final labels ("" when none is simulated), first under the title;
    ``embedded_warning`` the job page's banner on the bundled model's labels
    (:func:`debates.bundled.embedded_warning`; "" when no job used it), a warning under it;
    ``software`` the DREAM Assess that wrote the file, version and commit
    (:func:`core.version.software`; "": not known).
    """

    folder: str
    split: str
    dataset_name: str
    dataset_source: str
    dataset_licence: str
    exclude_identical_ids: bool
    documents: int
    queries: int
    refined_name: str
    created: datetime
    original_name: str
    original_rows: int
    qrels_rows: int
    grades: str
    relevant_grade: int
    new_relevant: int
    new_nonrelevant: int
    pool_name: str
    pool_depth: int
    pool_include_judged: bool
    pool_runs: tuple[RunSheet, ...]
    pool_queries: tuple[str, ...]
    pairs: int
    by_source: Mapping[str, int]
    by_reason: Mapping[str, int]
    escalations: Mapping[str, int]
    overrides_consensus: int
    jobs: tuple[JobSheet, ...]
    costs: tuple[str, ...]
    human_sources: Mapping[str, int] = field(default_factory=dict)
    excluded_annotators: tuple[Mapping[str, object], ...] = ()
    intervals: IntervalsSheet | None = None
    simulated_judgments: int = 0
    corrections: int = 0
    pool_strategy: str = ""
    pool_budget: int | None = None
    pool_pairs: int = 0
    beyond_budget: int = 0
    budget_recorded: bool = True
    simulated_labels: str = ""
    embedded_warning: str = ""
    software: str = ""


SIMULATED_WARNING = (
    "**Labels from SIMULATED debaters, not real judgments.** The debate labels of this set "
    "were given by the simulated backend from a reference qrels file with set error rates "
    "(agents whose model starts with `simulated:`); use it to plan a study, never as a "
    "benchmark."
)


SIMULATED_ANNOTATOR_WARNING = (
    "**Labels from SIMULATED annotators, not real judgments.** {n} human judgment{s} of this "
    "set's jobs came from the simulated annotator (`simulated-annotator`: a reference qrels "
    "file's label flipped at a set error rate); use it to plan a study, never as a benchmark."
)


def _simulated_lines(s: Datasheet) -> list[str]:
    """The loud warnings, each its own paragraph: when any job's agent is simulated, and
    when any judgment (``simulated_judgments``) came from the simulated annotator."""
    lines = [f"**{s.simulated_labels}.**", ""] if s.simulated_labels else []
    if s.embedded_warning:
        lines += [f"**Labels from a tiny model, not for a benchmark.** {s.embedded_warning}", ""]
    agents = (agent for job in s.jobs for agent in job.agents)
    if any(is_simulated_model(agent.model) for agent in agents):
        lines += [SIMULATED_WARNING, ""]
    if s.simulated_judgments:
        n = s.simulated_judgments
        lines += [SIMULATED_ANNOTATOR_WARNING.format(n=f"{n:,}", s="" if n == 1 else "s"), ""]
    return lines


def _software(s: Datasheet) -> str:
    """The DREAM Assess that wrote the sheet, as a reviewer cites it: "DREAM Assess 0.1.0
    (commit 1a2b3c4)", or with "version unknown" when the sheet does not say."""
    return md_inline(s.software) if s.software else "DREAM Assess (version unknown)"


def _header(s: Datasheet) -> list[str]:
    created = s.created.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return [
        f"# {md_title(s.dataset_name) or 'Benchmark'}: refined qrels {md_code(s.refined_name)}",
        "",
        *_simulated_lines(s),
        f"A benchmark in BEIR layout: the corpus and queries of {md_code(s.dataset_name)} with "
        f"the refined qrel set {md_code(s.refined_name)}, made {created}. Its pooled pairs "
        "that the original qrels never judged were put to DREAM debates between two LLM "
        "agents of opposite initial stance, and the pairs the agents could not agree on to "
        "humans; how many of each were labelled, and how many are still unresolved (left "
        f'out of the qrels), is under "{LABELS_HEADING}". Written by {_software(s)}.',
        "",
        "## Files",
        "",
        f"- `corpus.jsonl`: {plural(s.documents, 'document')}, one "
        '`{"_id", "text", "title"}` object a line',
        f"- `queries.jsonl`: {plural(s.queries, 'query', 'queries')}, one "
        '`{"_id", "metadata", "text"}` object a line',
        f"- {md_code(f'qrels/{s.split}.tsv')}: the {plural(s.qrels_rows, 'row')} of the refined "
        "set after the header line `query-id<TAB>corpus-id<TAB>score` (score: the grade)",
        "- `README.md`: this datasheet",
        "",
        "Lines are sorted by id (Unicode code point; the qrels by query id, then corpus id), "
        "JSON keys are sorted and text is UTF-8: the same benchmark always gives the same "
        "bytes.",
    ]


def _source(s: Datasheet) -> list[str]:
    identical = (
        "left out of retrieval, pools and evaluation (BEIR's `ignore_identical_ids`)"
        if s.exclude_identical_ids
        else "kept"
    )
    return [
        "## Source benchmark",
        "",
        f"- Name: {md_code(s.dataset_name)}",
        f"- Source: {md_code(s.dataset_source, empty='not recorded')}",
        f"- Licence: {md_code(s.dataset_licence, empty='not recorded')} (the corpus, the "
        "queries and the original judgments are the source benchmark's, under its licence)",
        f"- A query's own document (document id = query id): {identical}",
    ]


def _refined(s: Datasheet) -> list[str]:
    return [
        "## Refined qrel set",
        "",
        f"- Name: {md_code(s.refined_name)}, made "
        f"{s.created.astimezone(UTC).strftime('%Y-%m-%d %H:%M:%S UTC')}",
        f"- Refined from the original qrel set {md_code(s.original_name)} (the split "
        f"{md_code(s.split)}), whose {plural(s.original_rows, 'row')} are "
        + copied_words(s.corrections),
        f"- New labels: {_count(s.new_relevant)} relevant, {_count(s.new_nonrelevant)} not "
        f"relevant (grade 0); a binary relevant label is written as grade {s.relevant_grade}, "
        "a graded job's label keeps its grade",
        f"- Rows: {_count(s.qrels_rows)}; grades (rows per grade): {md_code(s.grades)}",
        *corrections_lines(s.corrections, judged_kept=s.pool_include_judged),
    ]


def _pool(s: Datasheet) -> list[str]:
    judged = (
        "pairs judged in the original qrels kept and re-assessed"
        if s.pool_include_judged
        else "pairs judged in the original qrels left out"
    )
    pairs = max(s.pool_pairs, s.pairs)
    lines = [
        "## Pool",
        "",
        f"- Name: {md_code(s.pool_name)}: {plural(pairs, 'pair')}, the union of each run's "
        f"top {s.pool_depth} documents per query; {judged}",
        *_judging_order(s, pairs),
        f"- Runs ({len(s.pool_runs)}), each pooled to depth {s.pool_depth}:",
    ]
    for run in sorted(s.pool_runs, key=lambda r: r.name):
        system = f": {md_code(run.system)}" if run.system else ""
        lines.append(f"  - {md_code(run.name)}{system}")
    if not s.pool_queries:
        lines.append("- Queries: every query judged in the original qrels")
        return lines
    shown = ", ".join(md_code(q) for q in s.pool_queries[:QUERIES_LISTED])
    more = len(s.pool_queries) - QUERIES_LISTED
    lines.append(
        f"- Queries: a subset of {_count(len(s.pool_queries))}: {shown}"
        + (f" and {_count(more)} more" if more > 0 else "")
    )
    return lines


def _judging_order(s: Datasheet, pairs: int) -> list[str]:
    """The pool's judging order and budget, and how many pairs the budget left unjudged;
    nothing for a depth-k pool without a budget (every pair judged in canonical order)."""
    if not s.pool_strategy and s.pool_budget is None:
        return []
    line = f"- Judging order: {s.pool_strategy or 'depth-k'}"
    if s.pool_budget is None:
        return [line + "; no budget: every pair was put to the debate jobs"]
    unjudged = max(pairs - s.pairs, s.beyond_budget)
    within, labelled = budget_split(pairs=s.pairs, budget=s.pool_budget)
    elsewhere = labelled and (
        f"{plural(labelled, 'pair')} beyond it labelled all the same (by jobs on other pools "
        "of the dataset, whose labels are reused, or debated before the budget was set), "
    )
    # A set refined before its budget was stored: the budget read is the pool's now.
    now = "" if s.budget_recorded else " (the pool's budget now: not recorded when refined)"
    return [
        line + f"; budget {plural(s.pool_budget, 'pair')}{now} a job judges at most, in that "
        f"order: {plural(within, 'pair')} within it (those no job debated yet counted "
        f"unresolved below), {elsewhere or ''}{plural(unjudged, 'pair')} never debated "
        "(beyond the budget) and left unjudged (not relevant in the qrels; counted apart "
        f"below, reason {md_code(BEYOND_BUDGET)}, not as unresolved)"
    ]


# Final-label sources in display order, with what each means.
_SOURCES = (
    ("consensus", "the two agents' consensus"),
    ("stage0", "the stage-0 judge, before any debate (calibrated; no LLM call)"),
    ("human", "humans (the majority, or median grade, of the annotators)"),
    ("adjudicated", "adjudicated by an admin"),
    ("unresolved", "unresolved (no label, so not in the qrels)"),
)


def _beyond_budget_lines(s: Datasheet) -> list[str]:
    """The pairs beyond a budgeted pool's budget, after the unresolved ones: counted apart,
    so the pool's pairs are the labelled + the unresolved + these; nothing without a budget
    or such a pair."""
    if s.pool_budget is None and not s.beyond_budget:
        return []
    return [
        f"- Beyond the pool's budget (never debated, left unjudged by design, so not in the "
        f"qrels; reason {md_code(BEYOND_BUDGET)}): {_count(s.beyond_budget)}",
        f"- Pool pairs: {_count(s.pairs)} within the budget (labelled or unresolved) + "
        f"{_count(s.beyond_budget)} beyond it = {_count(s.pairs + s.beyond_budget)}",
    ]


# A tie merges every vote on the pair, over jobs; each job's agreement line counts only the
# judgments on its own items, so a tie across two jobs is no pair "judged more than once" there.
_TIE_NOTE = (
    " (the pair's human votes, merged over every job that asked people about it and counting "
    "a simulated annotator's vote as one, are split evenly; each job's agreement line below "
    "counts only the judgments on its own items)"
)


def _counted(counts: Mapping[str, int], indent: str = "  ") -> list[str]:
    # One sub-item per key, in code-point order (keys came from the database).
    return [
        f"{indent}- {md_code(key, empty='unspecified')}: {_count(n)}"
        for key, n in sorted(counts.items())
    ]


def _labels(s: Datasheet) -> list[str]:
    lines = [f"## {LABELS_HEADING}", ""]
    known = dict(_SOURCES)
    for source, meaning in _SOURCES:
        lines.append(f"- {meaning.capitalize()}: {_count(s.by_source.get(source, 0))}")
        if source == "unresolved":
            lines += [
                line + _TIE_NOTE if line.startswith(f"  - {md_code(HUMAN_TIE)}:") else line
                for line in _counted(s.by_reason)
            ]
            lines += _beyond_budget_lines(s)
    others = {k: n for k, n in s.by_source.items() if k not in known}
    if others:
        lines.append("- Other sources:")
        lines += _counted(others)
    if s.human_sources:
        lines.append("- Human labels by how they were reached:")
        lines += _counted(s.human_sources)
    for left in s.excluded_annotators:
        lines.append(
            f"- Judgments of {md_code(str(left['annotator']))} left out: "
            f"{left['gold_correct']} of {left['gold_answers']} known-answer pairs right, under "
            f"the floor of {_percent(float(str(left['floor'])))}"
        )
    lines.append(f"- Debates escalated to humans: {_count(sum(s.escalations.values()))}")
    lines += _counted(s.escalations)
    lines.append(
        f"- Human labels that overrode the agents' consensus: {_count(s.overrides_consensus)} "
        "(pool pairs whose final human or adjudicated label differs from the consensus the "
        "qrels would hold without it, each pair once; a tie overrides nothing)"
    )
    return lines


def _agent(agent: AgentSheet) -> str:
    reasoning = md_code(agent.reasoning) if agent.reasoning else "none"
    return (
        f"- Agent {md_code(agent.name)}, initial stance {md_code(agent.stance)}: model "
        f"{md_code(agent.model)}; backend {md_code(agent.description)}; reasoning options "
        f"{reasoning}"
    )


def _audit_design(a: AuditSheet) -> str:
    """How the audit drew its pairs: the share is each agreed label's chance of being drawn
    (a Neyman audit's is the expected share in all), never the share of them drawn."""
    drawn = (
        f"{a.sampled:,} of {a.agreed:,} drawn"
        if a.agreed >= a.sampled
        else f"{plural(a.sampled, 'pair')} drawn"
    )
    if a.allocation == "neyman":
        return (
            "Neyman allocation: each agreed label drawn with its audit unit's probability, "
            f"{_percent(a.share)} of them expected in all: {drawn}"
        )
    return f"each agreed label drawn with probability {_percent(a.share)}: {drawn}"


def _audit(a: AuditSheet) -> str:
    line = f"- Audit ({_audit_design(a)}): error rate of consensus labels {_interval(a.error)}"
    if a.error.n:
        line += f"; humans agree with the consensus on {_share(a.agreement)}"
        line += f", Cohen's kappa {_share(a.kappa)}"
    if a.side_error is not None and a.side_error.n:
        line += (
            f"; on the wrong side of relevance (grade 0 vs 1 or more): {_interval(a.side_error)}"
        )
    if a.kappa_weighted is not None:
        line += f"; weighted kappa (quadratic) {_share(a.kappa_weighted)}"
    return line


def _agreement(g: AgreementSheet) -> str:
    if not g.pairs:
        return (
            "- Agreement among annotators: no item of this job has two judgments (only the "
            "judgments on the job's own review items count here, a simulated annotator's "
            "included; votes on the same pair in other jobs meet only in the final labels, "
            "where they may tie)"
        )
    line = (
        f"- Agreement among annotators: {plural(g.pairs, 'pair')} judged more than once by "
        f"{plural(g.annotators, 'annotator')}; Cohen's kappa {_share(g.kappa)} (the two "
        f"annotators sharing the most pairs: {plural(g.kappa_items, 'pair')}); Krippendorff's "
        f"alpha (nominal) {_share(g.alpha)}"
    )
    if g.graded:
        line += (
            f"; alpha (ordinal) {_share(g.alpha_ordinal)}; weighted kappa (quadratic) "
            f"{_share(g.kappa_weighted)}"
        )
    return line + f"; {plural(g.disagreements, 'pair')} with disagreeing annotators"


def _job(job: JobSheet) -> list[str]:
    scale = md_code(job.scale)
    if job.scale == "graded":
        scale += f" (grades 0..{job.max_grade})"
    return [
        # A cancelled or unfinished job is named so: it may have given few labels or none.
        f"### Job {job.job}" + (f" ({job.status})" if job.status != "finished" else ""),
        "",
        *(_agent(agent) for agent in job.agents),
        f"- Prompt version {md_code(job.prompt_version)}; R = {job.rounds} rounds at most; "
        f"scale {scale}; consensus {md_code(job.consensus)}; temperature {job.temperature:g}",
        f"- Token budget: {_count(job.max_tokens)} completion tokens for a turn's first call, "
        f"{_count(job.max_tokens_cap)} for the re-ask of a reply cut at its budget"
        + (
            " (the default, twice the first call's: the job set no cap)"
            if job.max_tokens_cap_default
            else ""
        ),
        _audit(job.audit),
        _agreement(job.agreement),
        _calibration(job),
    ]


def _calibration_agent(c: CalibrationSheet) -> str:
    if c.ece is None or c.brier is None:
        return f"agent {c.agent}: {md_inline(c.missing)}"
    return (
        f"agent {c.agent} n = {_count(c.n)} of {_count(c.labelled)}, ECE {c.ece:.3f}, "
        f"Brier {c.brier:.3f}"
    )


def _calibration(job: JobSheet) -> str:
    """The job's calibration line: per agent n, ECE and Brier, or what is missing."""
    if not job.calibration:
        missing = job.calibration_missing or "not computed"
        return f"- Calibration ({CALIBRATION_SOURCES}): none, {md_inline(missing)}"
    agents = "; ".join(_calibration_agent(c) for c in job.calibration)
    return f"- Calibration ({CALIBRATION_SOURCES}): {agents}"


def _jobs(s: Datasheet) -> list[str]:
    lines = ["## Debate jobs", ""]
    if not s.jobs:
        return [*lines, "No debate job covered the pool."]
    lines.append(
        "The figures of each job's audit and annotators are as they stood when this file "
        "was written. A job's audit compares its own consensus with the human label of each "
        "pair it drew, one that people gave on another job's item too; so its wrong labels "
        f'and the human labels that overrode the consensus (under "{LABELS_HEADING}": each '
        "pool pair once, by its final label) may differ."
    )
    for job in sorted(s.jobs, key=lambda j: j.job):
        lines += ["", *_job(job)]
    return lines


def _intervals(s: Datasheet) -> list[str]:
    return interval_lines(
        s.intervals, code=md_code, text=md_inline, flat=one_line, software=_software(s)
    )


def _ranking(s: Datasheet) -> list[str]:
    return ranking_lines(s.intervals.ranking if s.intervals else None, code=md_code)


def _costs(s: Datasheet) -> list[str]:
    lines = [
        "## Cost per final label",
        "",
        "Per source and in all: LLM calls, tokens and money (prices `DREAM_LLM_PRICES`), "
        "human active seconds and money (`DREAM_HUMAN_PRICE_PER_HOUR`); a human or "
        "adjudicated label also pays for the debate before it."
        + (f" {SIMULATED_COST_NOTE}" if s.simulated_labels else ""),
        "",
    ]
    return lines + md_fenced("text", s.costs or ("no new labels",))


def _loading(s: Datasheet) -> list[str]:
    folder = json.dumps(s.folder)
    qrels = json.dumps(f"{s.folder}/qrels/{s.split}.tsv")
    return [
        "## Loading",
        "",
        "Unzip, then with BEIR (`pip install beir`) from the folder holding this one:",
        "",
        *md_fenced(
            "python",
            [
                "from beir.datasets.data_loader import GenericDataLoader",
                "",
                f"corpus, queries, qrels = GenericDataLoader(data_folder={folder}).load(",
                f"    split={json.dumps(s.split)}",
                ")",
            ],
        ),
        "",
        "`load` keeps the queries that have qrels. Without BEIR, every `.jsonl` line is one "
        "JSON object and the qrels read with the standard library:",
        "",
        *md_fenced(
            "python",
            [
                "import csv",
                "",
                "qrels = {}",
                f"with open({qrels}, newline='', encoding='utf-8') as f:",
                "    for row in csv.DictReader(f, delimiter='\\t'):",
                "        by_doc = qrels.setdefault(row['query-id'], {})",
                "        by_doc[row['corpus-id']] = int(row['score'])",
            ],
        ),
    ]


def datasheet_render(*, sheet: Datasheet) -> str:
    """The README.md of a benchmark zip: Markdown, UTF-8 text ending in one newline.

    Sections: title and files; source benchmark (name, source, licence); the refined set
    (name, date, original split, new labels, grades); the pool (runs and depth, query
    subset); final labels by source, unresolved by reason, escalations by reason; per
    debate job its agents (model, backend, reasoning options), prompt version, R, scale,
    temperature, token budgets, audit (Wilson interval) and agreement among annotators;
    the refined measures' 95% intervals (method, sample sizes, per run and measure, settled
    run pairs, Kendall's tau, the caveat; or why there are none); the ranking agreement of
    the original and refined leaderboards and each run's RBP with its residual; the cost per
    final label; how to load it. Deterministic: equal sheets, equal text.
    """
    front = (_header, _source, _refined, _pool, _labels, _jobs)
    sections = (*front, _intervals, _ranking, _costs, _loading)
    lines: list[str] = []
    for section in sections:
        if lines:
            lines.append("")
        lines += section(sheet)
    return "\n".join(lines) + "\n"
