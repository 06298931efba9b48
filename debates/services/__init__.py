"""Debate services. Owns launching a job (:mod:`.launch`, the one place a job is created),
the job controls (:mod:`.jobs`), the Celery messages (:mod:`.queue`), running one debate
(:mod:`.run`) under a lease (:mod:`.leases`), the agents' clients (:mod:`.backends`),
progress, the human share of a job (:mod:`.human`), its webhooks (:mod:`.webhooks`) and
measuring the assessor.
Re-exported here: only what callers outside the debates app use; debates imports submodules.

The rule table: tests/architecture/test_imports_follow_the_package_rules.py (RULES).
May import: core, corpora.
"""

from debates.services.backends import agent_client_get, agent_config_validate
from debates.services.common import DebateJobError
from debates.services.jobs import (
    debate_job_cancel,
    debate_job_extend,
    debate_job_pause,
    debate_job_resume,
    debate_job_retry_failed,
    debate_job_start,
)
from debates.services.launch import (
    JobSpec,
    debate_job_begin,
    debate_job_launch,
    debate_job_resume_launch,
    debate_job_retry_launch,
    debate_job_wait,
    job_agents_describe,
    job_scale_describe,
    tokens_describe,
)
from debates.services.progress import debate_job_progress
from debates.services.run import (
    debate_job_run_inline,
    debate_requeue_expired,
    debate_run,
    pair_text_build,
    turn_record_build,
)

__all__ = [
    "DebateJobError",
    "JobSpec",
    "agent_client_get",
    "agent_config_validate",
    "debate_job_cancel",
    "debate_job_extend",
    "debate_job_begin",
    "debate_job_launch",
    "debate_job_pause",
    "debate_job_progress",
    "debate_job_resume",
    "debate_job_resume_launch",
    "debate_job_retry_failed",
    "debate_job_retry_launch",
    "debate_job_run_inline",
    "debate_job_start",
    "debate_job_wait",
    "debate_requeue_expired",
    "debate_run",
    "job_agents_describe",
    "job_scale_describe",
    "pair_text_build",
    "tokens_describe",
    "turn_record_build",
]
