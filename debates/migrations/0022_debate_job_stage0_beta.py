"""A debate job's stage0_beta: the share of the relevant pairs stage 0 may settle as not
relevant. Jobs made before it existed chose their band without that bound, so they get 1
(not bounded); new jobs default to 0.1."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("debates", "0021_stage0_simulated_label_counts"),
    ]

    operations = [
        migrations.AlterField(
            model_name="debatejob",
            name="stage0",
            field=models.BooleanField(
                default=False,
                help_text="Stage 0 first: the dataset's cheap calibrated judge settles the "
                "pairs it is sure of (within the band chosen at stage0_alpha, stage0_beta, "
                "stage0_delta); the rest are debated (debates.services.stage0_route).",
            ),
        ),
        migrations.AddField(
            model_name="debatejob",
            name="stage0_beta",
            field=models.FloatField(default=1.0),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="debatejob",
            name="stage0_beta",
            field=models.FloatField(
                default=0.1,
                help_text="The share of the relevant pairs (holes) stage 0 may settle as not "
                "relevant, bounded with the error at delta; 1: not bounded (jobs made before "
                "this bound existed).",
            ),
        ),
    ]
