import json
import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from corpora.management.commands._common import load_dataset
from corpora.models import QrelSet, Run
from corpora.selectors import qrels_top_grade
from corpora.services import RunError, qrel_set_get, run_create, run_get, run_retrieve
from debates.services.assessor import (
    DENSE_JUDGMENT_DATASETS,
    assessor_evaluate,
    evaluation_pool_create,
    single_judge_run,
    single_judge_votes,
    unjudged_negatives_check,
)
from debates.services.common import DebateJobError
from debates.services.launch import JobSpec, debate_job_launch, job_scale_describe
from debates.stage0 import Stage0Error, stage0_judge_current, stage0_judge_train
from debates.stage0.services import stage0_pool_evaluate, stage0_test_query_pks
from debates.votes import MAX_SAMPLES, TIES, SampledVerdict, sampling_check, split_counts

from ._jobs import (
    add_allow_duplicate_argument,
    add_backend_arguments,
    add_budget_arguments,
    add_concurrency_argument,
    add_min_agreement_argument,
    add_prompt_version_argument,
    add_reuse_argument,
    add_rounds_argument,
    add_scale_arguments,
    backend_flags_configs,
    describe_agents,
    job_options_given,
    launch_refusal,
    other_backend_flags_refuse,
    wait_job,
)


def _pct(value):
    return "-" if value is None else f"{100 * value:.1f}"


def format_report(sample, job, report, *, seconds: float) -> str:
    """The header and a table: recall per class, balanced accuracy, settled share, escalation
    rate, failures and calls per pair for the single judge and for DREAM (two readings)."""
    pool = sample.pool
    if sample.negatives == "judged":
        negatives = "judged non-relevant"
    else:
        negatives = (
            f"top-ranked unjudged (run {sample.run.name}, rank <= {sample.depth}), "
            "assumed irrelevant"
        )
    lines = [
        f"evaluate_assessor {pool.dataset.slug}/{pool.qrel_set.name}: "
        f"{sample.relevant + sample.irrelevant} pairs in pool {pool.name}: "
        f"{sample.relevant} judged relevant, {sample.irrelevant} {negatives}",
        f"{describe_agents(job)}; R={job.rounds}, max {job.max_tokens} tokens per call, "
        f"temperature {job.temperature:g}; job {job.pk}; {seconds:.0f} s",
        "",
        f"{'method':<36} {'rec.irr':>7} {'rec.rel':>7} {'bal.acc':>7} {'settled':>7} "
        f"{'escal.':>7} {'failed':>6} {'calls/pair':>10}",
    ]

    intervals: list[str] = []

    def row(name, scores, recalls, *, settled=True):
        intervals.append(format_intervals(name, recalls))
        lines.append(
            f"{name:<36} {_pct(recalls.irrelevant):>7} {_pct(recalls.relevant):>7} "
            f"{_pct(recalls.balanced_accuracy):>7} "
            f"{_pct(scores.coverage) if settled else '100.0':>7} "
            f"{_pct(scores.escalation_rate):>7} {scores.failed:>6} "
            f"{scores.calls_per_pair:>10.2f}"
        )

    if report.single is not None:
        row("single judge, on settled pairs", report.single, report.single.settled)
    row(f"DREAM R={job.rounds}, on settled pairs", report.debate, report.debate.settled)
    row(
        f"DREAM R={job.rounds}, humans right on escalated",
        report.debate,
        report.debate.with_humans,
        settled=False,
    )
    lines.append(
        "recalls and balanced accuracy in %; 'settled' = share labelled by the LLMs; escalated "
        "pairs are not labelled on settled pairs, and labelled right in the last line"
    )
    return "\n".join([*lines, *intervals, f"  (recalls: Wilson; bal.acc: {MOVER})"])


def format_confusion(scores) -> list[str]:
    """The confusion matrix of :class:`~debates.assessment.GradedScores` as text lines: one
    row per gold grade, one column per grade given, then escalated and failed pairs."""
    grades = range(scores.max_grade + 1)
    lines = ["gold \\ given " + "".join(f"{g:>6}" for g in grades) + f"{'escal.':>8}{'failed':>7}"]
    for gold in grades:
        cells = "".join(f"{n:>6}" for n in scores.confusion[gold])
        lines.append(
            f"{gold:>12} {cells}{scores.escalated_by_gold[gold]:>8}{scores.failed_by_gold[gold]:>7}"
        )
    return lines


