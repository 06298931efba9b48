"""The re-benchmark's tables as plain rows of text, shared by the pages and the terminal.
Pure: built from an :class:`assess.evaluation.metrics.RebenchResult`, no database.

Numbers are shown with 4 decimals, p-values with 4 (``<0.0001`` below), a missing value as
``n/a``. The page renders the same cells in HTML tables; :func:`format_text` aligns them
for the ``rebenchmark`` command.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from core.text import plural

from .interval_deltas import DeltaIntervals
from .interval_reports import TAU_DEBATE_LABELS
from .metrics import HOLE10, NDCG10, NDCG10_EXP, PAPER_NDCG10, LeaderboardRow, RebenchResult
from .ranking import RBP_P, TIE_DECIMALS, RankingAgreement, RbpScore, ranking_agreement, shown_ranks


def relevance_note(result: RebenchResult) -> str:
    """How the tables count relevance (printed above them): the lowest grade the binary
    measures and Hole@10 count as relevant, and the gains of nDCG@10 (and of the
    exponential-gain variant when it is a column)."""
    rel = result.rel_level
    counted = "grade >= 1 (any grade > 0)" if rel == 1 else f"grade >= {rel}"
    note = (
        f"Relevance level {rel}: R@k, P@k, Success@k and {HOLE10} count {counted} as "
        f"relevant. {NDCG10} gains = grade (trec_eval's linear gain)"
    )
    if NDCG10_EXP in result.measures:
        note += f"; '{NDCG10_EXP}' gains = 2^grade - 1"
    note += "."
    top = result.top_grade
    if top is not None and top < rel:
        # trec_eval and ir_measures give 0 here too; said, so that zeros are not read as a
        # finding about the runs.
        note += (
            f" No judgment of either qrel set reaches grade {rel} (the highest is {top}): "
            f"R@k, P@k, Success@k and {HOLE10} are 0 for every run by construction."
        )
    return note


def mean_deltas(result: RebenchResult) -> dict[str, dict[str, float]]:
    """``{measure: {system: mean on the refined − mean on the original qrels}}`` for every
    measure of ``result``, in column order (the bars of the delta plot)."""
    before = {row.system: row.scores for row in result.before}
    return {
        m: {row.system: row.scores[m] - before[row.system][m] for row in result.after}
        for m in result.measures
    }


@dataclass(frozen=True)
class Table:
    """A titled table: ``header`` cells, ``rows`` of cells (all text), and a ``note``.
    ``numeric`` marks the columns to right-align. ``empty`` is the sentence shown in the
    table's place when it has no row (a header over nothing says nothing)."""

    title: str
    header: tuple[str, ...]
    rows: list[tuple[str, ...]]
    note: str = ""
    numeric: tuple[bool, ...] = field(default=())
    empty: str = "No rows."


def number(value: float | None, places: int = 4) -> str:
    """``value`` with ``places`` decimals, or ``n/a``."""
    return "n/a" if value is None else f"{value:.{places}f}"


def p_value(value: float | None) -> str:
    """A p-value with 4 decimals; ``<0.0001`` below that; ``n/a`` when undefined."""
    if value is None:
        return "n/a"
    return "<0.0001" if value < 0.0001 else f"{value:.4f}"


def signed(value: float) -> str:
    """A change with an explicit sign: ``+0.0123``, ``-0.0040``, ``0.0000``."""
    return "0.0000" if round(value, 4) == 0 else f"{value:+.4f}"


def leaderboard_table(
    result: RebenchResult, *, after: bool, holes: Mapping[str, float] | None = None
) -> Table:
    """The leaderboard on the original (``after=False``) or refined qrels, sorted by
    nDCG@10; the refined one also shows Hole@10."""
    rows_in = result.after if after else result.before
    measures = list(result.measures)
    header = ["rank", "system", *measures]
    if after and holes is not None:
        header.append(HOLE10)
    rows = []
    for row in rows_in:
        cells = [str(row.rank), row.system, *(number(row.scores[m]) for m in measures)]
        if after and holes is not None:
            cells.append(number(holes[row.system]))
        rows.append(tuple(cells))
    which = "refined" if after else "original"
    return Table(
        title=f"Leaderboard on the {which} qrels",
        header=tuple(header),
        rows=rows,
        note=f"Sorted by {NDCG10}; '{PAPER_NDCG10}' divides by the ideal DCG over all relevant "
        "documents (DREAM paper) and is shown for comparison only.",
        numeric=(True, False, *([True] * (len(header) - 2))),
    )


