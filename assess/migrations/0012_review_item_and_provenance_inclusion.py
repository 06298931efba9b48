"""Each review item's and each provenance row's inclusion probability (the chance its pair
went to humans), for the stratified audit.

Existing audit items were drawn at their job's uniform audit share, so they get it; escalated
items get 1 (every escalated pair goes to humans); gold items stay empty (never a label).
Provenance rows stay empty: the intervals read the job's audit share for them, as before.
"""

from django.db import migrations, models


def _inclusion_fill(apps, schema_editor):
    ReviewItem = apps.get_model("assess", "ReviewItem")
    DebateJob = apps.get_model("debates", "DebateJob")
    ReviewItem.objects.filter(kind="escalated").update(inclusion=1.0)
    for job_id, share in DebateJob.objects.values_list("pk", "audit_share"):
        ReviewItem.objects.filter(kind="audit", debate__job_id=job_id).update(inclusion=share)


class Migration(migrations.Migration):

    dependencies = [
        ("assess", "0011_reviewitem_public_id"),
        ("debates", "0013_job_audit_allocation_and_inclusion"),
    ]

    operations = [
        migrations.AddField(
            model_name="labelprovenance",
            name="inclusion",
            field=models.FloatField(
                blank=True,
                help_text="The pair's probability of going to humans at refinement: 1 "
                "escalated, its audit stratum's probability in its job for an agreed pair "
                "(drawn or not); empty: neither, or a set refined before it was stored (the "
                "job's audit share then).",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="reviewitem",
            name="inclusion",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.RunPython(_inclusion_fill, migrations.RunPython.noop),
    ]