def format_graded_report(sample, job, report, *, seconds: float) -> str:
    """Graded gold: exact-grade and within-one accuracy, balanced accuracy at the relevance
    level, settled share, escalation, failures and calls per pair for the single graded judge
    and for DREAM, then both confusion matrices."""
    pool = sample.pool
    graded = report.graded_debate
    lines = [
        f"evaluate_assessor --scale graded {pool.dataset.slug}/{pool.qrel_set.name}: "
        f"{sample.relevant + sample.irrelevant} pairs in pool {pool.name}, gold grades "
        f"0..{job.max_grade}: "
        + ", ".join(
            f"{sum(graded.confusion[g]) + graded.escalated_by_gold[g] + graded.failed_by_gold[g]}"
            f" of grade {g}"
            for g in range(job.max_grade + 1)
        ),
        f"{describe_agents(job)}; R={job.rounds}{job_scale_describe(job)}, max {job.max_tokens} "
        f"tokens per call, temperature {job.temperature:g}; job {job.pk}; {seconds:.0f} s",
        "",
        f"{'method':<36} {'exact':>7} {'+-1':>7} {'bal.acc':>7} {'settled':>7} "
        f"{'escal.':>7} {'failed':>6} {'calls/pair':>10}",
    ]

    def row(name, scores):
        lines.append(
            f"{name:<36} {_pct(scores.exact_accuracy):>7} {_pct(scores.within_one_accuracy):>7} "
            f"{_pct(scores.binary.balanced_accuracy):>7} {_pct(scores.coverage):>7} "
            f"{_pct(scores.escalation_rate):>7} {scores.failed:>6} {scores.calls_per_pair:>10.2f}"
        )

    if report.graded_single is not None:
        row("single graded judge, on settled pairs", report.graded_single)
    row(f"DREAM R={job.rounds} graded, on settled pairs", graded)
    lines.append(
        "in %, on settled pairs: exact = same grade as the gold, +-1 = at most one grade off, "
        f"bal.acc = balanced accuracy with grade >= {graded.relevance_level} relevant; "
        "'settled' = share graded by the LLMs"
    )
    for name, scores in (("DREAM", graded), ("single graded judge", report.graded_single)):
        if scores is not None:
            lines += ["", f"confusion matrix, {name}:", *format_confusion(scores)]
    return "\n".join(lines)


STAGE0 = "stage0"


def sample_temperature(opts) -> float:
    """The single judge's temperature: ``--sample-temperature``, else ``--temperature``."""
    given = opts["sample_temperature"]
    return opts["temperature"] if given is None else given


def sampling_json(opts, baseline) -> dict | None:
    """The single judge's sampling, when it drew n > 1 samples a pair: ``{"samples",
    "temperature", "ties", "splits": {split: pairs}, "pairs": [{"pair", "query_id",
    "doc_id", "label", "split", "votes", "unread", "failed", "tie"}]}``; None for one."""
    if opts["samples"] <= 1 or not baseline:
        return None
    votes = [v.vote for v in baseline.values() if isinstance(v, SampledVerdict)]
    return {
        "samples": opts["samples"],
        "temperature": sample_temperature(opts),
        "ties": opts["sample_ties"],
        "splits": split_counts(votes),
        "pairs": single_judge_votes(baseline=baseline),
    }


def format_sampling(sampling: dict) -> str:
    """The report's line on the single judge's samples: n, temperature, the tie rule and how
    many pairs had each vote split."""
    ties = "the lower label" if sampling["ties"] == "lower" else "escalated"
    ties_seen = sum(1 for pair in sampling["pairs"] if pair["tie"])
    splits = ", ".join(f"{split}: {n}" for split, n in sampling["splits"].items())
    return (
        f"single judge: majority of {sampling['samples']} samples a pair at temperature "
        f"{sampling['temperature']:g} (a tie: {ties}; {ties_seen} tied); vote splits {splits}"
    )


def _stage0_choice_add(parser) -> None:
    """Let ``--backend`` name stage 0 too (this command only: stage 0 debates nothing)."""
    for action in parser._actions:
        if action.dest == "backend":
            action.choices = [*action.choices, STAGE0]
            action.help += "; stage0: the dataset's stage-0 judge, on its held-out queries"


def _share_interval_json(share) -> dict | None:
    """A recall's 95% Wilson interval as every share is given
    (:meth:`core.proportions.Proportion.as_json`; ``n`` the pairs of that class measured);
    None when none was."""
    return share.as_json() if share.n else None


