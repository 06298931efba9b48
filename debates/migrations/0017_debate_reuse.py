"""Reuse of settled debates across jobs: a job's reuse key and reuse switch, a debate's source.

Jobs made before reused nothing (``reuse`` False for them; a new job's default is True), and
each gets its reuse key here, so a new job can take over their agreed labels. The key's
recipe (version 1) is a copy, not an import of debates.reuse.job_reuse_key: a migration is
history, and a later recipe must not change what this one stores. The test
tests/debates/test_the_reuse_key_changes_with_every_setting_that_shapes_a_reply.py checks
that the two agree.
"""

import hashlib
import json

import django.db.models.deletion
from django.db import migrations, models

KEY_FIELDS = (
    "agent_a",
    "agent_b",
    "rounds",
    "temperature",
    "max_tokens",
    "max_tokens_cap",
    "prompt_version",
    "scale",
    "max_grade",
    "consensus",
    "min_agreement_probability",
)


def reuse_key_v1(dataset_id, settings):
    fields = {name: settings[name] for name in KEY_FIELDS}
    for agent in ("agent_a", "agent_b"):
        fields[agent] = {
            k: v for k, v in (fields[agent] or {}).items() if k not in ("rpm", "timeout")
        }
    fields["temperature"] = float(fields["temperature"])
    fields["min_agreement_probability"] = float(fields["min_agreement_probability"])
    text = json.dumps(
        {"version": 1, "dataset": int(dataset_id), **fields},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    )
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def keys_fill(apps, schema_editor):
    DebateJob = apps.get_model("debates", "DebateJob")
    rows = DebateJob.objects.values_list("pk", "pool__dataset_id", *KEY_FIELDS)
    for pk, dataset_id, *values in rows.iterator():
        key = reuse_key_v1(dataset_id, dict(zip(KEY_FIELDS, values, strict=True)))
        DebateJob.objects.filter(pk=pk).update(reuse_key=key)


class Migration(migrations.Migration):

    dependencies = [
        ('debates', '0016_debate_job_stage0_routing'),
    ]

    operations = [
        migrations.AddField(
            model_name='debate',
            name='reused_from',
            field=models.ForeignKey(blank=True, help_text='The earlier debate whose agreed label this one took (settled_by reused); the first debate of a chain of reuses.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='reused_by', to='debates.debate'),
        ),
        migrations.AddField(
            model_name='debatejob',
            name='reuse',
            field=models.BooleanField(default=False, help_text='Settled debates of earlier jobs with the same reuse key were taken over (debates.services.reuse); off: every pair was asked.'),
        ),
        migrations.AddField(
            model_name='debatejob',
            name='reuse_key',
            field=models.CharField(blank=True, db_index=True, help_text="SHA-256 of the dataset, both agents' configs, sampling, prompt version, scale, R and consensus rule (debates.reuse.job_reuse_key).", max_length=64),
        ),
        migrations.AddField(
            model_name='debatejob',
            name='reuse_note',
            field=models.CharField(blank=True, help_text='At launch: how many of its pairs earlier jobs of the dataset debated, and how many of them were reused.', max_length=500),
        ),
        migrations.AlterField(
            model_name='debate',
            name='settled_by',
            field=models.CharField(blank=True, choices=[('', 'debate'), ('stage0', 'stage 0'), ('reused', 'reused')], default='', help_text="Who settled an agreed label: the debate (empty), stage 0 (no LLM call) or an earlier job's debate with the same reuse key (reused, no LLM call).", max_length=10),
        ),
        # Jobs made before reused nothing; a new job reuses unless told not to.
        migrations.AlterField(
            model_name='debatejob',
            name='reuse',
            field=models.BooleanField(default=True, help_text='Settled debates of earlier jobs with the same reuse key were taken over (debates.services.reuse); off: every pair was asked.'),
        ),
        migrations.RunPython(keys_fill, migrations.RunPython.noop),
    ]
