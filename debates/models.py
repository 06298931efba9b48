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
"""

from django.conf import settings
from django.db import models

from corpora.models import Dataset, Pair, Pool
from debates.audit_design import ALLOCATIONS, AuditDesign
from debates.engine import DEFAULT_ROUNDS, DEFAULT_TEMPERATURE
from debates.llm.config import AgentConfig
from debates.stage0_band import DEFAULT_ALPHA as STAGE0_ALPHA
from debates.stage0_band import DEFAULT_BETA as STAGE0_BETA
from debates.stage0_band import DEFAULT_DELTA as STAGE0_DELTA

# A new job's human side (debates.services.launch.JobOptions takes them from here): one
# judgment per escalated pair, 2% of agreed labels audited, 5% of each annotator's pairs
# known-answer pairs.
DEFAULT_JUDGMENTS_PER_PAIR = 1
DEFAULT_AUDIT_SHARE = 0.02
DEFAULT_GOLD_SHARE = 0.05


class Stage0State(models.TextChoices):
    OFF = "", "no stage 0"
    WAITING = "waiting", "waiting"
    TRAINING = "training", "training a stage-0 judge"
    ROUTING = "routing", "settling the pairs stage 0 is sure of"
    DONE = "done", "done"


class DebateJob(models.Model):
    """One DREAM labelling job over a pool: settings per agent, rounds, and its status."""

    class Scale(models.TextChoices):
        BINARY = "binary", "binary (relevant / not relevant)"
        GRADED = "graded", "graded (0..G, the benchmark's top grade)"

    class Consensus(models.TextChoices):
        EXACT = "exact", "exact (the same grade)"
        BINARY = "binary", "binary (the same side; the lower grade)"

    class Status(models.TextChoices):
        RUNNING = "running", "running"
        PAUSED = "paused", "paused"
        CANCELLED = "cancelled", "cancelled"
        FINISHED = "finished", "finished"

    class LaunchedFrom(models.TextChoices):
        WEB = "web", "the browser or the HTTP API"
        COMMAND = "command", "a management command (the server's operator)"

    pool = models.ForeignKey(Pool, on_delete=models.PROTECT, related_name="debate_jobs")
    agent_a = models.JSONField(
        help_text="Backend config of agent A (initial stance relevant); never holds a key."
    )
    agent_b = models.JSONField(
        help_text="Backend config of agent B (initial stance irrelevant); never holds a key."
    )
    rounds = models.PositiveSmallIntegerField(
        default=DEFAULT_ROUNDS, help_text="R, the maximum rounds."
    )
    temperature = models.FloatField(default=DEFAULT_TEMPERATURE)
    max_tokens = models.PositiveIntegerField(
        default=384, help_text="Completion budget of a turn's first call (tokens)."
    )
    max_tokens_cap = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="The most a re-ask of a reply cut at its budget may get (tokens); empty: "
        "twice max_tokens.",
    )
    prompt_version = models.CharField(max_length=50)
    scale = models.CharField(
        max_length=10,
        choices=Scale.choices,
        default=Scale.BINARY,
        help_text="binary: labels 1/0 (DREAM); graded: grades 0..max_grade with a rubric.",
    )
    max_grade = models.PositiveSmallIntegerField(
        default=1, help_text="G, the top grade an agent may give (1 when binary)."
    )
    consensus = models.CharField(
        max_length=10,
        choices=Consensus.choices,
        default=Consensus.EXACT,
        help_text="When a round agrees: the same grade (exact), or the same side of "
        "relevance with the lower grade kept (binary).",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    pair_limit = models.PositiveIntegerField(
        null=True, blank=True, help_text="Only the first N pairs (query id, doc id) were taken."
    )
    judgments_per_pair = models.PositiveSmallIntegerField(
        default=DEFAULT_JUDGMENTS_PER_PAIR,
        help_text="Human judgments wanted per escalated pair (annotation UI).",
    )
    audit_share = models.FloatField(
        default=DEFAULT_AUDIT_SHARE, help_text="Share of agreed labels sampled for a human audit."
    )
    audit_allocation = models.CharField(
        max_length=12,
        choices=[(name, name) for name in ALLOCATIONS],
        default=ALLOCATIONS[0],
        help_text="How the audit share is spread: proportional (every stratum, consensus "
        "label x round, at the share) or neyman (units of stratum x the pair's best rank in its "
        "pool; a pilot at a tenth of the share, then the rest where a wrong label costs the "
        "estimate most; debates.audit_design).",
    )
    audit_inclusion = models.JSONField(
        default=dict,
        blank=True,
        help_text="{stratum: probability}: each stratum's audit inclusion probability applied "
        "so far; only ever raised (read as DebateJob.audit_design).",
    )
    gold_share = models.FloatField(
        default=DEFAULT_GOLD_SHARE,
        help_text="Share of each annotator's pairs that are known-answer (gold) pairs drawn "
        "from the original qrels, to measure the annotator (assess.review.gold); 0: none.",
    )
    gold_drawn_at_share = models.FloatField(
        null=True,
        blank=True,
        help_text="The gold share the job's gold pairs were last drawn for (empty: never "
        "drawn); a draw that found fewer candidates than wanted is not repeated at every "
        "claim.",
    )
    human_budget = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="At most this many pairs go to humans (escalated and audited together), "
        "highest impact on the benchmark first; empty: no limit.",
    )
    note = models.CharField(max_length=200, blank=True)
    concurrency = models.PositiveIntegerField(
        default=1,
        help_text="Debates run at once by an in-process run (LLM requests in flight); with "
        "Celery the workers' -c bounds it (see README, Workers).",
    )
    api_keys_encrypted = models.TextField(
        blank=True,
        editable=False,
        help_text="API keys typed in the job form, per agent, as one Fernet token keyed from "
        "SECRET_KEY (debates.api_keys); empty when the keys come from the environment.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="debate_jobs",
    )
    callback_url = models.URLField(
        max_length=500,
        blank=True,
        help_text="POSTed once when the job finishes, fails, is paused or cancelled, signed "
        "with the creator's webhook secret (debates.services.webhooks); empty: no callback.",
    )
    batch = models.BooleanField(
        default=False,
        help_text="Batch mode: no direct LLM calls; each round's requests go out as a batch "
        "file (debate_batch export/import/submit, debates.services.batch).",
    )
    min_agreement_probability = models.FloatField(
        default=0.0,
        help_text="An agreement where an agent's label probability (from logprobs) is below "
        "this escalates as low_confidence; 0: off (debates.engine.DebateConfig).",
    )
    stage0 = models.BooleanField(
        default=False,
        help_text="Stage 0 first: the dataset's cheap calibrated judge settles the pairs it is "
        "sure of (within the band chosen at stage0_alpha, stage0_beta, stage0_delta); the rest "
        "are debated (debates.services.stage0_route).",
    )
    stage0_alpha = models.FloatField(
        default=STAGE0_ALPHA,
        help_text="The error rate allowed among stage-0 labels (against human labels).",
    )
    stage0_delta = models.FloatField(
        default=STAGE0_DELTA,
        help_text="The chance allowed that the stage-0 error bound fails.",
    )
    stage0_beta = models.FloatField(
        default=STAGE0_BETA,
        help_text="The share of the relevant pairs (holes) stage 0 may settle as not "
        "relevant, bounded with the error at delta; 1: not bounded (jobs made before this "
        "bound existed).",
    )
    stage0_state = models.CharField(
        max_length=10,
        choices=Stage0State.choices,
        default=Stage0State.OFF,
        blank=True,
        help_text="Where stage 0 is: waiting, training (a judge for the dataset), routing "
        "(scoring and settling pairs), done; empty when the job has no stage 0.",
    )
    stage0_note = models.TextField(
        blank=True,
        help_text="What stage 0 did or is doing, in words (its band, or why it settled nothing).",
    )
    stage0_band = models.JSONField(
        null=True,
        blank=True,
        help_text="The band chosen (debates.stage0_band.Stage0Band.dump); empty before routing.",
    )
    stage0_model_hash = models.CharField(
        max_length=64, blank=True, help_text="The stage-0 judge's model hash (sha256)."
    )
    stage0_claimed = models.DateTimeField(
        null=True, blank=True, help_text="When a process took the stage-0 step."
    )
    stage0_simulated_labels = models.PositiveIntegerField(
        default=0,
        help_text="Simulated labels behind this job's stage-0 labels: those its judge was "
        "trained and calibrated on plus the simulated human labels its band was set on; "
        "above 0, every stage-0 label of the job counts as simulated.",
    )
    check_judged = models.BooleanField(
        default=False,
        help_text="Checks the qrels: debates only the pool's judged pairs, never showing the "
        "agents their grade; a consensus on the other side of the original grade escalates as "
        "suspect_original, an agreeing one confirms it (debates.check_judged).",
    )
    reuse = models.BooleanField(
        default=True,
        help_text="Settled debates of earlier jobs with the same reuse key were taken over "
        "(debates.services.reuse); off: every pair was asked.",
    )
    reuse_key = models.CharField(
        max_length=64,
        blank=True,
        db_index=True,
        help_text="SHA-256 of the dataset, both agents' configs, sampling, prompt version, "
        "scale, R and consensus rule (debates.reuse.job_reuse_key).",
    )
    reuse_note = models.CharField(
        max_length=500,
        blank=True,
        help_text="At launch: how many of its pairs earlier jobs of the dataset debated, and "
        "how many of them were reused.",
    )
    launched_from = models.CharField(
        max_length=10,
        choices=LaunchedFrom.choices,
        default=LaunchedFrom.WEB,
        editable=False,
        help_text="web: the workers check its agents against the operator's settings before "
        "they call (debates.services.backends.stored_agents_permit); command: the operator's.",
    )
    stop_note = models.CharField(
        max_length=500, blank=True, help_text="Why the workers paused the job themselves."
    )
    truth_note = models.TextField(
        blank=True,
        help_text="At launch, for simulated debaters: a warning when their truth file lists "
        "none of the pool's pairs as relevant (debates.simulated.truth_pool_note).",
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    sent = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When its debates (or its stage-0 step) were last sent to the workers: "
        "started, resumed, extended, retried, or due again after a failed attempt's back-off.",
    )

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"job {self.pk} on {self.pool} ({self.status})"

    @property
    def agents(self) -> tuple[AgentConfig, AgentConfig]:
        """Agent A's and agent B's backend configs, parsed from the stored JSON
        (:meth:`AgentConfig.stored` parses each distinct config once per process)."""
        return AgentConfig.stored(self.agent_a), AgentConfig.stored(self.agent_b)

    @property
    def uses_bundled_model(self) -> bool:
        """Whether an agent runs the bundled SmolLM2-135M (:mod:`debates.bundled`): the job
        page's banner and the benchmark datasheet's warning both ask this. A local GGUF
        (``model_path``) is the researcher's own choice of model, so it does not count."""
        return any(config.is_bundled_model for config in self.agents)

    @property
    def audit_design(self) -> AuditDesign:
        """The job's audit share, allocation and committed per-stratum probabilities, parsed
        from the stored fields (:class:`debates.audit_design.AuditDesign`)."""
        return AuditDesign.stored(
            share=self.audit_share, allocation=self.audit_allocation, inclusion=self.audit_inclusion
        )


