import json

from django.core.management.base import BaseCommand, CommandError

from assess.evaluation.rag_eval import RagError, rag_evaluate
from assess.evaluation.rebench import (
    RebenchError,
    rebench_original_check,
    rebench_qrel_set,
    rebench_refined_from,
    rebench_runs,
)
from assess.evaluation.tables import format_table, rag_table
from core.paths import caller_path
from corpora.management.commands._common import load_dataset
from debates.llm.base import LLMError

PATH_KEYS = ("model_path", "truth")  # the file paths a backend config may hold


def backend_config(opts) -> dict:
    """The generator's backend config from --backend (a name or a JSON object) and the
    optional --model / --model-path / --base-url / --api-key-env; a file path in it (a JSON
    ``model_path`` or ``truth``, or --model-path) read from where the command was typed
    (:func:`core.paths.caller_path`)."""
    raw = opts["backend"].strip()
    if raw.startswith("{"):
        try:
            config = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise CommandError(f"--backend is not valid JSON: {exc}") from None
    else:
        config = {"backend": raw}
    for option, key in (
        ("model", "model"),
        ("model_path", "model_path"),
        ("base_url", "base_url"),
        ("api_key_env", "api_key_env"),
    ):
        if opts.get(option):
            config[key] = opts[option]
    for key in PATH_KEYS:
        if isinstance(config.get(key), str):
            config[key] = caller_path(config[key])
    return config


class Command(BaseCommand):
    help = (
        "RAG alignment: answer each query from each run's top-k chunks with an LLM, score the "
        "answers against the reference answers, and compare with Success@k on the original "
        "and refined qrels (RAGAlign@k). Stored answers are reused."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("--runs", required=True, help="Comma-separated run names")
        parser.add_argument("--k", type=int, default=10, help="Chunks per answer (default 10)")
        parser.add_argument(
            "--backend",
            default="embedded",
            help="embedded, openai, or a backend config as JSON (default embedded)",
        )
        parser.add_argument("--model", help="Model name (openai backend)")
        parser.add_argument(
            "--model-path",
            type=caller_path,
            help="A local GGUF chat model file (embedded; default the bundled SmolLM2-135M)",
        )
        parser.add_argument("--base-url", help="Server URL (openai backend)")
        parser.add_argument("--api-key-env", help="Environment variable holding the API key")
        parser.add_argument("--limit", type=int, help="Only the first N evaluation queries")
        parser.add_argument(
            "--original",
            help="Original qrel set (default: the set --refined was refined from, else test)",
        )
        parser.add_argument("--refined", help="Refined qrel set")
        parser.add_argument(
            "--concurrency",
            type=int,
            help="Answers generated at once (LLM requests in flight; default 16 for openai, "
            "1 for embedded)",
        )

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        names = [n.strip() for n in opts["runs"].split(",") if n.strip()]
        try:
            refined = (
                rebench_qrel_set(dataset=dataset, name=opts["refined"]) if opts["refined"] else None
            )
            # As rebenchmark: a refined set is compared with the qrels it was refined from.
            origins = rebench_refined_from(refined=refined) if refined is not None else []
            default = origins[0].name if origins else "test"
            original = rebench_qrel_set(dataset=dataset, name=opts["original"] or default)
            if refined is not None:
                rebench_original_check(original=original, refined=refined)
            runs = rebench_runs(dataset=dataset, names=names)
        except RebenchError as exc:
            raise CommandError(str(exc)) from None
        counter = {"n": 0}

        def progress(generation) -> None:
            counter["n"] += 1
            if counter["n"] % 10 == 0:
                self.stderr.write(f"  {counter['n']} answers generated")

        backend = backend_config(opts)
        concurrency = opts["concurrency"]
        if concurrency is None:
            concurrency = 16 if backend.get("backend") == "openai" else 1
        if not 1 <= concurrency <= 256:
            raise CommandError(f"--concurrency must be between 1 and 256, got {concurrency}")
        try:
            report = rag_evaluate(
                dataset=dataset,
                runs=runs,
                k=opts["k"],
                original=original,
                refined=refined,
                backend=backend,
                limit=opts["limit"],
                on_answer=progress,
                concurrency=concurrency,
            )
        except RagError as exc:
            raise CommandError(str(exc)) from None
        except LLMError as exc:
            raise CommandError(
                f"the generator failed ({type(exc).__name__}: {exc}); answers generated so far "
                "are stored and will be reused"
            ) from None
        self.stdout.write(format_table(rag_table(report)) + "\n")
