from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("debates", "0003_i14_graded_debates"),
    ]

    operations = [
        migrations.AddField(
            model_name="debatejob",
            name="concurrency",
            field=models.PositiveIntegerField(
                default=1,
                help_text="Debates run at once by an in-process run (LLM requests in flight); "
                "with Celery the workers' -c bounds it (see README, Workers).",
            ),
        ),
    ]
