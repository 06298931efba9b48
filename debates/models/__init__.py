"""Debate jobs, debates and turns: the stored side of DREAM debates.

A :class:`DebateJob` debates the pairs of one pool with two agents; it holds one
:class:`Debate` per pair (unique per job and pair), and each debate the :class:`Turn` of
every agent in every round (unique per debate, round and agent), so an interrupted debate
resumes from its stored turns and no LLM call for a stored turn is ever repeated.

Backend configs are stored as JSON that is safe to store and show, and read back as typed
:class:`~debates.llm.config.AgentConfig` (``DebateJob.agents``): never an API key, only the name of
the environment variable that holds it. A key typed in the job form is kept only encrypted
(:mod:`debates.api_keys`) in ``DebateJob.api_keys_encrypted``, which no form, page, admin or
export shows.

A new job takes over the agreed labels of earlier debates of its dataset with the same
reuse key (:mod:`debates.reuse`; ``Debate.reused_from``, no LLM call) unless launched without
reuse.

A job with a ``callback_url`` gets one :class:`WebhookDelivery` per event (finished, failed,
paused, cancelled), created in the transaction that changed its status and sent after commit.

The models live in four modules, re-exported here so that ``from debates.models import X``
stays the one way to reach them: :mod:`.job` (the job and its defaults), :mod:`.debate`
(debates and turns), :mod:`.delivery` (webhook deliveries, batch requests and submissions,
idempotency keys) and :mod:`.stage0` (the stage-0 judges).
"""

from debates.models.debate import Debate, Turn
from debates.models.delivery import (
    BatchRequest,
    BatchSubmission,
    JobIdempotencyKey,
    WebhookDelivery,
)
from debates.models.job import (
    DEFAULT_AUDIT_SHARE,
    DEFAULT_GOLD_SHARE,
    DEFAULT_JUDGMENTS_PER_PAIR,
    DebateJob,
    Stage0State,
)
from debates.models.stage0 import Stage0Judge

__all__ = [
    "DEFAULT_AUDIT_SHARE",
    "DEFAULT_GOLD_SHARE",
    "DEFAULT_JUDGMENTS_PER_PAIR",
    "BatchRequest",
    "BatchSubmission",
    "Debate",
    "DebateJob",
    "JobIdempotencyKey",
    "Stage0Judge",
    "Stage0State",
    "Turn",
    "WebhookDelivery",
]