class Debate(models.Model):
    """The debate of one pair in one job, with its outcome and cost.

    ``calls`` and tokens count the LLM calls behind the stored turns (re-asks included);
    ``seconds`` is worker wall time summed over attempts; ``latency_ms`` the LLM time.
    ``lease_token``/``lease_expires_at`` mark the worker holding a running debate.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        RUNNING = "running", "running"
        AGREED = "agreed", "agreed"
        ESCALATED = "escalated", "escalated"
        FAILED = "failed", "failed"

    class Reason(models.TextChoices):
        NONE = "", "none"
        DISAGREEMENT = "disagreement", "disagreement after R rounds"
        UNPARSED = "unparsed", "a reply could not be read"
        TRUNCATED = "truncated", "a reply was cut at its token budget, even with twice it"
        TOO_LONG = "too_long", "the pair's texts are too long for the agents' context"
        LOW_CONFIDENCE = "low_confidence", "the agents agreed, one with a low label probability"
        SUSPECT_ORIGINAL = "suspect_original", "suspect original label"

    job = models.ForeignKey(DebateJob, on_delete=models.CASCADE, related_name="debates")
    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="debates")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    final_label = models.SmallIntegerField(
        null=True,
        blank=True,
        help_text="1 relevant, 0 irrelevant (graded jobs: the grade 0..G); set only when agreed.",
    )
    consensus_round = models.PositiveSmallIntegerField(null=True, blank=True)
    escalation_reason = models.CharField(
        max_length=20, choices=Reason.choices, default="", blank=True
    )
    chunk_truncated = models.BooleanField(default=False)
    settled_by = models.CharField(
        max_length=10,
        choices=[("", "debate"), ("stage0", "stage 0"), ("reused", "reused")],
        default="",
        blank=True,
        help_text="Who settled the debate: the debate (empty), stage 0 (an agreed label, no LLM "
        "call) or an earlier job's debate with the same reuse key (reused, no LLM call: its "
        "agreed label, or its escalation when people had already answered the pair).",
    )
    reused_from = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reused_by",
        help_text="The earlier debate whose outcome this one took (settled_by reused: an "
        "agreed label, or an escalation people had answered); the first debate of a chain "
        "of reuses.",
    )
    stage0_p = models.FloatField(
        null=True,
        blank=True,
        help_text="Stage 0's calibrated P(relevant) of the pair, when the job scored it.",
    )
    calls = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    reasoning_tokens = models.PositiveIntegerField(
        default=0, help_text="Part of completion_tokens the server reported as reasoning."
    )
    cached_tokens = models.PositiveIntegerField(
        default=0, help_text="Part of prompt_tokens the server served from its prefix cache."
    )
    latency_ms = models.FloatField(default=0, help_text="LLM time of the stored turns.")
    seconds = models.FloatField(default=0, help_text="Worker wall time, all attempts.")
    attempts = models.PositiveSmallIntegerField(
        default=0, help_text="Failed attempts (errors, lost workers)."
    )
    last_error = models.TextField(blank=True)
    lease_token = models.CharField(max_length=32, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["job", "pair"], name="debate_job_pair"),
        ]
        indexes = [
            models.Index(fields=["job", "status"], name="debate_job_status"),
            models.Index(fields=["status", "lease_expires_at"], name="debate_lease"),
        ]

    def __str__(self) -> str:
        return f"debate {self.pk} (job {self.job_id}, pair {self.pair_id}): {self.status}"

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Turn(models.Model):
    """One agent's turn in one round, as the engine returned it (raw reply kept verbatim)."""

    class Agent(models.TextChoices):
        A = "A", "A (initial stance relevant)"
        B = "B", "B (initial stance irrelevant)"

    debate = models.ForeignKey(Debate, on_delete=models.CASCADE, related_name="turns")
    round = models.PositiveSmallIntegerField()
    agent = models.CharField(max_length=1, choices=Agent.choices)
    stance = models.CharField(max_length=10, help_text="The agent's assigned initial stance.")
    label = models.SmallIntegerField(
        null=True,
        blank=True,
        help_text="1 relevant, 0 irrelevant (graded jobs: the grade 0..G), empty: unparsed.",
    )
    argument = models.TextField(blank=True)
    evidence = models.JSONField(default=list, blank=True, help_text="Sentences quoted.")
    raw = models.TextField(blank=True, help_text="The last reply, verbatim.")
    raw_attempts = models.JSONField(
        default=list,
        blank=True,
        help_text="Every attempt's reply, in order (two or three when re-asked); text a "
        "database cannot hold replaced with U+FFFD, kept exactly in attempt_log.",
    )
    reasoning = models.TextField(
        blank=True, help_text="The last reply's reasoning (capped at 20,000 characters)."
    )
    reasoning_tokens = models.PositiveIntegerField(default=0)
    cached_tokens = models.PositiveIntegerField(default=0)
    cut_off = models.BooleanField(
        default=False, help_text="Unread because the last reply was cut at its token budget."
    )
    attempt_log = models.JSONField(
        default=list,
        blank=True,
        help_text="Per attempt: why asked, max_tokens, finish_reason, tokens, error, "
        "reasoning and, when it needed cleaning, the exact reply escaped (raw_escaped).",
    )
    parse_error = models.TextField(blank=True)
    model = models.CharField(max_length=200)
    attempts = models.PositiveSmallIntegerField(
        default=1, help_text="Calls behind the turn: 1, or 2-3 when re-asked."
    )
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(default=0)
    chunk_truncated = models.BooleanField(default=False)
    finish_reason = models.CharField(max_length=20, blank=True)
    prompt_version = models.CharField(
        max_length=50, blank=True, help_text="Prompt version the turn was asked with."
    )
    # P(label) from the reply's token logprobs (debates.label_probability); on a binary scale
    # P(relevant) is this when label is 1, else 1 minus it. Empty: no label, or the server
    # sent no logprobs for the label's token.
    label_probability = models.FloatField(
        null=True,
        blank=True,
        help_text="Probability of the label given, from the reply's token logprobs (0-1); "
        "binary: P(relevant) = p if the label is 1 else 1 - p. Empty: no logprobs.",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["debate", "round", "agent"]
        constraints = [
            models.UniqueConstraint(
                fields=["debate", "round", "agent"], name="turn_debate_round_agent"
            ),
        ]

    def __str__(self) -> str:
        return f"debate {self.debate_id} round {self.round} agent {self.agent}: {self.label}"


class WebhookDelivery(models.Model):
    """One callback POST of a job's event, and how its sending went.

    ``payload`` is what the event said when it happened (``sent_at`` is added per attempt);
    ``attempts`` counts the attempts made (a claim counts one), ``next_attempt_at`` is when
    the pending delivery is due (a claimed one: when its claim lapses), ``last_status_code``
    and ``last_error`` describe the last attempt.
    """

    class Event(models.TextChoices):
        FINISHED = "job.finished", "job.finished"
        FAILED = "job.failed", "job.failed"
        PAUSED = "job.paused", "job.paused"
        CANCELLED = "job.cancelled", "job.cancelled"

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        DELIVERED = "delivered", "delivered"
        FAILED = "failed", "failed"

    job = models.ForeignKey(DebateJob, on_delete=models.CASCADE, related_name="webhook_deliveries")
    event = models.CharField(max_length=20, choices=Event.choices)
    url = models.URLField(max_length=500)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    delivered = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="webhook_due"),
        ]

    def __str__(self) -> str:
        return f"webhook {self.pk} {self.event} of job {self.job_id}: {self.status}"


