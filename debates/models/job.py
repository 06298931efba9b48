"""The debate job: one DREAM labelling job over a pool, its settings and status, and the
defaults of a new job's human side."""

from django.conf import settings
from django.db import models

from corpora.models import Pool
from debates.audit_design import ALLOCATIONS, AuditDesign
from debates.engine import DEFAULT_ROUNDS, DEFAULT_TEMPERATURE, max_tokens_cap_effective
from debates.llm.config import AgentConfig
from debates.stage0_band import DEFAULT_ALPHA as STAGE0_ALPHA
from debates.stage0_band import DEFAULT_BETA as STAGE0_BETA
from debates.stage0_band import DEFAULT_DELTA as STAGE0_DELTA

# A new job's human side (debates.services.job_options.JobOptions takes them from here): one
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
    def max_tokens_cap_applied(self) -> int:
        """The cap a re-ask of a cut reply got (tokens): ``max_tokens_cap``, or when the job
        set none (null), the default, twice ``max_tokens``
        (:func:`debates.engine.max_tokens_cap_effective`)."""
        return max_tokens_cap_effective(self.max_tokens, self.max_tokens_cap)

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
