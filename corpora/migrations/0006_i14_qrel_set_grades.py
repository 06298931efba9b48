# The scale of a qrel set (rows per grade, lowest and highest grade), so graded debates can
# read a benchmark's top grade without scanning its rows; backfilled from the rows of every
# existing set.

from django.db import migrations, models
from django.db.models import Count


def backfill(apps, schema_editor):
    QrelSet = apps.get_model("corpora", "QrelSet")
    Qrel = apps.get_model("corpora", "Qrel")
    counts: dict[int, dict[int, int]] = {}
    rows = (
        Qrel.objects.order_by()
        .values("qrel_set", "relevance")
        .annotate(n=Count("pk"))
        .values_list("qrel_set", "relevance", "n")
    )
    for set_id, grade, n in rows:
        counts.setdefault(set_id, {})[int(grade)] = int(n)
    for qrel_set in QrelSet.objects.all():
        grades = dict(sorted(counts.get(qrel_set.pk, {}).items()))
        qrel_set.grades = {str(g): n for g, n in grades.items()}
        qrel_set.grade_min = min(grades) if grades else None
        qrel_set.grade_max = max(grades) if grades else None
        qrel_set.save(update_fields=["grades", "grade_min", "grade_max"])


class Migration(migrations.Migration):
    dependencies = [
        ("corpora", "0005_i13_embedding_windows"),
    ]

    operations = [
        migrations.AddField(
            model_name="qrelset",
            name="grades",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text='Rows per grade, e.g. {"1": 11758, "2": 576} (keys are the grades '
                "as text).",
            ),
        ),
        migrations.AddField(
            model_name="qrelset",
            name="grade_min",
            field=models.SmallIntegerField(blank=True, help_text="Lowest grade.", null=True),
        ),
        migrations.AddField(
            model_name="qrelset",
            name="grade_max",
            field=models.SmallIntegerField(blank=True, help_text="Highest grade.", null=True),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
