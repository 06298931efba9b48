from django.db import migrations, models


def commands_mark(apps, schema_editor):
    """Jobs made before the field existed: those without a creator came from a command
    (run_debates without --user, evaluate_assessor, the pipeline; the browser and the API
    always record the signed-in user), so they keep the endpoints of their own the operator
    gave them; the others, and any job holding keys typed into the job form or the API
    (a web job whose creator was deleted since), are held to the operator's settings, as a
    new web job is."""
    DebateJob = apps.get_model("debates", "DebateJob")
    made_by_command = DebateJob.objects.filter(created_by__isnull=True, api_keys_encrypted="")
    made_by_command.update(launched_from="command")


class Migration(migrations.Migration):
    dependencies = [
        ("debates", "0025_debate_job_neyman_pilot_tenth"),
    ]

    operations = [
        migrations.AddField(
            model_name="debatejob",
            name="launched_from",
            field=models.CharField(
                choices=[
                    ("web", "the browser or the HTTP API"),
                    ("command", "a management command (the server's operator)"),
                ],
                default="web",
                editable=False,
                help_text="web: the workers check its agents against the operator's settings "
                "before they call (debates.services.backends.stored_agents_permit); command: "
                "the operator's.",
                max_length=10,
            ),
        ),
        migrations.AddField(
            model_name="debatejob",
            name="stop_note",
            field=models.CharField(
                blank=True, help_text="Why the workers paused the job themselves.", max_length=500
            ),
        ),
        migrations.RunPython(commands_mark, migrations.RunPython.noop),
    ]
