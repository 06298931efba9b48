"""``simulate_study``: how well do refined-metric intervals cover, with simulated assessors?"""

import json

from django.core.management.base import BaseCommand, CommandError

from assess.evaluation.intervals import INTERVAL_MEASURES
from assess.evaluation.simulation import AUDIT_DESIGNS, LLM_ONLY_NOTE, StudyDesign
from assess.evaluation.study import StudyError, study_simulate
from core.fixes import option_flag
from core.paths import caller_path
from core.text import plural
from corpora.management.commands._common import budget_type, load_dataset
from corpora.pool_strategies import MAX_BUDGET, STRATEGIES
from debates.audit_design import allocation_describe
from debates.simulated import SimulatedAssessor


class Command(BaseCommand):
    help = (
        "Simulate refining a benchmark with simulated debaters and annotators that answer "
        "from a truth qrels file, many times over, and report how often each method's 95% "
        "interval on nDCG@10 (and each measure of --measures) contains the value a perfect "
        "assessor would give (coverage) and how wide it is; and how often the paired "
        "differences and the tau interval cover, and settled orders are wrong. The llm_only "
        "row takes the machine labels as right with a bootstrap over queries: not a valid "
        "interval on that value, shown for contrast, its coverage may be far below 95%. Every "
        "label in it is simulated; nothing is stored."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument(
            "--truth",
            required=True,
            type=caller_path,
            help="TREC or BEIR qrels file read as the perfect assessor's labels",
        )
        parser.add_argument(
            "--runs",
            default="bm25,dense",
            help="Comma-separated runs (default bm25,dense; a missing bm25 or dense is made)",
        )
        parser.add_argument("--depth", type=int, default=10, help="Pool depth (default 10)")
        parser.add_argument(
            "--hide",
            type=float,
            default=0.5,
            help="Share of the truth's relevant pairs left out of the starting qrels, so "
            "they become holes (default 0.5)",
        )
        parser.add_argument(
            "--sensitivity",
            type=float,
            default=0.9,
            help="Each debater's recall of relevant pairs (default 0.9)",
        )
        parser.add_argument(
            "--specificity",
            type=float,
            default=0.8,
            help="Each debater's recall of non-relevant pairs (default 0.8)",
        )
        parser.add_argument(
            "--persistence",
            type=float,
            default=0.3,
            help="Chance that a debater states its assigned stance in round 1 (squared in "
            "round 2...) instead of its belief (default 0.3)",
        )
        parser.add_argument("--rounds", type=int, default=2, help="Rounds R (default 2)")
        parser.add_argument(
            "--annotator-error",
            type=float,
            default=0.0,
            help="Chance a simulated annotator gives the wrong label (default 0). The "
            "intervals take human labels as right, so with errors they estimate the value "
            "under the annotators' labels: 'coverage' stays against the perfect assessor's "
            "value, 'coverage_of_annotators_value' is against the annotators'",
        )
        parser.add_argument(
            "--audit-share",
            type=float,
            default=0.1,
            help="Share of agreed pairs audited by a human (default 0.1)",
        )
        parser.add_argument(
            "--audit-design",
            choices=AUDIT_DESIGNS,
            default="uniform",
            help="uniform: every agreed pair audited at the share (default); impact: with a "
            "probability proportional to its DCG gain over the runs, the same number expected; "
            "neyman: units of stratum (consensus label x round) x best rank; a pilot at a tenth "
            "of the share, then the rest by each stratum's error rate times the rank's DCG "
            "discount (debates.audit_design)",
        )
        parser.add_argument(
            "--measures",
            default="nDCG@10",
            help="Comma-separated measures whose intervals are checked, of "
            f"{', '.join(INTERVAL_MEASURES)} (default nDCG@10; nDCG@10 is always checked: "
            "the JSON's methods are its figures)",
        )
        _pool_arguments(parser)
        parser.add_argument("--replications", type=int, default=200, help="Default 200")
        parser.add_argument("--seed", type=int, default=1, help="Default 1")
        parser.add_argument("--json", action="store_true", help="Print one JSON object")

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        runs = [n.strip() for n in opts["runs"].split(",") if n.strip()]
        try:
            assessor = SimulatedAssessor(
                sensitivity=opts["sensitivity"],
                specificity=opts["specificity"],
                persistence=opts["persistence"],
                rounds=opts["rounds"],
                annotator_error=opts["annotator_error"],
            )
            design = StudyDesign(
                depth=opts["depth"],
                hide=opts["hide"],
                audit_share=opts["audit_share"],
                replications=opts["replications"],
                seed=opts["seed"],
                assessor=assessor,
                audit_design=opts["audit_design"],
                measures=_measures(opts["measures"]),
                strategy=opts["strategy"],
                budget=opts["budget"],
            )
        except ValueError as exc:
            # The designs name the field first ("audit_share: ..."): say it as the flag.
            key, _, rest = str(exc).partition(": ")
            raise CommandError(f"{option_flag(key)}: {rest}" if rest else str(exc)) from None
        echo = (lambda _: None) if opts["json"] else (lambda m: self.stderr.write(m))
        try:
            result = study_simulate(
                dataset=dataset, truth_path=opts["truth"], runs=runs, design=design, echo=echo
            )
        except StudyError as exc:
            raise CommandError(str(exc)) from None
        payload = result.as_json()
        if opts["json"]:
            self.stdout.write(json.dumps(payload))
            return
        self.stdout.write(
            f"simulated study of {dataset.slug} (SIMULATED labels): "
            f"{plural(result.replications, 'replication')}, "
            f"{plural(result.systems, 'system')}, "
            f"{plural(result.queries, 'query', 'queries')}; mean per replication "
            f"{_mean(result.pooled_pairs)} pooled pairs, {_mean(result.escalated)} escalated, "
            f"{_mean(result.wrong_consensus)} wrong consensus labels, "
            f"{_mean(result.human_labels)} human labels ({_mean(result.escalated)} escalated, "
            f"{_mean(result.audited_labels)} audited), {_mean(result.llm_calls)} simulated "
            "LLM calls (none made)\n"
            f"{_pool_line(result)}"
            f"{_audit_line(result.audit_design, result.audit_share)}\n"
        )
        self._table(result, annotator_error=design.assessor.annotator_error)

    def _table(self, result, *, annotator_error: float) -> None:
        """Each measure's three methods (coverage with its 95% interval; with erring annotators
        also the coverage of the annotators' value, what the intervals estimate; the mean
        error, estimate - true value, the bias as far as the replications tell), then its
        prediction-powered comparisons."""
        erring = annotator_error > 0
        self.stdout.write(
            "measure   method      coverage [95% interval]  "
            + ("of annotators' value  " if erring else "")
            + "mean width  mean error (se)    intervals  whole range  failures  lowest system\n"
        )
        for measure, tallies in result.by_measure.items():
            for name, row in tallies.items():
                s = row.summary()
                band = s["coverage_interval"]
                cov = _fixed(s["coverage"], 3) + (
                    f" [{band[0]:.3f}, {band[1]:.3f}]" if band else ""
                )
                low = s["lowest_system_coverage"]
                lowest = f"{low['coverage']:.3f} {low['system']}" if low else "-"
                annotators = (
                    f"{_fixed(s['coverage_of_annotators_value'], 3):>20}  " if erring else ""
                )
                self.stdout.write(
                    f"{measure:<9} {name:<11} {cov:<23}  {annotators}"
                    f"{_fixed(s['mean_width'], 4):>10}  "
                    f"{_error(s['mean_error'], s['mean_error_se']):<17}  "
                    f"{s['intervals']:>9}  "
                    f"{s['whole_range_intervals']:>11}  {s['failures']:>8}  {lowest}\n"
                )
        self.stdout.write(
            "mean error: estimate - the perfect assessor's value, over the intervals (the "
            "bias as far as the replications tell), with its standard error over them\n"
        )
        self.stdout.write(f"{LLM_ONLY_NOTE}\n")
        if erring:
            self.stdout.write(
                f"The simulated annotators err ({annotator_error:g}): the intervals take "
                "their labels as right, so they estimate the value under the annotators' "
                "labels; 'coverage' is against the perfect assessor's.\n"
            )
        for measure, tally in result.comparisons.items():
            self.stdout.write(_comparison_line(measure, tally.summary(), result.systems))


def _pool_arguments(parser) -> None:
    """``--strategy`` and ``--budget``: the pairs each replication judges."""
    parser.add_argument(
        "--strategy",
        choices=STRATEGIES,
        default="depth",
        help="Judging order of the depth pool, as build_pool --strategy: depth, rbp, rrf, "
        "bandit or mtc (default depth); with --budget, a replication judges only the "
        "pairs the order reaches, and the others stay holes",
    )
    parser.add_argument(
        "--budget",
        type=budget_type,
        help="Pairs judged at most per replication, in the strategy's order: a number of "
        f"pairs (at most {MAX_BUDGET:,}), or below 1 a share of the depth pool (0.6); "
        "default every pair. The estimand is then the value under the pairs judged",
    )


def _pool_line(result) -> str:
    """The judging order and budget when the study was not every pair of the depth pool:
    how many of the depth pool's pairs the budget judged ("" with no budget)."""
    if result.budget is None:
        return ""
    return (
        f"pool: {result.strategy} order, budget {result.budget:g}: "
        f"{_mean(result.pooled_pairs)} of the depth pool's {_mean(result.depth_pool_pairs)} "
        "unjudged pairs judged per replication; the rest stay holes (not relevant), and "
        "the value each interval must cover is the one under the pairs judged\n"
    )


def _audit_line(design: str, share: float) -> str:
    """The audit the study ran with: its design, in words, and its share."""
    words = {
        "uniform": "every agreed pair at the share",
        "impact": "each agreed pair with a probability proportional to its DCG gain over the "
        "runs, the same number expected",
        "neyman": allocation_describe("neyman", share),
    }
    return f"audit: {design} design at a share of {share:g} of agreed labels: {words[design]}"


def _error(value: float | None, se: float | None) -> str:
    """A mean error with its sign and four decimals and its standard error in brackets
    ("-" when there is none to give)."""
    if value is None:
        return "-"
    return f"{value:+.4f}" + (f" ({se:.4f})" if se is not None else "")


def _mean(value: float) -> str:
    """A mean per replication with thousands separators (one decimal unless whole)."""
    return f"{value:,.0f}" if value == int(value) else f"{value:,.1f}"


def _comparison_line(measure: str, c: dict, systems: int) -> str:
    """One measure's pair differences and tau interval, in a line."""
    tau = c["tau"]
    # Two systems' tau is +1 or -1 and nothing between: its interval is the one point when
    # the pair's order is settled, else the whole range; either way the pair's difference
    # says more.
    whole = (
        " (two systems: tau is 1 or -1, its interval one of them when the pair is settled, "
        "else the whole range: read the pair difference)"
        if systems == 2
        else ""
    )
    return (
        f"{measure} pair differences (ppi): coverage {_fixed(c['coverage'], 3)} of "
        f"{c['pairs']}, mean width {_fixed(c['mean_width'], 4)}, settled "
        f"{_fixed(c['settled_share'], 3)}, wrongly settled {c['wrongly_settled']} "
        f"(share of settled {_fixed(c['wrongly_settled_share'], 3)}); tau interval: "
        f"coverage {_fixed(tau['coverage'], 3)} of {tau['intervals']}, mean width "
        f"{_fixed(tau['mean_width'], 3)}{whole}\n"
    )


def _fixed(value: float | None, digits: int) -> str:
    """``value`` with ``digits`` decimals, "-" for None (nothing was counted)."""
    return "-" if value is None else f"{value:.{digits}f}"


def _measures(text: str) -> tuple[str, ...]:
    """The --measures list with nDCG@10 first (always checked), each named once."""
    named = [m.strip() for m in text.split(",") if m.strip()]
    return tuple(dict.fromkeys(["nDCG@10", *named]))
