"""A job's debates (one per pair) and their turns (one per round and agent)."""

from django.db import models

from corpora.models import Pair
from debates.models.job import DebateJob


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