def rbp_cell(score: RbpScore | None) -> str:
    """RBP with its residual as ``0.2000 + 0.6720`` (base + residual), or ``n/a``."""
    return "n/a" if score is None else f"{score.base:.4f} + {score.residual:.4f}"


def rank_change_table(result: RebenchResult, *, deltas: DeltaIntervals | None = None) -> Table:
    """Per system: rank before/after and its change, nDCG@10 before/after/delta, Hole@10,
    the paired tests on per-query nDCG@10 (Wilcoxon signed-rank and paired t), and RBP
    (p = 0.8) with its residual on the original and the refined qrels. With ``deltas``
    (:meth:`assess.evaluation.refined_intervals.RefinedIntervals.deltas`), the delta's 95%
    interval beside it, "Δ nDCG@10 [95%]", and the note says its n, or why there is none."""
    header = [
        "system",
        "rank original",
        "rank refined",
        "change",
        f"{NDCG10} original",
        f"{NDCG10} refined",
        f"Δ {NDCG10}",
    ]
    if deltas is not None:
        header.append(f"Δ {NDCG10} [95%]")
    header += [
        HOLE10,
        "queries",
        "Wilcoxon p",
        "t-test p",
        f"RBP(p={RBP_P}) original + residual",
        f"RBP(p={RBP_P}) refined + residual",
    ]
    before = {r.system: r.scores[NDCG10] for r in result.before}
    after = {r.system: r.scores[NDCG10] for r in result.after}
    # Ranks as printed: systems whose nDCG@10 the table shows equal share a rank ("=2"), so
    # a tie never reads as a system moving down a place; the rows keep the leaderboard's
    # order (a tie broken by name).
    rank_before, rank_after = shown_ranks(before), shown_ranks(after)
    rows: list[tuple[str, ...]] = []
    for system in sorted(result.rank_changes, key=lambda s: (result.rank_changes[s].after, s)):
        moved = int(rank_before[system].lstrip("=")) - int(rank_after[system].lstrip("="))
        test = result.significance[system]
        cells = [
            system,
            rank_before[system],
            rank_after[system],
            f"{moved:+d}" if moved else "0",
            number(before[system]),
            number(after[system]),
            signed(after[system] - before[system]),
        ]
        if deltas is not None:
            cells.append(deltas.cell(NDCG10, system))
        cells += [
            number(result.holes[system]),
            str(test.n),
            p_value(test.wilcoxon_p),
            p_value(test.t_p),
            rbp_cell(result.rbp_before.get(system)),
            rbp_cell(result.rbp_after.get(system)),
        ]
        rows.append(tuple(cells))
    tau = (
        f"Kendall's tau-b {TAU_DEBATE_LABELS}, between the two {NDCG10} rankings: "
        f"{number(result.kendall_tau)} "
        f"(p = {p_value(result.kendall_p)})"
        if result.kendall_tau is not None
        else f"Kendall's tau: n/a (needs 2+ systems and non-constant {NDCG10})"
    )
    interval = f" {deltas.table_note(NDCG10, result.rel_level)}" if deltas is not None else ""
    return Table(
        title="Rank changes",
        header=tuple(header),
        rows=rows,
        note=f"{tau}. Change = rank original − rank refined (positive: moved up; =k: "
        f"tied at k with a system whose {NDCG10} is equal to {TIE_DECIMALS} decimals). "
        f"{len(result.queries):,} evaluation queries (judged in the original qrels).{interval} "
        f"{RBP_NOTE}",
        numeric=(False, *([True] * (len(header) - 1))),
    )


