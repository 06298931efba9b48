import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('debates', '0019_stage0_band_calibration'),
    ]

    operations = [
        migrations.AlterField(
            model_name='debate',
            name='settled_by',
            field=models.CharField(blank=True, choices=[('', 'debate'), ('stage0', 'stage 0'), ('reused', 'reused')], default='', help_text="Who settled the debate: the debate (empty), stage 0 (an agreed label, no LLM call) or an earlier job's debate with the same reuse key (reused, no LLM call: its agreed label, or its escalation when people had already answered the pair).", max_length=10),
        ),
        migrations.AlterField(
            model_name='debate',
            name='reused_from',
            field=models.ForeignKey(blank=True, help_text='The earlier debate whose outcome this one took (settled_by reused: an agreed label, or an escalation people had answered); the first debate of a chain of reuses.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='reused_by', to='debates.debate'),
        ),
    ]
