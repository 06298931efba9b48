"""RAG generations are reused per generator (backend kind, server, model), not per model name:
two servers that report the same model name no longer share answers."""

import os

from django.db import migrations, models


def _generator_key(backend, model):
    # A frozen copy of generator_key (now assess.evaluation.rag_eval.generator_key) as it was
    # when this migration was written.
    backend = backend if isinstance(backend, dict) else {}
    kind = str(backend.get("backend") or "embedded")
    server = backend.get("base_url")
    if not server:
        if kind == "embedded":
            server = "in-process"
        elif kind == "openai":
            server = os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        else:
            server = "default"
    return f"{kind}:{str(server).rstrip('/')}:{model}"[:400]


def fill_generator(apps, schema_editor):
    RagGeneration = apps.get_model("assess", "RagGeneration")
    for row in RagGeneration.objects.only("pk", "backend", "model").iterator(chunk_size=2000):
        RagGeneration.objects.filter(pk=row.pk).update(
            generator=_generator_key(row.backend, row.model)
        )


class Migration(migrations.Migration):
    dependencies = [
        ("assess", "0003_review_open_queue_index"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="raggeneration", name="raggeneration_natural_key"),
        migrations.AddField(
            model_name="raggeneration",
            name="generator",
            field=models.CharField(
                default="",
                help_text="Backend kind, server and model, e.g. "
                "openai:http://gpu1:8000/v1:llama-70b (assess.rag_eval.generator_key; never a "
                "key).",
                max_length=400,
            ),
            preserve_default=False,
        ),
        migrations.RunPython(fill_generator, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="raggeneration",
            constraint=models.UniqueConstraint(
                fields=("run", "query", "k", "generator", "prompt_version"),
                name="raggeneration_natural_key",
            ),
        ),
    ]
