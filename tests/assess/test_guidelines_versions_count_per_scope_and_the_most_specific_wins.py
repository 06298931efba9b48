"""Guidelines versions (assess.review.guidelines): each scope (a job, a dataset, the built-in
default) counts its own versions from 1; a pair is judged under its job's newest version,
else its dataset's, else the default's; empty, blank and over-long texts are refused with a
ValueError saying why, and saving the current text again makes no new version."""

import pytest

from assess.models import Guidelines, ReviewItem
from assess.review.guidelines import (
    MAX_GUIDELINES_CHARS,
    GuidelinesError,
    guidelines_create,
    guidelines_current,
    guidelines_for_item,
    guidelines_history,
    guidelines_in_force,
)


def test_each_scope_counts_its_versions_from_one(make_review_job, make_user):
    admin = make_user("admin")
    first = make_review_job(escalated=1, slug="first").job
    second = make_review_job(escalated=1, slug="second").job
    dataset = first.pool.dataset
    default_before = guidelines_current()

    d1 = guidelines_create(text="dataset one", dataset=dataset, user=admin)
    d2 = guidelines_create(text="dataset two", dataset=dataset, user=admin)
    j1 = guidelines_create(text="job one", job=first, user=admin)
    other = guidelines_create(text="other dataset", dataset=second.pool.dataset, user=admin)
    default = guidelines_create(text="new default", user=None)

    assert [d1.version, d2.version, j1.version, other.version] == [1, 2, 1, 1]
    assert default.version == (default_before.version if default_before else 0) + 1
    assert (d2.dataset, d2.job, d2.created_by) == (dataset, None, admin)
    assert (j1.dataset, j1.job) == (None, first)
    assert [g.version for g in guidelines_history(dataset=dataset)] == [2, 1]
    assert guidelines_current(dataset=dataset) == d2
    assert guidelines_current(job=second) is None


def test_the_job_wins_over_the_dataset_and_the_dataset_over_the_default(make_review_job, make_user):
    admin = make_user("admin")
    job = make_review_job(escalated=1).job
    dataset = job.pool.dataset
    item = ReviewItem.objects.get()
    default = guidelines_create(text="the default", user=None)

    assert guidelines_for_item(item=item) == default
    assert guidelines_in_force(dataset=dataset, job=job) == default

    mine = guidelines_create(text="the dataset's", dataset=dataset, user=admin)
    assert guidelines_for_item(item=item) == mine
    assert guidelines_in_force(dataset=dataset) == mine

    own = guidelines_create(text="the job's", job=job, user=admin)
    newer = guidelines_create(text="the dataset's, again", dataset=dataset, user=admin)
    assert guidelines_for_item(item=item) == own  # the job's, though the dataset's is newer
    assert guidelines_in_force(dataset=dataset, job=job) == own
    assert guidelines_in_force(dataset=dataset) == newer


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        ("  \n\t \n", "empty"),
        ("x" * (MAX_GUIDELINES_CHARS + 1), f"at most {MAX_GUIDELINES_CHARS:,}"),
    ],
    ids=["empty", "blank", "too long"],
)
def test_an_empty_or_over_long_text_is_refused_and_nothing_is_stored(
    make_review_job, make_user, text, why
):
    dataset = make_review_job(escalated=1).job.pool.dataset
    with pytest.raises(GuidelinesError, match=why) as refused:
        guidelines_create(text=text, dataset=dataset, user=make_user("admin"))
    assert isinstance(refused.value, ValueError)
    assert not Guidelines.objects.filter(dataset=dataset).exists()


def test_guidelines_of_both_a_dataset_and_a_job_are_refused(make_review_job, make_user):
    job = make_review_job(escalated=1).job
    with pytest.raises(GuidelinesError, match="not to both"):
        guidelines_create(text="t", dataset=job.pool.dataset, job=job, user=make_user("admin"))


def test_the_current_text_again_makes_no_new_version_and_nul_is_replaced(
    make_review_job, make_user
):
    admin = make_user("admin")
    dataset = make_review_job(escalated=1).job.pool.dataset
    first = guidelines_create(text="judge the chunk\x00", dataset=dataset, user=admin)
    assert first.text == "judge the chunk\ufffd"
    again = guidelines_create(text="judge the chunk\x00", dataset=dataset, user=admin)
    assert again == first
    assert Guidelines.objects.filter(dataset=dataset).count() == 1
    at_limit = guidelines_create(text="y" * MAX_GUIDELINES_CHARS, dataset=dataset, user=admin)
    assert at_limit.version == 2