def recalls_json(recalls, scores, **extra) -> dict:
    """One assessor's figures: balanced accuracy and recall per class (None: undefined) on
    ``n`` pairs, each with its 95% interval beside it (``*_interval``: a recall's Wilson
    interval with the pairs behind it, the balanced accuracy's MOVER interval ``{"low",
    "high", "confidence", "method"}``; see :class:`debates.assessment.Recalls`), with its
    settled share, escalation rate and calls per pair."""
    balanced = recalls.balanced_accuracy_interval
    return {
        "balanced_accuracy": recalls.balanced_accuracy,
        "balanced_accuracy_interval": None
        if balanced is None
        else {"low": balanced[0], "high": balanced[1], "confidence": 0.95, "method": MOVER},
        "recall_relevant": recalls.relevant,
        "recall_relevant_interval": _share_interval_json(recalls.relevant_interval),
        "recall_nonrelevant": recalls.irrelevant,
        "recall_nonrelevant_interval": _share_interval_json(recalls.irrelevant_interval),
        "n": scores.pairs,
        "settled": scores.coverage,
        "escalation_rate": scores.escalation_rate,
        "failed": scores.failed,
        "calls_per_pair": scores.calls_per_pair,
        **extra,
    }


#: How the balanced accuracy's interval is made (named in the JSON and the printout).
MOVER = "MOVER of the two recalls' Wilson intervals (Zou and Donner 2008)"


def format_intervals(name: str, recalls) -> str:
    """One line of 95% intervals for a row of the report: each recall as right/n with its
    Wilson interval, the balanced accuracy with its MOVER interval, in %."""

    def share(p) -> str:
        if p.n == 0:
            return "-"
        return f"{p.successes}/{p.n}, {_pct(p.low)}-{_pct(p.high)}"

    balanced = recalls.balanced_accuracy_interval
    ba = "-" if balanced is None else f"{_pct(balanced[0])}-{_pct(balanced[1])}"
    return (
        f"  95% intervals, {name}: rec.irr {share(recalls.irrelevant_interval)}; rec.rel "
        f"{share(recalls.relevant_interval)}; bal.acc {ba}"
    )


def _sample_json(sample) -> dict:
    pool = sample.pool
    return {
        "dataset": pool.dataset.slug,
        "qrels": pool.qrel_set.name,
        "pool": pool.name,
        "relevant": sample.relevant,
        "irrelevant": sample.irrelevant,
        "negatives": sample.negatives,
    }


def debates_json(sample, job, report, sampling: dict | None = None) -> dict:
    """The ``--json`` object of a debate backend: DREAM's figures on settled pairs at the
    top, and under ``assessors`` DREAM (``dream``), DREAM with humans right on escalated
    pairs (``dream_with_humans``) and the single judge (``single``, when run; with
    ``--samples`` n > 1 also ``sampling``: :func:`sampling_json`)."""
    assessors = {"dream": recalls_json(report.debate.settled, report.debate)}
    assessors["dream_with_humans"] = recalls_json(report.debate.with_humans, report.debate)
    if report.single is not None:
        extra = {"sampling": sampling} if sampling else {}
        assessors["single"] = recalls_json(report.single.settled, report.single, **extra)
    top = {k: assessors["dream"][k] for k in _TOP_KEYS}
    return {
        **top,
        "assessor": "dream",
        "job": job.pk,
        **_sample_json(sample),
        "assessors": assessors,
    }


def stage0_simulated_note(judge) -> str:
    """What the report says of a stage-0 judge that learnt from simulated labels (consensus
    of simulated debaters, the simulated annotator's labels): its figures on gold measure a
    judge trained on a simulation, and its own held-out figures score some simulated labels
    too; "" when it learnt from none."""
    if not judge.simulated_labels:
        return ""
    return (
        f"SIMULATED: stage-0 judge {judge.pk} was trained on {judge.simulated_labels:,} "
        "simulated labels (simulated debaters' consensus, the simulated annotator's labels): "
        "its figures on these gold pairs measure a judge that learnt from a simulation, and "
        "its own held-out figures count simulated labels too"
    )


