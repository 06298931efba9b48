import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def sent_from_ref(apps, schema_editor):
    # A request written to a file or a batch got a batch_ref then; its first export time is
    # not known, so it is taken as its creation (only "was it ever sent" is read).
    BatchRequest = apps.get_model("debates", "BatchRequest")
    for request in BatchRequest.objects.exclude(batch_ref="").only("pk", "created"):
        BatchRequest.objects.filter(pk=request.pk).update(sent=request.created)


class Migration(migrations.Migration):
    dependencies = [
        ("debates", "0010_gold_share"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="batchrequest",
            name="sent",
            field=models.DateTimeField(
                blank=True,
                help_text="When it was first exported (empty: never; its reply cannot be "
                "imported).",
                null=True,
            ),
        ),
        migrations.RunPython(sent_from_ref, migrations.RunPython.noop),
        migrations.CreateModel(
            name="JobIdempotencyKey",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.CharField(max_length=200)),
                (
                    "request_hash",
                    models.CharField(help_text="SHA-256 of the request's fields.", max_length=64),
                ),
                ("status_code", models.PositiveSmallIntegerField(default=202)),
                (
                    "response",
                    models.JSONField(blank=True, help_text="The first answer's body.", null=True),
                ),
                ("created", models.DateTimeField(auto_now_add=True)),
                (
                    "job",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="idempotency_keys",
                        to="debates.debatejob",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="job_idempotency_keys",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("user", "key"), name="jobidempotencykey_user_key"
                    )
                ],
            },
        ),
    ]
