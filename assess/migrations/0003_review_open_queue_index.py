# The review queue's claim (assess.review.services._CLAIM_SQL) orders open items by
# (kind <> 'escalated', created, id); this partial index holds only the open items in that
# order, so a claim does not scan past every pair already judged. Same SQL on PostgreSQL and
# SQLite (both have expression and partial indexes). review_open_leases serves the queue size
# on the judging page (open items leased right now).

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('assess', '0002_refined_benchmarks'),
    ]

    operations = [
        migrations.RunSQL(
            sql=(
                "CREATE INDEX review_open_queue ON assess_reviewitem "
                "((kind <> 'escalated'), created, id) "
                "WHERE judgments_done < judgments_needed"
            ),
            reverse_sql="DROP INDEX review_open_queue",
        ),
        # The judging page's queue size subtracts the open items someone holds right now.
        migrations.RunSQL(
            sql=(
                "CREATE INDEX review_open_leases ON assess_reviewitem (lease_expires_at) "
                "WHERE judgments_done < judgments_needed"
            ),
            reverse_sql="DROP INDEX review_open_leases",
        ),
    ]