RBP_NOTE = (
    f"RBP(p={RBP_P}) (rank-biased precision, Moffat and Zobel, TOIS 2008) + residual: the "
    "RBP of the judged relevant documents, and how much unjudged documents and the ranking's "
    "tail could still add (the true value lies in between); relevance as R@k."
)

# The agreement measures in table order: label, the API's key (autojudge-evaluate's name
# where it has one), and the attribute of RankingAgreement.
AGREEMENT_ROWS = (
    ("Kendall's tau-b", "kendall_tau_b", "kendall_tau_b"),
    ("AP correlation tau_AP,b", "tauap_b", "tauap_b"),
    ("Kendall's tau-b of the original top 10", "kendall@10", "kendall_at_k"),
    ("RBO (p = 0.9), extrapolated", "rbo", "rbo"),
)
AGREEMENT_NOTE = (
    "tau-b: Kendall (1945), ties counted as ties. tau_AP,b: AP correlation (Yilmaz, Aslam "
    "and Robertson, SIGIR 2008), a swap near the top costs more; ties as Urbano and Marrero "
    "(ICTIR 2017): symmetric, a tie is no agreement (autojudge-evaluate's tauap_b). Top 10: "
    "tau-b over the 10 best systems on the original qrels, a tie at the cut broken by name "
    "(autojudge-evaluate's kendall@10). RBO: rank-biased overlap (Webber, Moffat and Zobel, "
    "TOIS 2010), RBO_ext of two complete lists, 1 = same order; ties as Corsi and Urbano "
    "(SIGIR 2024) RBO^a, the mean over the orders of tied systems. n/a: fewer than 2 systems "
    "or every system tied on a side."
)


def agreement_of(result: RebenchResult) -> RankingAgreement:
    """``result.agreement``, or computed from its two leaderboards (nDCG@10) when a result
    was built without it."""
    if result.agreement is not None:
        return result.agreement
    return ranking_agreement(
        {r.system: r.scores[NDCG10] for r in result.before},
        {r.system: r.scores[NDCG10] for r in result.after},
    )


def ranking_table(result: RebenchResult) -> Table:
    """How far the refined leaderboard agrees with the original one (both on nDCG@10):
    Kendall's tau-b (with its p-value), tau_AP,b, tau-b of the original top 10 and RBO
    (p = 0.9), each with its number of systems ``n``; the note names the sources and ties."""
    agreement = agreement_of(result)
    rows: list[tuple[str, ...]] = []
    for label, key, attribute in AGREEMENT_ROWS:
        n = agreement.k_n if key == "kendall@10" else agreement.n
        rows.append((label, key, number(getattr(agreement, attribute)), str(n)))
    return Table(
        title=f"Ranking agreement: {TAU_DEBATE_LABELS} leaderboard ({NDCG10})",
        header=("measure", "name", "value", "n"),
        rows=rows,
        note=f"n = systems compared. tau-b p = {p_value(agreement.kendall_p)} (two-sided). "
        + AGREEMENT_NOTE,
        numeric=(False, False, True, True),
    )


