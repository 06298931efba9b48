from django.core.management.base import BaseCommand, CommandError

from assess.evaluation.rebench import RebenchError
from assess.pipeline import PipelineSpec, pipeline_run
from assess.refined.refine import RefineError
from core.fixes import error_worded
from core.paths import caller_path
from corpora.management.commands._common import load_dataset
from corpora.services import PoolError, RunError
from debates.management.commands._jobs import (
    add_audit_allocation_argument,
    add_audit_share_argument,
    add_backend_arguments,
    add_budget_arguments,
    add_concurrency_argument,
    add_gold_share_argument,
    add_prompt_version_argument,
    add_reuse_argument,
    add_scale_arguments,
    add_stage0_arguments,
    backend_flags_configs,
    job_options_given,
)
from debates.services import DebateJobError
from debates.services.launch import job_option_default

#: What pipeline_run raises for bad input or state; commands report them as CommandError.
PIPELINE_ERRORS = (RunError, PoolError, DebateJobError, RefineError, RebenchError)


class Command(BaseCommand):
    help = (
        "The main job on an imported dataset: built-in runs, pool, DREAM debates, refined "
        "qrels from consensus (escalated pairs pending) and a re-benchmark table."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("--retrievers", default="bm25,dense", help="Comma-separated")
        parser.add_argument("--depth", type=int, default=10, help="Pool depth (default 10)")
        parser.add_argument(
            "--queries",
            type=int,
            default=None,
            help="Pool only the first N judged queries (default: all)",
        )
        parser.add_argument("--qrels", default="test", help="Original qrel set (default test)")
        add_backend_arguments(parser, agent_b=False)
        parser.add_argument(
            "--rounds",
            type=int,
            default=job_option_default("rounds"),
            help="R, maximum rounds (1-5)",
        )
        add_budget_arguments(parser)
        parser.add_argument(
            "--batch",
            action="store_true",
            help="batch mode (openai agents): each round goes out as one batch through the "
            "server's Batch API (OpenAI: half the price, answers within 24 h), polled every "
            "30 s",
        )
        add_scale_arguments(parser)
        add_prompt_version_argument(parser)
        add_stage0_arguments(parser)
        add_concurrency_argument(parser)
        parser.add_argument(
            "--relevant-grade",
            type=int,
            default=1,
            help="Grade a binary 'relevant' label is written as in the refined qrels "
            "(default 1; at most the qrels' top grade); graded labels keep their grade",
        )
        parser.add_argument(
            "--rel-level",
            type=int,
            default=1,
            help="Lowest grade the re-benchmark's R@k, P@k, Success@k and Hole@10 count as "
            "relevant (ir_measures' rel=; default 1)",
        )
        parser.add_argument(
            "--exp-gain",
            action="store_true",
            help="Add nDCG@10 with exponential gains 2^grade - 1 to the re-benchmark",
        )
        parser.add_argument("--k", type=int, default=100, help="Run depth per query")
        parser.add_argument("--refined-name", help="Name of the refined qrel set")
        parser.add_argument(
            "--out",
            type=caller_path,
            help="Folder for the refined TREC qrels (default var/exports)",
        )
        parser.add_argument(
            "--human-budget",
            type=int,
            default=None,
            help="At most N pairs go to humans (escalated and audited together), highest "
            "impact on the benchmark first (default: no limit)",
        )
        add_audit_share_argument(parser)
        add_audit_allocation_argument(parser)
        add_gold_share_argument(parser)
        add_reuse_argument(parser)

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        try:
            agent, _ = backend_flags_configs(opts, dataset=dataset.slug)
            spec = PipelineSpec.of(
                agent=agent,
                retrievers=[r.strip() for r in opts["retrievers"].split(",") if r.strip()],
                depth=opts["depth"],
                queries=opts["queries"],
                qrels=opts["qrels"],
                k=opts["k"],
                refined_name=opts["refined_name"],
                out_dir=opts["out"],
                relevant_grade=opts["relevant_grade"],
                rel_level=opts["rel_level"],
                exp_gain=opts["exp_gain"],
                **job_options_given(opts),
            )
            pipeline_run(dataset=dataset, spec=spec, echo=self.stdout.write)
        except PIPELINE_ERRORS as exc:
            # A refused option is named by the flag typed (--stage0-beta, not stage0_beta).
            raise CommandError(error_worded(exc, "cli")) from None
