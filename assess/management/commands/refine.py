import argparse

from django.core.management.base import BaseCommand, CommandError

from assess.models.simulated import simulated_sentence
from assess.refined.labels import DEFAULT_MAX_UNRESOLVED_SHARE, budget_split
from assess.refined.refine import (
    RefineError,
    RefineReport,
    open_disagreements_count,
    open_disagreements_sentence,
    qrels_refine,
)
from assess.refined.selectors import refined_sources
from core.text import plural
from corpora.models import Pool

LISTED = 50


def listed_type(value: str) -> int:
    """argparse type of ``--list``: a whole number of pairs, 0 or more (0 lists none)."""
    try:
        listed = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if listed < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {listed}")
    return listed


def _find_pool(name: str, dataset: str | None) -> Pool:
    if "/" in name and dataset is None:
        dataset, name = name.split("/", 1)
    pools = Pool.objects.filter(name=name).select_related("dataset")
    if dataset is not None:
        pools = pools.filter(dataset__slug=dataset)
    found = list(pools)
    if len(found) == 1:
        return found[0]
    if not found:
        known = ", ".join(
            f"{p.dataset.slug}/{p.name}" for p in Pool.objects.order_by("dataset__slug", "name")
        )
        raise CommandError(f"no pool {name!r} (known: {known or 'none'})")
    where = ", ".join(p.dataset.slug for p in found)
    raise CommandError(f"pool {name!r} exists in several datasets ({where}); pass --dataset")


def format_report(report: RefineReport, *, listed: int = LISTED) -> str:
    """The refinement's counts and its unresolved pairs (the first ``listed``)."""
    s = report.summary
    r = report.refinement
    sources = ", ".join(f"{n:,} {k}" for k, n in s.by_source.items() if k != "unresolved")
    reasons = ", ".join(f"{n:,} {k}" for k, n in s.by_reason.items())
    # A budgeted pool's pairs no job debated stay holes by design: counted apart, as the
    # summary (and its unresolved share) leaves them out.
    beyond = report.beyond_budget
    scope = f"{s.pairs:,} pairs"
    if beyond:
        # The budget stored on the refinement: the one its pairs were counted under.
        within, labelled = budget_split(pairs=s.pairs, budget=r.budget or 0)
        scope = (
            f"{s.pairs + beyond:,} pairs, {beyond:,} of them beyond its budget of "
            f"{r.budget or 0:,} and never debated (left unjudged by design), {within:,} "
            "within it"
            + (f", {labelled:,} beyond the budget labelled by other jobs" if labelled else "")
        )
    lines = [
        f"pool {r.pool.dataset.slug}/{r.pool.name}: {scope}; {s.resolved:,} with a "
        f"final label ({sources or 'none'}); {s.unresolved:,} unresolved "
        f"({s.unresolved_share:.1%} of pairs; allowed {r.max_unresolved_share:.1%}"
        f"{', --allow-partial' if r.allow_partial else ''})" + (f": {reasons}" if reasons else ""),
        f"refined qrel set {report.qrel_set.name} (origin refined): {r.original_rows:,} original "
        f"rows of {r.original.name} unchanged + {s.new_relevant:,} relevant + "
        f"{s.new_nonrelevant:,} not relevant = "
        f"{r.original_rows + s.new_relevant + s.new_nonrelevant:,} rows",
        f"new rows by grade: {_new_grades(report)} (a binary 'relevant' is written as grade "
        f"{r.relevant_grade}; graded labels keep their grade)",
        open_disagreements_sentence(open_disagreements_count(s.by_reason)),
    ]
    if s.kept_original:
        lines.append(
            f"{s.kept_original:,} re-assessed pairs were judged already: original grade kept "
            f"({s.disagree_with_original - s.corrections:,} disagree with it, see the "
            "disagreements export)"
        )
    if s.corrections:
        lines.append(
            f"{s.corrections:,} corrections: a human verdict against the original grade "
            'replaced it (the labels export marks them "correction": true)'
        )
    if r.exclude_flagged:
        left_out = ", ".join(
            f"{e['annotator']} ({e['gold_correct']} of {e['gold_answers']} gold)"
            for e in r.excluded_annotators
        )
        lines.append(f"judgments of flagged annotators left out: {left_out or 'none flagged'}")
    if s.overrides_consensus:
        overrode = plural(s.overrides_consensus, "human label")
        lines.append(f"{overrode} overrode the debate consensus")
    unresolved = report.unresolved
    if unresolved:
        lines.append(f"unresolved pairs (no final label, left unjudged): {len(unresolved):,}")
        shown = unresolved[:listed]
        if shown:  # --list 0: the count and where to find the pairs, no empty table
            width = max(len("query"), *(len(q) for q, _, _ in shown))
            dwidth = max(len("document"), *(len(d) for _, d, _ in shown))
            lines.append(f"  {'query':<{width}}  {'document':<{dwidth}}  reason")
            for query_id, doc_id, reason in shown:
                lines.append(f"  {query_id:<{width}}  {doc_id:<{dwidth}}  {reason}")
        if len(unresolved) > len(shown):
            lines.append(
                f"  ... and {len(unresolved) - len(shown):,} more (export_labels DATASET "
                f"{report.qrel_set.name} --kind disagreements lists them all)"
            )
    return "\n".join(lines)