def stage0_json(sample, judge, evaluation) -> dict:
    """The ``--json`` object of ``--backend stage0``: its figures on the sample (held-out
    test queries only), with ECE and Brier, and the judge's own held-out figures;
    ``simulated`` (and ``simulated_labels``, how many) when the judge learnt from simulated
    labels (:func:`stage0_simulated_note`)."""
    scores, metrics = evaluation.scores, evaluation.metrics
    figures = recalls_json(scores.settled, scores, ece=metrics.ece, brier=metrics.brier)
    heldout = {k: judge.metrics.get(k) for k in (*_HELDOUT_KEYS, "ece", "brier")}
    return {
        **{k: figures[k] for k in (*_TOP_KEYS, "ece", "brier")},
        "assessor": STAGE0,
        "judge": judge.pk,
        "model_hash": judge.model_hash,
        "threshold": judge.metrics.get("threshold"),
        **_sample_json(sample),
        "assessors": {STAGE0: figures},
        "judge_heldout": heldout,
        "simulated": bool(judge.simulated_labels),
        "simulated_labels": judge.simulated_labels,
        "simulated_note": stage0_simulated_note(judge),
    }


_HELDOUT_KEYS = ("balanced_accuracy", "recall_relevant", "recall_nonrelevant", "n")
_TOP_KEYS = (
    "balanced_accuracy",
    "balanced_accuracy_interval",
    "recall_relevant",
    "recall_relevant_interval",
    "recall_nonrelevant",
    "recall_nonrelevant_interval",
    "n",
)


def format_stage0_report(sample, judge, evaluation, *, seconds: float) -> str:
    """The report table of :func:`format_report` for stage 0 (every pair settled, no LLM
    call), then its calibration figures on the same pairs and on its own held-out set."""
    pool, scores, metrics = sample.pool, evaluation.scores, evaluation.metrics
    recalls = scores.settled
    held = judge.metrics
    threshold = float(held.get("threshold", 0.5))

    def num(value) -> str:
        return "-" if value is None else f"{value:.3f}"

    return "\n".join(
        [
            f"evaluate_assessor --backend stage0 {pool.dataset.slug}/{pool.qrel_set.name}: "
            f"{sample.relevant + sample.irrelevant} pairs of held-out test queries in pool "
            f"{pool.name}: {sample.relevant} judged relevant, {sample.irrelevant} "
            f"{'judged non-relevant' if sample.negatives == 'judged' else 'top-ranked unjudged'}",
            f"stage-0 judge {judge.pk} ({held.get('classifier')}, Platt-calibrated), model hash "
            f"{judge.model_hash[:16]}, trained on {judge.n_train:,} pairs; {seconds:.0f} s",
            *([note] if (note := stage0_simulated_note(judge)) else []),
            "",
            f"{'method':<36} {'rec.irr':>7} {'rec.rel':>7} {'bal.acc':>7} {'settled':>7} "
            f"{'escal.':>7} {'failed':>6} {'calls/pair':>10}",
            f"{f'stage 0, P(relevant) >= {threshold:.3f}':<36} {_pct(recalls.irrelevant):>7} "
            f"{_pct(recalls.relevant):>7} {_pct(recalls.balanced_accuracy):>7} "
            f"{_pct(scores.coverage):>7} {_pct(scores.escalation_rate):>7} {scores.failed:>6} "
            f"{scores.calls_per_pair:>10.2f}",
            "recalls and balanced accuracy in %",
            format_intervals("stage 0", recalls),
            f"  (recalls: Wilson; bal.acc: {MOVER})",
            f"calibration on these pairs: ECE {num(metrics.ece)}, Brier {num(metrics.brier)}; "
            f"on the judge's held-out set ({held.get('n')} pairs): balanced accuracy "
            f"{_pct(held.get('balanced_accuracy'))}%, ECE {num(held.get('ece'))}, Brier "
            f"{num(held.get('brier'))}",
        ]
    )


