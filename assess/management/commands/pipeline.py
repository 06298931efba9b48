import argparse

from django.core.management.base import BaseCommand, CommandError

from assess.evaluation.rebench import RebenchError
from assess.pipeline import pipeline_run
from assess.refined.refine import RefineError
from corpora.management.commands._common import load_dataset
from corpora.services import PoolError, RunError
from debates.llm.registry import validate_backend_config
from debates.management.commands._jobs import (
    add_budget_arguments,
    add_concurrency_argument,
    add_gold_share_argument,
    add_prompt_version_argument,
    add_reasoning_arguments,
    add_scale_arguments,
)
from debates.services import DebateJobError

#: What pipeline_run raises for bad input or state; commands report them as CommandError.
PIPELINE_ERRORS = (RunError, PoolError, DebateJobError, RefineError, RebenchError)


def backend_config(
    backend: str,
    model: str | None,
    base_url: str | None,
    key_env: str,
    *,
    context_window: int | None = None,
    timeout: float | None = None,
    rpm: int | None = None,
    model_path: str | None = None,
    reasoning_effort: str | None = None,
    extra_body: str | None = None,
) -> dict:
    """The agents' backend config from command-line flags (validated; never holds a key).

    ``timeout`` (seconds per request), ``rpm`` (requests per minute, shared by all
    workers), ``reasoning_effort`` and ``extra_body`` (JSON text) apply to the openai
    backend, ``model_path`` (a local GGUF file) to the embedded one, ``context_window``
    (tokens) to both; each is left out when None. Raises CommandError
    naming the bad flag's field (for ``model_path``: the path and what is wrong with it).
    """
    config: dict = {"backend": backend}
    if backend == "openai":
        config.update(model=model, base_url=base_url, api_key_env=key_env)
        extra: dict[str, object] = {
            "context_window": context_window,
            "timeout": timeout,
            "rpm": rpm,
            "reasoning_effort": reasoning_effort,
            "extra_body": extra_body,
        }
        config.update({name: value for name, value in extra.items() if value is not None})
    elif model_path is not None or context_window is not None:
        extra = {"model_path": model_path, "context_window": context_window}
        config.update({name: value for name, value in extra.items() if value is not None})
    try:
        return validate_backend_config(config)
    except ValueError as exc:
        raise CommandError(f"backend: {exc}") from None


def share_type(value: str) -> float:
    """argparse type of a share between 0 and 1 (``--audit-share``)."""
    try:
        share = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0 <= share <= 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value}")
    return share


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
        _add_agent_arguments(parser)
        parser.add_argument("--rounds", type=int, default=2, help="R, maximum rounds (1-5)")
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
        parser.add_argument("--out", help="Folder for the refined TREC qrels (default var/exports)")
        parser.add_argument(
            "--human-budget",
            type=int,
            default=None,
            help="At most N pairs go to humans (escalated and audited together), highest "
            "impact on the benchmark first (default: no limit)",
        )
        parser.add_argument(
            "--audit-share",
            type=share_type,
            default=None,
            help="Share (0-1) of agreed labels drawn for a human audit (default: the job "
            "default, 0.02)",
        )
        add_gold_share_argument(parser)

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        agent = backend_config(
            opts["backend"],
            opts["model"],
            opts["base_url"],
            opts["api_key_env"],
            context_window=opts["context_window"],
            timeout=opts["timeout"],
            rpm=opts["rpm"],
            model_path=opts["model_path"],
            reasoning_effort=opts["reasoning_effort"],
            extra_body=opts["extra_body"],
        )
        try:
            pipeline_run(
                dataset=dataset,
                retrievers=[r.strip() for r in opts["retrievers"].split(",") if r.strip()],
                depth=opts["depth"],
                queries=opts["queries"],
                qrels=opts["qrels"],
                agent=agent,
                rounds=opts["rounds"],
                scale=opts["scale"],
                consensus=opts["consensus"],
                concurrency=opts["concurrency"],
                k=opts["k"],
                refined_name=opts["refined_name"],
                out_dir=opts["out"],
                echo=self.stdout.write,
                audit_share=opts["audit_share"],
                gold_share=opts["gold_share"],
                human_budget=opts["human_budget"],
                relevant_grade=opts["relevant_grade"],
                rel_level=opts["rel_level"],
                exp_gain=opts["exp_gain"],
                max_tokens=opts["max_tokens"],
                max_tokens_cap=opts["max_tokens_cap"],
                batch=opts["batch"],
                prompt_version=opts["prompt_version"],
            )
        except PIPELINE_ERRORS as exc:
            raise CommandError(str(exc)) from None


def _add_agent_arguments(parser) -> None:
    """The agents' backend: one config for both (--backend, --model, --base-url, ...) and
    their reasoning options."""
    parser.add_argument("--backend", default="embedded", choices=["embedded", "openai"])
    parser.add_argument("--model", help="Model name (openai backend)")
    parser.add_argument("--base-url", help="Server URL (openai backend)")
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY")
    parser.add_argument(
        "--model-path",
        help="A local GGUF chat model file (embedded; default the bundled SmolLM2-135M)",
    )
    parser.add_argument(
        "--context-window",
        type=int,
        help="Context of the model in tokens (openai default: what the server reports, "
        "else 8192; embedded: SmolLM2 2048, a --model-path GGUF its training context up "
        "to 4096)",
    )
    parser.add_argument("--timeout", type=float, help="Seconds per request (openai; 60)")
    parser.add_argument(
        "--rpm",
        type=int,
        help="Requests per minute allowed, shared by all workers (openai; default unlimited)",
    )
    add_reasoning_arguments(parser)
