from django.core.management.base import BaseCommand

from assess.review.services import review_items_sync
from debates.models import DebateJob


class Command(BaseCommand):
    help = (
        "Put every escalated debate and every agreed debate drawn for its job's audit that has "
        "no review item yet in the review queue, for every job, and renumber the items in "
        "budget order; prints how many items were created. Review items are created when a "
        "debate ends: run this once on a database made before that, or to repair one. "
        "Idempotent."
    )

    def add_arguments(self, parser):
        parser.add_argument("--job", type=int, action="append", help="Only this job (repeatable)")

    def handle(self, *args, **opts):
        jobs = DebateJob.objects.order_by("pk")
        if opts["job"]:
            jobs = jobs.filter(pk__in=opts["job"])
        total = touched = 0
        for job in jobs:
            created = review_items_sync(job=job)
            if created:
                touched += 1
                self.stdout.write(f"job {job.pk}: {created:,} review items created")
            total += created
        self.stdout.write(
            f"review_sync: {total:,} review item{'s' if total != 1 else ''} created "
            f"in {touched:,} job{'s' if touched != 1 else ''}"
        )