def _new_grades(report: RefineReport) -> str:
    # The rows added; corrections (applied over an original grade) are counted apart.
    counts = report.refinement.provenance.filter(
        applied=True, original_relevance__isnull=True
    ).values_list("grade", flat=True)
    by_grade: dict[int, int] = {}
    for grade in counts:
        if grade is not None:  # an applied row has its grade; the column is nullable
            by_grade[grade] = by_grade.get(grade, 0) + 1
    return ", ".join(f"{g}: {n:,}" for g, n in sorted(by_grade.items())) or "none"


class Command(BaseCommand):
    help = (
        "Create a refined, immutable qrel set from a pool's final labels: the original "
        "judgments unchanged plus the new relevant and not-relevant labels."
    )

    def add_arguments(self, parser):
        parser.add_argument("pool", help="Pool name, or DATASET/POOL")
        parser.add_argument("--name", required=True, help="Name of the new refined qrel set")
        parser.add_argument("--dataset", help="Dataset slug (when the pool name is ambiguous)")
        parser.add_argument(
            "--allow-partial",
            action="store_true",
            help="Refine even when more pairs are unresolved than allowed (they stay unjudged)",
        )
        parser.add_argument(
            "--max-unresolved",
            type=float,
            default=DEFAULT_MAX_UNRESOLVED_SHARE,
            help="Largest share of unresolved pairs accepted without --allow-partial "
            f"(default {DEFAULT_MAX_UNRESOLVED_SHARE})",
        )
        parser.add_argument(
            "--list",
            type=listed_type,
            default=LISTED,
            help=f"Unresolved pairs listed (default {LISTED}; 0: only their count)",
        )
        parser.add_argument(
            "--relevant-grade",
            type=int,
            default=1,
            help="Grade a binary 'relevant' label is written as (default 1; at most the "
            "original qrels' top grade, e.g. 2 on TREC DL); graded labels keep their grade",
        )

        parser.add_argument(
            "--exclude-flagged",
            action="store_true",
            help="Leave out the judgments of annotators flagged under the gold accuracy "
            "floor (recorded in the refined set's provenance)",
        )

    def handle(self, *args, **opts):
        pool = _find_pool(opts["pool"], opts["dataset"])
        try:
            report = qrels_refine(
                pool=pool,
                name=opts["name"],
                allow_partial=opts["allow_partial"],
                max_unresolved_share=opts["max_unresolved"],
                relevant_grade=opts["relevant_grade"],
                exclude_flagged=opts["exclude_flagged"],
            )
        except RefineError as exc:
            raise CommandError(f"refine refused, nothing written: {exc}") from None
        self.stdout.write(format_report(report, listed=opts["list"]))
        _, simulated = refined_sources(refinement=report.refinement)
        if simulated_sentence(simulated):
            self.stdout.write(f"{simulated_sentence(simulated)}.\n")
