"""``run_debates --audit-share S --audit-allocation neyman`` launches the job with that audit
share and allocation, as the form, the API and ``pipeline`` do; without the flags the job
keeps the job option's defaults, and a share outside 0..1 is refused before any job."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from debates.models import DEFAULT_AUDIT_SHARE, DebateJob

pytestmark = pytest.mark.django_db

ARGS = ["run_debates", "small/pool", "--backend", "test", "--rounds", "1", "--no-progress"]


def test_the_flags_set_the_jobs_audit_share_and_allocation(small_pool, fake_llms):
    call_command(*ARGS, "--audit-share", "0.5", "--audit-allocation", "neyman", "--no-reuse")
    job = DebateJob.objects.get()
    assert (job.audit_share, job.audit_allocation) == (0.5, "neyman")
    # Without the flags, the job option's defaults.
    call_command(*ARGS, "--no-reuse", "--allow-duplicate")
    job = DebateJob.objects.latest("pk")
    assert (job.audit_share, job.audit_allocation) == (DEFAULT_AUDIT_SHARE, "proportional")


def test_a_share_above_one_is_refused_and_launches_nothing(small_pool, fake_llms):
    with pytest.raises(CommandError, match="--audit-share: must be between 0 and 1, got 1.5"):
        call_command(*ARGS, "--audit-share", "1.5")
    assert not DebateJob.objects.exists()
