"""The debate task is acknowledged late, handed back if its worker dies, and time-limited."""

from django.conf import settings

from debates.tasks import requeue_expired_debates, run_debate


def test_the_debate_task_is_acknowledged_only_after_it_ran():
    assert run_debate.acks_late is True
    assert run_debate.reject_on_worker_lost is True
    assert run_debate.time_limit == settings.CELERY_TASK_TIME_LIMIT == 1800
    assert run_debate.name == "debates.run_debate"


def test_beat_requeues_expired_debates_every_minute():
    entry = settings.CELERY_BEAT_SCHEDULE["requeue-expired-debates"]
    assert entry == {"task": requeue_expired_debates.name, "schedule": 60.0}
