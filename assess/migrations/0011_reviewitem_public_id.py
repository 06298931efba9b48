"""Review items get ``public_id``, a random UUID: the item's name in URLs, forms and the API.

Three steps, Django's recipe for a unique field on a table that has rows: add the column
nullable, give each existing row its own uuid4 (a column default would be computed once and
give every row the same value), then make it unique and required.
"""

import uuid

from django.db import migrations, models

BATCH = 2000


def public_ids_fill(apps, schema_editor):
    """Give every review item without a public id a fresh uuid4, a batch at a time."""
    review_item = apps.get_model("assess", "ReviewItem")
    rows = review_item.objects.filter(public_id__isnull=True).only("pk").order_by("pk")
    while True:
        batch = list(rows[:BATCH])
        if not batch:
            break
        for item in batch:
            item.public_id = uuid.uuid4()
        review_item.objects.bulk_update(batch, ["public_id"])


class Migration(migrations.Migration):
    dependencies = [("assess", "0010_default_guidelines")]

    operations = [
        migrations.AddField(
            model_name="reviewitem",
            name="public_id",
            field=models.UUIDField(null=True, editable=False),
        ),
        migrations.RunPython(public_ids_fill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="reviewitem",
            name="public_id",
            field=models.UUIDField(default=uuid.uuid4, unique=True, editable=False),
        ),
    ]
