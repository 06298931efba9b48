from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("debates", "0011_batch_sent_and_job_idempotency_keys"),
    ]

    # A debate whose prompt cannot fit the agents' context even with an empty chunk now ends
    # escalated with a reason of its own instead of failing.
    operations = [
        migrations.AlterField(
            model_name="debate",
            name="escalation_reason",
            field=models.CharField(
                blank=True,
                choices=[
                    ("", "none"),
                    ("disagreement", "disagreement after R rounds"),
                    ("unparsed", "a reply could not be read"),
                    ("truncated", "a reply was cut at its token budget, even with twice it"),
                    ("too_long", "the pair's texts are too long for the agents' context"),
                ],
                default="",
                max_length=20,
            ),
        ),
    ]
