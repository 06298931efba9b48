"""The launch service refuses the settings the job form and the API refuse (ranges from
one place, :mod:`debates.services.launch`), so ``run_debates`` and the other commands
refuse them too, naming the setting, and create nothing."""

import pytest

from debates.models import Debate, DebateJob
from debates.services import DebateJobError
from debates.services.launch import JobSpec, debate_job_launch


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"max_tokens": 10**12}, "max_tokens must be at most 1,000,000, got 1,000,000,000,000"),
        ({"max_tokens": 8}, "max_tokens must be at least 16, got 8"),
        ({"max_tokens_cap": 2_000_000}, "max_tokens_cap must be at most 1,000,000"),
        ({"judgments_per_pair": 10**6}, "judgments per pair must be at most 9, got 1,000,000"),
        ({"judgments_per_pair": True}, "judgments per pair must be a whole number, got True"),
        ({"temperature": 1e308}, "temperature must be between 0 and 2.0, got 1e+308"),
        ({"temperature": -0.5}, "temperature must be >= 0, got -0.5"),
        ({"limit": 10**8}, "limit must be at most 10,000,000, got 100,000,000"),
        ({"human_budget": -1}, "human budget must be at least 0, got -1"),
        ({"rounds": True}, "rounds must be an integer in 1..5, got True"),
    ],
)
def test_a_setting_outside_its_range_is_refused_by_name(small_pool, settings, message):
    with pytest.raises(DebateJobError) as err:
        debate_job_launch(spec=JobSpec(pool=small_pool, **settings), start=False)
    assert str(err.value).startswith(message)
    assert (DebateJob.objects.count(), Debate.objects.count()) == (0, 0)


def test_the_job_form_takes_its_ranges_from_the_launch_service():
    from debates.forms import JobLaunchForm
    from debates.services.launch import MAX_JUDGMENTS_PER_PAIR, MAX_MAX_TOKENS, MAX_PAIRS

    fields = JobLaunchForm.base_fields
    assert fields["max_tokens"].max_value == fields["max_tokens_cap"].max_value == MAX_MAX_TOKENS
    assert fields["judgments_per_pair"].max_value == MAX_JUDGMENTS_PER_PAIR
    assert fields["pair_limit"].max_value == fields["human_budget"].max_value == MAX_PAIRS
