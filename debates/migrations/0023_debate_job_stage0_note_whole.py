"""A debate job's stage0_note holds the whole note: cut at 500 characters, it lost its last
words, which may tell a newcomer what to do next (where the band's human labels come from)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("debates", "0022_debate_job_stage0_beta"),
    ]

    operations = [
        migrations.AlterField(
            model_name="debatejob",
            name="stage0_note",
            field=models.TextField(
                blank=True,
                help_text="What stage 0 did or is doing, in words (its band, or why it settled "
                "nothing).",
            ),
        ),
    ]