class BatchRequest(models.Model):
    """One LLM request of a batch-mode job: due (to be sent in the next batch), sent (in a
    batch file or an uploaded batch, ``batch_ref``; ``sent`` is when first, and only a
    request exported once may be answered by an imported line), answered (``response``: the
    chat completion's JSON body) or failed (its line held an error; due again at the next export).
    ``custom_id`` names debate, round, agent and attempt (debates.batch.custom_id); ``body``
    is exactly what the direct path would POST."""

    class Status(models.TextChoices):
        DUE = "due", "due"
        SENT = "sent", "sent"
        ANSWERED = "answered", "answered"
        FAILED = "failed", "failed"

    job = models.ForeignKey(DebateJob, on_delete=models.CASCADE, related_name="batch_requests")
    debate = models.ForeignKey(Debate, on_delete=models.CASCADE, related_name="batch_requests")
    custom_id = models.CharField(max_length=100)
    body = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DUE)
    batch_ref = models.CharField(max_length=200, blank=True, help_text="Where it was sent.")
    sent = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When it was first exported (empty: never; its reply cannot be imported).",
    )
    response = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    failures = models.PositiveSmallIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    answered = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["job", "custom_id"], name="batchrequest_custom_id"),
        ]
        indexes = [models.Index(fields=["job", "status"], name="batchrequest_job_status")]

    def __str__(self) -> str:
        return f"{self.custom_id} ({self.status})"