def ranking_json(result: RebenchResult) -> dict[str, object]:
    """The ranking measures as the API's re-benchmark JSON holds them: ``kendall_tau_b``
    ``{"value", "p_value", "n", "compares"}`` (also under
    ``kendall_tau_b_original_vs_debate_labels``: the leaderboards on the original and on the
    refined qrels, whose new labels are the debates'), ``tauap_b`` ``{"value", "n"}``,
    ``kendall@10`` ``{"value", "k", "n"}``, ``rbo`` ``{"value", "p", "n"}`` (values None
    where undefined; ``n`` the systems compared), and per system ``rbp`` (on the refined qrels) and
    ``rbp_original``: ``{system: {"p", "base", "residual"}}``."""
    a = agreement_of(result)

    def rbp(scores: Mapping[str, RbpScore]) -> dict[str, dict[str, float]]:
        return {s: {"p": v.p, "base": v.base, "residual": v.residual} for s, v in scores.items()}

    tau_b: dict[str, object] = {"value": a.kendall_tau_b, "p_value": a.kendall_p, "n": a.n}
    tau_b["compares"] = TAU_DEBATE_LABELS
    return {
        "kendall_tau_b": tau_b,
        # The same tau under a key that says what it compares, beside the intervals'
        # "kendall_tau_original_vs_ppi" (the runs ranked by the PPI estimates instead).
        "kendall_tau_b_original_vs_debate_labels": dict(tau_b),
        "tauap_b": {"value": a.tauap_b, "n": a.n},
        "kendall@10": {"value": a.kendall_at_k, "k": a.k, "n": a.k_n},
        "rbo": {"value": a.rbo, "p": a.rbo_p, "n": a.n},
        "rbp": rbp(result.rbp_after),
        "rbp_original": rbp(result.rbp_before),
    }


def leaderboards_json(result: RebenchResult) -> dict[str, list[dict[str, object]]]:
    """The two leaderboards as numbers, for a program (the tables' ``rows`` hold display
    strings rounded to four places): ``{"original": [ROW], "refined": [ROW]}`` in
    leaderboard order, ROW ``{"rank", "system", "scores": {measure: mean}}`` with every
    measure of the table's header (means over the evaluation queries, unrounded); the
    refined rows' ``scores`` also hold Hole@10, as the refined table does."""

    def rows(
        board: Sequence[LeaderboardRow], holes: Mapping[str, float] | None
    ) -> list[dict[str, object]]:
        out: list[dict[str, object]] = []
        for row in board:
            scores = {m: row.scores[m] for m in result.measures}
            if holes is not None:
                scores[HOLE10] = holes[row.system]
            out.append({"rank": row.rank, "system": row.system, "scores": scores})
        return out

    return {"original": rows(result.before, None), "refined": rows(result.after, result.holes)}


def per_query_delta_table(result: RebenchResult, *, measures: Sequence[str] | None = None) -> Table:
    """Per system and query, the change (refined − original) of ``measures`` (default: every
    measure of the leaderboards, the paper nDCG@10 variant included) and the query's
    Hole@10; only the (system, query) pairs where some measure changed or a hole was filled
    are listed."""
    measures = [m for m in (measures or result.measures) if m in result.measures]
    rows = []
    unchanged = 0
    for system in sorted(result.deltas):
        for query_id in result.queries:
            delta = result.deltas[system][query_id]
            if all(round(delta[m], 12) == 0 for m in measures) and not result.holes_per_query[
                system
            ].get(query_id):
                unchanged += 1
                continue
            rows.append(
                (
                    system,
                    query_id,
                    *(signed(delta[m]) for m in measures),
                    number(result.holes_per_query[system].get(query_id, 0.0)),
                )
            )
    return Table(
        title="Per-query changes (refined − original)",
        header=("system", "query", *(f"Δ {m}" for m in measures), HOLE10),
        rows=rows,
        note=f"{len(rows):,} changed (system, query) pairs listed; {unchanged:,} unchanged.",
        empty="No query changed for any system: the refined qrels score every run as before.",
        numeric=(False, False, *([True] * (len(measures) + 1))),
    )


def per_query_changes_count(table: Table) -> str:
    """The count in the heading of :func:`per_query_delta_table`'s ``table``: the queries
    that changed for some system, and the (system, query) rows when there are more of them
    (one query changed for two systems is "1 query changed, 2 (system, query) rows")."""
    queries = len({row[1] for row in table.rows})
    count = f"{plural(queries, 'query', 'queries')} changed"
    if len(table.rows) == queries:
        return count
    return f"{count}, {plural(len(table.rows), '(system, query) row')}"


