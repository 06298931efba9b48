from django.core.management.base import BaseCommand, CommandError

from assess.review.simulated_annotators import (
    SIMULATED_ANNOTATOR,
    SimulatedJudging,
    SimulationError,
    simulated_judgments_record,
    simulated_truth_load,
)
from core.paths import caller_path
from core.text import plural
from debates.management.commands._jobs import load_job, share_type


class Command(BaseCommand):
    help = (
        "Judge a job's open review items (escalated and audit) as a SIMULATED annotator "
        f"({SIMULATED_ANNOTATOR}): the label of a reference qrels file, flipped with "
        "probability --error, seeded per pair; re-running records nothing twice."
    )

    def add_arguments(self, parser):
        parser.add_argument("job", type=int, help="Debate job id")
        parser.add_argument(
            "--truth",
            required=True,
            type=caller_path,
            metavar="FILE",
            help="reference qrels file (TREC or BEIR) of the job's dataset; it must lie in a "
            "folder of DREAM_SIMULATION_DIRS",
        )
        parser.add_argument(
            "--error",
            type=share_type,
            default=0.0,
            help="probability (0-1) that a judgment is not the truth's label (default 0)",
        )
        parser.add_argument("--seed", type=int, default=0, help="seed of the flips (default 0)")
        parser.add_argument("--limit", type=int, help="judge at most N items (in id order)")

    def handle(self, *args, **opts):
        job = load_job(opts["job"])
        try:
            truth = simulated_truth_load(job=job, path=opts["truth"])
            done = simulated_judgments_record(
                job=job, truth=truth, error=opts["error"], seed=opts["seed"], limit=opts["limit"]
            )
        except SimulationError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"job {job.pk}: {done.judged:,} SIMULATED judgments by {SIMULATED_ANNOTATOR} "
            f"({done.flipped:,} flipped from the truth); {done.already:,} from earlier runs; "
            + skipped_words(done)
        )


def skipped_words(done: SimulatedJudging) -> str:
    """The items the run judged none of, by why: "0 items skipped", or e.g. "1 item skipped:
    1 already judged by a person on another job's item (it takes that label)"."""
    by_simulated = done.taken - done.taken_by_person
    reasons = [
        (done.busy, "held by a person or filled meanwhile"),
        (done.taken_by_person, "already judged by a person on another job's item (it takes "
         "that label)"),
        (by_simulated, f"already judged by {SIMULATED_ANNOTATOR} on another job's item (it "
         "takes that label)"),
        (done.elsewhere, "left to others (the simulated annotator judged their query and "
         "document in another job, and judges a pair once)"),
    ]  # fmt: skip
    said = [f"{n:,} {why}" for n, why in reasons if n]
    return f"{plural(done.skipped, 'item')} skipped" + (": " + ", ".join(said) if said else "")
