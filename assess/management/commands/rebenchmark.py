from django.core.management.base import BaseCommand, CommandError

from assess.evaluation.interval_deltas import DeltaIntervals, not_refined, not_refined_note
from assess.evaluation.rebench import (
    RebenchError,
    rebench_compute,
    rebench_original_check,
    rebench_qrel_set,
    rebench_refined_from,
    rebench_runs,
)
from assess.evaluation.refined_intervals import (
    interval_tables,
    refined_simulated,
    report_intervals,
)
from assess.evaluation.tables import format_text, rebench_tables, relevance_note
from assess.models.bundled import refined_bundled_warning
from assess.models.simulated import simulated_sentence
from corpora.formats import relevance_level_check
from corpora.management.commands._common import load_dataset


class Command(BaseCommand):
    help = (
        "Score every run of a dataset on the original and a refined qrel set: leaderboards, "
        "rank changes, Kendall's tau-b, tau_AP,b, top-10 tau, RBO, RBP with its residual, "
        "paired tests and per-query changes; for a set made by refine, each nDCG@10 change "
        "with its 95% interval and the intervals of the refined measures."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument(
            "--original",
            help="Original qrel set (default: the one --refined was refined from, else test)",
        )
        parser.add_argument("--refined", required=True, help="Refined qrel set")
        parser.add_argument(
            "--runs", help="Comma-separated run names (default: every finished run)"
        )
        parser.add_argument(
            "--no-per-query", action="store_true", help="Leave out the per-query changes"
        )
        parser.add_argument(
            "--rel-level",
            type=int,
            default=1,
            help="Lowest grade that R@k, P@k, Success@k and Hole@10 count as relevant "
            "(ir_measures' rel=; default 1, e.g. 2 for TREC Deep Learning)",
        )
        parser.add_argument(
            "--no-intervals",
            action="store_true",
            help="Leave out the 95%% intervals from the audit (prediction-powered)",
        )
        parser.add_argument(
            "--exp-gain",
            action="store_true",
            help="Add nDCG@10 with exponential gains 2^grade - 1 (column 'nDCG@10 (exp. gain)')",
        )

    def handle(self, *args, **opts):
        try:  # named by its flag, as pool_study does, before anything is read
            relevance_level_check(opts["rel_level"])
        except ValueError as exc:
            raise CommandError(f"--rel-level: {exc}") from None
        dataset = load_dataset(opts["dataset"])
        names = [n.strip() for n in (opts["runs"] or "").split(",") if n.strip()]
        try:
            refined = rebench_qrel_set(dataset=dataset, name=opts["refined"])
            origins = rebench_refined_from(refined=refined)
            default = origins[0].name if origins else "test"
            original = rebench_qrel_set(dataset=dataset, name=opts["original"] or default)
            _original_check(original, refined)
            runs = rebench_runs(dataset=dataset, names=names or None)
            report = rebench_compute(
                dataset=dataset,
                original=original,
                refined=refined,
                runs=runs,
                use_cache=False,
                rel_level=opts["rel_level"],
                exp_gain=opts["exp_gain"],
            )
        except RebenchError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"re-benchmark of {dataset.slug}: {len(report.runs)} runs ({', '.join(report.runs)}) "
            f"on qrels {original.name} (original) and {refined.name} (refined)\n"
        )
        made_by_refine = hasattr(refined, "refinement")
        if not made_by_refine:
            self.stdout.write(f"Note: {not_refined_note(refined.name)}.\n")
        simulated = simulated_sentence(refined_simulated(refined=refined))
        if simulated:
            self.stdout.write(f"{simulated}.\n")
        if bundled := refined_bundled_warning(qrel_set=refined):
            self.stdout.write(f"Labels from a tiny model, not for a benchmark. {bundled}\n")
        if report.self_entries_note():
            self.stdout.write(report.self_entries_note() + "\n")
        self.stdout.write(relevance_note(report.result) + "\n\n")
        found = None
        if opts["no_intervals"]:
            deltas = DeltaIntervals(missing="not computed (--no-intervals)")
        elif not made_by_refine:
            deltas = not_refined(refined.name)
        else:
            found = report_intervals(
                report=report, original=original, refined=refined, rel_level=opts["rel_level"]
            )
            deltas = found.deltas()
        tables = rebench_tables(report.result, per_query=not opts["no_per_query"], deltas=deltas)
        self.stdout.write(format_text(tables))
        if report.effects_tables():  # the refined set corrects original grades
            self.stdout.write("\n" + format_text(report.effects_tables()))
        if found is not None:
            self.stdout.write("\n" + format_text(interval_tables(found)))
        elif not opts["no_intervals"]:
            self.stdout.write(
                f"\nNo intervals: {refined.name} was not made by refine, so no label has a "
                "provenance to sample from.\n"
            )


def _original_check(original, refined) -> None:
    """:func:`rebench_original_check`, its refusal naming the flag."""
    try:
        rebench_original_check(original=original, refined=refined)
    except RebenchError as exc:
        raise CommandError(f"--original: {exc}") from None