def rebench_tables(
    result: RebenchResult, *, per_query: bool = True, deltas: DeltaIntervals | None = None
) -> list[Table]:
    """The re-benchmark's tables: the two leaderboards, rank changes (with ``deltas``, each
    nDCG@10 delta's 95% interval: :func:`rank_change_table`), (with ``per_query``) the
    per-query deltas, and the ranking agreement last (after the per-query deltas, so the
    API's tables keep their places; the page shows it after the rank changes)."""
    tables = [
        leaderboard_table(result, after=False),
        leaderboard_table(result, after=True, holes=result.holes),
        rank_change_table(result, deltas=deltas),
    ]
    if per_query:
        tables.append(per_query_delta_table(result))
    tables.append(ranking_table(result))
    return tables


def format_table(table: Table) -> str:
    """One table as aligned plain text: title, header, a rule, rows, then the note; without
    a row, the title, the ``empty`` sentence and the note."""
    if not table.rows:
        return "\n".join([table.title, table.empty, *([table.note] if table.note else [])])
    widths = [len(h) for h in table.header]
    for row in table.rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    numeric = table.numeric or tuple(False for _ in table.header)

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.rjust(w) if n else c.ljust(w) for c, w, n in zip(cells, widths, numeric, strict=True)
        ).rstrip()

    out = [table.title, line(table.header), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in table.rows]
    if table.note:
        out.append(table.note)
    return "\n".join(out)


def format_text(tables: Sequence[Table]) -> str:
    """Tables separated by blank lines (the ``rebenchmark`` command's output)."""
    return "\n\n".join(format_table(t) for t in tables) + "\n"


RAG_FORMULA = (
    "RAGAlign@k = |{q : hit_k(q) = correct(q)}| / |Q|, where hit_k(q) says a relevant chunk "
    "(grade > 0 in the qrels) is in the run's top k and correct(q) that the generated answer "
    "contains a normalised reference answer (SQuAD normalisation; DREAM paper, Ban et al., "
    "ICLR 2026, arXiv 2602.06526)."
)


def _correlation(label: str, corr) -> str:
    if corr is None:
        return f"{label}: n/a (needs 3+ systems with non-constant values)"
    return (
        f"{label}: Pearson r = {number(corr.pearson_r)} (p = {p_value(corr.pearson_p)}), "
        f"Spearman rho = {number(corr.spearman_rho)} (p = {p_value(corr.spearman_p)}), "
        f"{corr.n} systems"
    )


def rag_table(report) -> Table:
    """Per system (an :class:`assess.evaluation.rag_eval.RagReport`'s systems): answer accuracy,
    exact match, F1, Success@k and RAGAlign@k with the original and refined qrels, and how many
    answers were generated now or reused; the note gives the correlations and the formula."""
    k = report.k
    refined = report.refined is not None
    header = ["system", "queries", "accuracy", "exact match", "F1", f"Success@{k} original"]
    if refined:
        header.append(f"Success@{k} refined")
    header.append(f"RAGAlign@{k} original")
    if refined:
        header.append(f"RAGAlign@{k} refined")
    header += ["generated", "reused"]
    rows = []
    for s in report.systems:
        cells = [s.run, str(s.queries), number(s.accuracy), number(s.exact_match), number(s.f1)]
        cells.append(number(s.success_original))
        if refined:
            cells.append(number(s.success_refined))
        cells.append(number(s.align_original))
        if refined:
            cells.append(number(s.align_refined))
        cells += [str(s.generated), str(s.reused)]
        rows.append(tuple(cells))
    notes = [
        f"Correlation across systems between Success@{k} and answer accuracy — "
        + _correlation("original qrels", report.correlation_original)
    ]
    if refined:
        notes.append(_correlation("refined qrels", report.correlation_refined))
    notes.append(RAG_FORMULA)
    return Table(
        title=(
            f"RAG alignment at k = {k}: {len(report.queries):,} queries (judged in "
            f"{report.original}, with reference answers); generator {report.backend}, "
            f"prompt {report.prompt_version}"
        ),
        header=tuple(header),
        rows=rows,
        note="\n".join(notes),
        numeric=(False, *([True] * (len(header) - 1))),
    )