class Command(BaseCommand):
    help = (
        "Measure the assessor: debate a stratified sample of pairs whose gold label is known "
        "and report recall per class, balanced accuracy, escalation rate and calls per pair, "
        "beside a single-LLM-judge baseline."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("--qrels", default="test", help="Qrel set with the gold labels")
        parser.add_argument(
            "--sample",
            type=int,
            default=40,
            help="Pairs (half relevant; graded: spread evenly over the grades 0..G)",
        )
        parser.add_argument("--seed", type=int, default=0, help="Seed of the sample draw")
        add_backend_arguments(parser)
        _stage0_choice_add(parser)
        add_rounds_argument(parser)
        add_min_agreement_argument(parser)
        add_scale_arguments(parser)
        add_prompt_version_argument(parser)
        add_budget_arguments(parser)
        parser.add_argument(
            "--unjudged-negatives",
            action="store_true",
            help="Take top-ranked unjudged pairs as irrelevant even though the dataset is not "
            f"known for dense judgments ({', '.join(DENSE_JUDGMENT_DATASETS)})",
        )
        parser.add_argument(
            "--run", default="bm25", help="Run ranking the unjudged negatives (built if missing)"
        )
        parser.add_argument("--depth", type=int, default=10, help="Rank limit of those")
        parser.add_argument("--no-baseline", action="store_true", help="Skip the single judge")
        parser.add_argument(
            "--samples",
            type=int,
            default=1,
            help=f"Samples the single judge draws per pair (1-{MAX_SAMPLES}; default 1), its "
            "label their majority, the vote split reported; odd recommended (a binary vote "
            "then cannot tie); more than 1 needs a temperature above 0",
        )
        parser.add_argument(
            "--sample-temperature",
            type=float,
            help="The single judge's temperature (default --temperature; above 0 and at most "
            "2 with --samples above 1)",
        )
        parser.add_argument(
            "--sample-ties",
            choices=TIES,
            default=TIES[0],
            help="A tied vote: lower: the lower label (as UMBRELA's ensemble judge); escalate: "
            "no label, counted as escalated (default lower)",
        )
        add_concurrency_argument(parser)
        add_allow_duplicate_argument(parser)
        add_reuse_argument(parser)
        parser.add_argument(
            "--heldout",
            action="store_true",
            help="Draw the sample only from the held-out test queries of the dataset's stage-0 "
            "judge (trained first if it has none), as --backend stage0 always does: the same "
            "pool for every backend",
        )
        parser.add_argument(
            "--json",
            action="store_true",
            help="Print one JSON object on stdout (balanced_accuracy, recall_relevant, "
            "recall_nonrelevant, each with its 95%% interval (*_interval), n, and 'assessors' "
            "with each assessor run); progress on stderr",
        )
        parser.add_argument("--no-progress", action="store_true")

    def _negatives_run(self, dataset, qrel_set: QrelSet, name: str) -> Run:
        try:
            run = run_get(dataset=dataset, name=name)
        except Run.DoesNotExist:
            self.stderr.write(f"building run {name!r} (BM25, top 100) for the negatives")
            try:
                run = run_create(
                    dataset=dataset, retriever="bm25", k=100, queries=qrel_set.name, name=name
                )
            except RunError as exc:
                raise CommandError(str(exc)) from None
            return run_retrieve(run=run)
        if run.status != Run.Status.DONE:
            raise CommandError(f"run {name!r} is {run.status}, not done")
        return run

    def handle(self, *args, **opts):
        other_backend_flags_refuse(opts)
        self._sampling_check(opts)
        started = time.monotonic()
        dataset = load_dataset(opts["dataset"])
        try:
            qrel_set = qrel_set_get(dataset=dataset, name=opts["qrels"])
        except QrelSet.DoesNotExist:
            names = ", ".join(dataset.qrel_sets.values_list("name", flat=True)) or "none"
            raise CommandError(f"no qrel set {opts['qrels']!r} (known: {names})") from None
        # The qrels check comes before any run is built or stage-0 judge trained: a
        # refusal must cost nothing and leave nothing stored.
        try:
            unjudged = unjudged_negatives_check(
                dataset=dataset, qrel_set=qrel_set, allowed=opts["unjudged_negatives"]
            )
        except DebateJobError as exc:
            raise CommandError(launch_refusal(exc)) from None
        run = self._negatives_run(dataset, qrel_set, opts["run"]) if unjudged else None
        stage0 = opts["backend"] == STAGE0
        judge = self._stage0_judge(dataset, opts) if stage0 or opts["heldout"] else None
        try:
            sample = self._sample(dataset, qrel_set, run, judge, opts)
        except DebateJobError as exc:
            raise CommandError(launch_refusal(exc)) from None
        if sample.self_pairs_skipped:
            (self.stderr if opts["json"] else self.stdout).write(
                f"identical ids excluded: {sample.self_pairs_skipped:,} pairs of a query with "
                "its own document left out of the gold sample"
            )
        if stage0:
            assert judge is not None
            try:
                evaluation = stage0_pool_evaluate(judge=judge, pool=sample.pool)
            except Stage0Error as exc:
                raise CommandError(str(exc)) from None
            seconds = time.monotonic() - started
            self.stdout.write(
                json.dumps(stage0_json(sample, judge, evaluation))
                if opts["json"]
                else format_stage0_report(sample, judge, evaluation, seconds=seconds)
            )
            return
        self._debates(sample, qrel_set, dataset, opts, started)

    def _sampling_check(self, opts) -> None:
        """Refuse sampling flags the run cannot use, before any pool or call is made."""
        if opts["samples"] == 1 and opts["sample_temperature"] is None:
            return
        if opts["no_baseline"] or opts["backend"] == STAGE0:
            raise CommandError(
                "--samples and --sample-temperature are the single judge's: drop them, or "
                "--no-baseline and --backend stage0"
            )
        if not 1 <= opts["samples"] <= MAX_SAMPLES:
            raise CommandError(f"--samples must be in 1..{MAX_SAMPLES}, got {opts['samples']}")
        try:
            sampling_check(samples=opts["samples"], temperature=sample_temperature(opts))
        except ValueError as exc:
            raise CommandError(f"{exc} (give --sample-temperature, e.g. 0.7)") from None

    def _stage0_judge(self, dataset, opts):
        """The dataset's current stage-0 judge, trained now (progress on stderr) if none."""
        judge = stage0_judge_current(dataset=dataset)
        if judge is not None:
            return judge
        self.stderr.write(f"training a stage-0 judge of {dataset.slug}")

        def progress(stage: str, done: int, total: int) -> None:
            if not opts["no_progress"]:
                # Stages done so far of the total, as the job's note, the operation's stage
                # and the demo print them: "collecting labels (0/6)" starts the training.
                self.stderr.write(f"stage 0: {stage} ({done}/{total})")

        try:
            return stage0_judge_train(dataset=dataset, progress=progress)
        except Stage0Error as exc:
            raise CommandError(str(exc)) from None

    def _sample(self, dataset, qrel_set, run, judge, opts):
        """The gold sample (:func:`evaluation_pool_create`); with a stage-0 judge, drawn only
        from its held-out test queries, in a pool named for them."""
        graded = opts["scale"] == "graded" and opts["backend"] != STAGE0
        heldout: dict[str, Any] = {}
        if judge is not None:
            seed = int((judge.metrics.get("split") or {}).get("seed", 0))
            heldout = {
                "query_pks": stage0_test_query_pks(judge=judge),
                "name_suffix": f"-stage0-test-split{seed}",
            }
        return evaluation_pool_create(
            dataset=dataset,
            qrel_set=qrel_set,
            sample=opts["sample"],
            seed=opts["seed"],
            run=run,
            depth=opts["depth"],
            unjudged_negatives=opts["unjudged_negatives"],
            max_grade=qrels_top_grade(qrel_set=qrel_set) if graded else None,
            **heldout,
        )

    def _debates(self, sample, qrel_set, dataset, opts, started: float) -> None:
        """Debate the sample with DREAM and the single judge, then report (text or JSON)."""
        graded = opts["scale"] == "graded"
        top = qrels_top_grade(qrel_set=qrel_set) if graded else None
        try:
            agent_a, agent_b = backend_flags_configs(opts, dataset=dataset.slug)
            spec = JobSpec(
                pool=sample.pool,
                agent_a=agent_a,
                agent_b=agent_b,
                max_grade=top,
                note="evaluate_assessor",
                **job_options_given(opts),
            )
            job = debate_job_launch(spec=spec)
        except DebateJobError as exc:
            raise CommandError(launch_refusal(exc)) from None
        progress = not opts["no_progress"]
        wait_job(job, progress_bar=progress)
        baseline = None
        if not opts["no_baseline"]:
            total = sample.relevant + sample.irrelevant
            with tqdm(
                total=total, desc="single judge", file=sys.stderr, disable=not progress
            ) as bar:
                baseline = single_judge_run(
                    pool=sample.pool,
                    agent=agent_a,
                    temperature=sample_temperature(opts),
                    samples=opts["samples"],
                    ties=opts["sample_ties"],
                    max_tokens=job.max_tokens,
                    max_tokens_cap=job.max_tokens_cap,
                    on_pair=lambda _pk: bar.update(1),
                    max_grade=top,
                    concurrency=job.concurrency,
                    prompt_version=job.prompt_version,
                )
        job.refresh_from_db()
        report = assessor_evaluate(job=job, baseline=baseline)
        sampling = sampling_json(opts, baseline)
        if opts["json"]:
            self.stdout.write(json.dumps(debates_json(sample, job, report, sampling)))
            return
        formatter = format_graded_report if graded else format_report
        self.stdout.write(formatter(sample, job, report, seconds=time.monotonic() - started))
        if sampling:
            self.stdout.write(format_sampling(sampling))
