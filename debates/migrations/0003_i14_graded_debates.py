# Graded debates, for benchmarks whose qrels use grades 0..G rather than 1/0 (scale, top
# grade G, consensus rule on the job).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("debates", "0002_turn_raw_attempts_prompt_version_job_keys"),
    ]

    operations = [
        migrations.AddField(
            model_name="debatejob",
            name="scale",
            field=models.CharField(
                choices=[
                    ("binary", "binary (relevant / not relevant)"),
                    ("graded", "graded (0..G, the benchmark's top grade)"),
                ],
                default="binary",
                help_text="binary: labels 1/0 (DREAM); graded: grades 0..max_grade with a rubric.",
                max_length=10,
            ),
        ),
        migrations.AddField(
            model_name="debatejob",
            name="max_grade",
            field=models.PositiveSmallIntegerField(
                default=1, help_text="G, the top grade an agent may give (1 when binary)."
            ),
        ),
        migrations.AddField(
            model_name="debatejob",
            name="consensus",
            field=models.CharField(
                choices=[
                    ("exact", "exact (the same grade)"),
                    ("binary", "binary (the same side; the lower grade)"),
                ],
                default="exact",
                help_text="When a round agrees: the same grade (exact), or the same side of "
                "relevance with the lower grade kept (binary).",
                max_length=10,
            ),
        ),
        migrations.AlterField(
            model_name="debate",
            name="final_label",
            field=models.SmallIntegerField(
                blank=True,
                help_text="1 relevant, 0 irrelevant (graded jobs: the grade 0..G); set only "
                "when agreed.",
                null=True,
            ),
        ),
        migrations.AlterField(
            model_name="turn",
            name="label",
            field=models.SmallIntegerField(
                blank=True,
                help_text="1 relevant, 0 irrelevant (graded jobs: the grade 0..G), empty: "
                "unparsed.",
                null=True,
            ),
        ),
    ]
