"""The launch-time check of simulated debaters' truth against the pool they debate
(:func:`debate_job_truth_note_set`)."""

from __future__ import annotations

from debates.llm.base import PermanentLLMError
from debates.llm.config import AgentConfig
from debates.models import DebateJob
from debates.services.common import DebateJobError
from debates.simulated import truth_pool_note
from debates.simulated_client import truth_file_read


def debate_job_truth_note_set(*, job: DebateJob) -> str:
    """Store on ``job`` (``truth_note``) and return the warning of
    :func:`debates.simulated.truth_pool_note` for the truth file of its first simulated agent,
    over every pair of its pool; "" (nothing stored) when no agent is simulated or the truth
    lists a pooled pair as relevant. Reads the truth file (its ids were checked at launch);
    raises DebateJobError naming the file when it cannot be read (the launch then makes
    nothing)."""
    for raw in (job.agent_a, job.agent_b):
        config = AgentConfig.load(raw, check_file=False)
        if config.is_simulated and config.truth:
            try:
                truth = truth_file_read(config.truth)
            except PermanentLLMError as exc:  # checked at launch, changed since: words, not a 500
                raise DebateJobError(str(exc)) from None
            pairs = job.pool.pairs.values_list("query__query_id", "document__doc_id")
            note = truth_pool_note(truth=truth, pairs=pairs.iterator(chunk_size=5_000))
            if note:
                DebateJob.objects.filter(pk=job.pk).update(truth_note=note)
                job.truth_note = note
            return note
    return ""
