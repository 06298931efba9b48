from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('assess', '0013_provenance_source_stage0'),
    ]

    operations = [
        migrations.AddField(
            model_name='labelprovenance',
            name='reused',
            field=models.CharField(blank=True, help_text="When the deciding debate's agreed label was taken over from an earlier job with the same reuse key: 'reused by job N from job M (debate D)'; the rest of the row is that label's provenance.", max_length=100),
        ),
    ]