class BatchSubmission(models.Model):
    """One batch of a batch-mode job sent to an OpenAI-compatible Batch API by
    ``debate_batch JOB submit`` (:mod:`debates.services.batch_api`), stored so that a new
    process resumes polling it instead of exporting again.

    ``status`` is the API's (validating … completed, failed, expired, cancelling, cancelled)
    or one of two of this code: ``exporting`` (the row exists, the batch is not created yet:
    its requests carry the provisional ref :attr:`provisional_ref`) and ``abandoned`` (a
    process stopped before the batch was created; its requests went back to due). A batch
    that ended is imported once: ``imported`` is set in the transaction of the import."""

    class Status(models.TextChoices):
        EXPORTING = "exporting", "exporting"
        ABANDONED = "abandoned", "abandoned"
        VALIDATING = "validating", "validating"
        IN_PROGRESS = "in_progress", "in progress"
        FINALIZING = "finalizing", "finalizing"
        COMPLETED = "completed", "completed"
        FAILED = "failed", "failed"
        EXPIRED = "expired", "expired"
        CANCELLING = "cancelling", "cancelling"
        CANCELLED = "cancelled", "cancelled"

    job = models.ForeignKey(DebateJob, on_delete=models.CASCADE, related_name="batch_submissions")
    batch_id = models.CharField(max_length=200, blank=True)
    input_file_id = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.EXPORTING)
    output_file_id = models.CharField(max_length=200, blank=True)
    error_file_id = models.CharField(max_length=200, blank=True)
    request_count = models.PositiveIntegerField(default=0, help_text="Request lines sent.")
    replies = models.PositiveIntegerField(default=0, help_text="Replies stored at the import.")
    returned = models.PositiveIntegerField(
        default=0, help_text="Sent requests without a reply, due again after the import."
    )
    detail = models.TextField(blank=True, help_text="The API's errors of a failed batch.")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    ended = models.DateTimeField(null=True, blank=True)
    imported = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["batch_id"],
                condition=~models.Q(batch_id=""),
                name="batchsubmission_batch_id",
            ),
        ]
        indexes = [models.Index(fields=["job", "imported"], name="batchsubmission_open")]

    def __str__(self) -> str:
        return f"batch {self.batch_id or self.provisional_ref} of job {self.job_id}: {self.status}"

    @property
    def provisional_ref(self) -> str:
        """The ``batch_ref`` of its requests until the batch is created (then its id)."""
        return f"submission:{self.pk}"


