from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("corpora", "0003_pool_query_subset"),
    ]

    operations = [
        migrations.AddField(
            model_name="dataset",
            name="exclude_identical_ids",
            field=models.BooleanField(
                default=False,
                help_text="A query's own document (doc id = query id) is never retrieved, "
                "pooled, refined or counted in an evaluation (BEIR's ignore_identical_ids, for "
                "ArguAna and Quora, whose queries are documents of the corpus).",
            ),
        ),
        migrations.AddField(
            model_name="dataset",
            name="identical_ids",
            field=models.PositiveIntegerField(
                default=0, help_text="Query ids that are also document ids (counted at import)."
            ),
        ),
        migrations.AddField(
            model_name="dataset",
            name="identical_texts",
            field=models.PositiveIntegerField(
                default=0,
                help_text="Documents whose text equals a query's text (counted at import).",
            ),
        ),
        migrations.AddField(
            model_name="qrelset",
            name="unknown_ids_dropped",
            field=models.PositiveIntegerField(
                default=0,
                help_text="Rows naming a query or document id absent from the dataset, skipped "
                "at import with --unknown-ids drop (listed in the import record).",
            ),
        ),
    ]
