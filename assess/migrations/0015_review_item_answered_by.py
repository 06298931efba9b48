import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('assess', '0014_provenance_reused'),
    ]

    operations = [
        migrations.AddField(
            model_name='reviewitem',
            name='answered_by',
            field=models.ForeignKey(blank=True, help_text="The other job's item of the same query and document whose human answer this item takes (it asks nobody; judgments_needed 0).", null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='answers_for', to='assess.reviewitem'),
        ),
    ]