class JobIdempotencyKey(models.Model):
    """An ``Idempotency-Key`` a user sent with ``POST /api/v1/jobs``: the hash of the
    request it came with and the job that request made, with the answer it got (status and
    JSON body), so a repeat with the same key and body gets that answer again and makes no
    job. Unique per user and key: of two requests with one key in flight at once, the
    second waits for the first's transaction and then finds its row."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="job_idempotency_keys"
    )
    key = models.CharField(max_length=200)
    request_hash = models.CharField(max_length=64, help_text="SHA-256 of the request's fields.")
    job = models.ForeignKey(
        DebateJob, on_delete=models.CASCADE, null=True, related_name="idempotency_keys"
    )
    status_code = models.PositiveSmallIntegerField(default=202)
    response = models.JSONField(null=True, blank=True, help_text="The first answer's body.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="jobidempotencykey_user_key"),
        ]

    def __str__(self) -> str:
        return f"idempotency key {self.key!r} of user {self.user_id}: job {self.job_id}"


class Stage0Judge(models.Model):
    """A stage-0 judge of one dataset: a classifier over frozen all-MiniLM-L6-v2 vectors of
    query and document and the pair's term-matching scalars, calibrated to P(relevant)
    (:mod:`debates.stage0`).

    ``fitted`` holds the classifier, its calibrator and the scalars' standardiser as bytes
    (:func:`debates.stage0.fit.fitted_dump`), written only by training: never a file path.
    ``data_hash`` is the sha256 of the sorted training and calibration examples (query id, doc
    id, label, source), ``weights_hash`` that of the encoder's identity and the fitted bytes,
    ``model_hash`` of the two. ``heldout`` lists the held-out test queries' labelled pairs with
    their calibrated probability, ``[{"query_id", "doc_id", "p", "label", "source"}]``, which no
    fitting or calibrating saw; ``metrics`` holds their figures (balanced_accuracy,
    recall_relevant, recall_nonrelevant, ece, brier, n) with the split and the example counts
    per source and part. ``band_calibration`` lists the human labels of pooled pairs (any query)
    with their calibrated probability and sampling probabilities, ``[{"query_id", "doc_id", "p",
    "label", "inclusion", "floor"}]``: never fitted on, they set the routing band
    (:mod:`debates.stage0_band`); a row the simulated annotator labelled says ``"simulated":
    true``. ``simulated_labels`` and ``band_simulated`` count the simulated labels it learnt
    from and holds for the band: a job whose stage 0 used any marks its stage-0 labels simulated
    (``DebateJob.stage0_simulated_labels``).
    """

    class Status(models.TextChoices):
        TRAINING = "training", "training"
        READY = "ready", "ready"
        FAILED = "failed", "failed"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="stage0_judges")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.TRAINING)
    model_hash = models.CharField(max_length=64, blank=True)
    data_hash = models.CharField(max_length=64, blank=True)
    weights_hash = models.CharField(max_length=64, blank=True)
    fitted = models.BinaryField(null=True, blank=True, editable=False)
    n_train = models.PositiveIntegerField(default=0, help_text="Examples the classifier fit.")
    heldout = models.JSONField(default=list, blank=True)
    band_calibration = models.JSONField(default=list, blank=True)
    simulated_labels = models.PositiveIntegerField(
        default=0,
        help_text="Simulated labels among the training and calibration examples (consensus "
        "of simulated debaters, human labels the simulated annotator gave).",
    )
    metrics = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [models.Index(fields=["dataset", "status"], name="stage0_dataset_status")]

    def __str__(self) -> str:
        return f"stage-0 judge {self.pk} of dataset {self.dataset_id} ({self.status})"

    @property
    def band_simulated(self) -> int:
        """Simulated human labels among ``band_calibration``'s rows (those saying
        ``"simulated": true``)."""
        return sum(1 for row in self.band_calibration or [] if row.get("simulated"))
