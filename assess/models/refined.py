"""Final labels with provenance, export files and RAG generations.

- :class:`Refinement`: how one refined QrelSet (origin "refined") was made: from which pool
  and original qrels, with which threshold, and its counts. The refined set is immutable: it
  is written once by :func:`assess.refined.refine.qrels_refine`, and no code path updates its rows.
- :class:`LabelProvenance`: one row per pool pair at refinement time: its final label and
  where it came from (consensus at round j, human majority, adjudication), or why it has none
  (pending, escalated awaiting a human, human tie, failed, not debated, beyond budget: a
  budgeted pool's pair left unjudged by design); a consensus label reused from an earlier
  job says so (``reused``).
- :class:`ExportFile`: one export written by a Celery job to a file under
  ``settings.VAR_DIR / "exports"``, with its sha256.
- :class:`RagGeneration`: one generated answer (run, query, k, generator, prompt version),
  stored so a RAG evaluation never asks the LLM twice for the same thing.
"""

from django.conf import settings
from django.db import models

from core.broker import background_wait_warning
from corpora.models import Document, Pool, Qrel, QrelSet, Query, Run
from debates.models import Debate, DebateJob

from .overrides import overrides_consensus

__all__ = ["ExportFile", "LabelProvenance", "RagGeneration", "Refinement"]


class Refinement(models.Model):
    """The making of one refined QrelSet: original judgments copied, new labels added."""

    qrel_set = models.OneToOneField(
        QrelSet, on_delete=models.CASCADE, related_name="refinement", help_text="The refined set."
    )
    # RESTRICT (not PROTECT): the refined set's provenance keeps its pool, yet deleting the
    # whole dataset still works.
    pool = models.ForeignKey(Pool, on_delete=models.RESTRICT, related_name="refinements")
    original = models.ForeignKey(
        QrelSet,
        on_delete=models.RESTRICT,
        related_name="refinements_from",
        help_text="The pool's qrel set, copied unchanged into the refined set.",
    )
    allow_partial = models.BooleanField(default=False)
    max_unresolved_share = models.FloatField(help_text="Refusal threshold in force (0..1).")
    pairs = models.PositiveIntegerField(
        default=0,
        help_text="Pool pairs considered: all but those beyond the pool's budget "
        "(pairs = labelled + unresolved).",
    )
    unresolved = models.PositiveIntegerField(default=0)
    # What the pool's budget was at refinement, so the set's page and datasheet never read
    # the pool as it is now (its budget may have changed since).
    budget = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="The pool's budget (pairs a job judges at most) when refined; empty: no "
        "budget, or a set refined before it was stored (then beyond_budget is empty too).",
    )
    beyond_budget = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Pool pairs beyond the budget, never debated and left unjudged by design "
        "(reason 'beyond budget', outside pairs); 0 without a budget; empty: a set refined "
        "before it was stored.",
    )
    original_rows = models.PositiveIntegerField(default=0)
    new_relevant = models.PositiveIntegerField(default=0)
    new_nonrelevant = models.PositiveIntegerField(default=0)
    kept_original = models.PositiveIntegerField(
        default=0, help_text="Re-assessed pairs that were judged already: original grade kept."
    )
    counts = models.JSONField(
        default=dict, blank=True, help_text="Pairs by source and by unresolved reason."
    )
    jobs = models.JSONField(default=list, blank=True, help_text="Debate job ids considered.")
    relevant_grade = models.PositiveSmallIntegerField(
        default=1,
        help_text="The grade a binary 'relevant' label was written as (graded labels keep "
        "their grade).",
    )
    exclude_flagged = models.BooleanField(
        default=False,
        help_text="Judgments of annotators flagged under the gold accuracy floor were left out.",
    )
    excluded_annotators = models.JSONField(
        default=list,
        blank=True,
        help_text='[{"annotator", "gold_correct", "gold_answers", "gold_accuracy", "floor", '
        '"min_answers"}]: the annotators whose judgments were left out, with their gold '
        "figures then and the floor in force.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="refinements",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"refinement {self.qrel_set} from {self.pool}"

    @property
    def unresolved_share(self) -> float:
        return self.unresolved / self.pairs if self.pairs else 0.0


class LabelProvenance(models.Model):
    """One pool pair's final label (or its absence) in a refined set, and where it came from."""

    class Source(models.TextChoices):
        CONSENSUS = "consensus", "debate consensus"
        STAGE0 = "stage0", "stage-0 judge (calibrated, settled before any debate)"
        HUMAN = "human", "majority of human judgments"
        ADJUDICATED = "adjudicated", "adjudicated by an admin"
        UNRESOLVED = "unresolved", "no final label"

    refinement = models.ForeignKey(Refinement, on_delete=models.CASCADE, related_name="provenance")
    qrel_set = models.ForeignKey(QrelSet, on_delete=models.CASCADE, related_name="provenance")
    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    qrel = models.OneToOneField(
        Qrel,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="provenance",
        help_text="The refined set's row for this pair (empty when unresolved).",
    )
    label = models.SmallIntegerField(
        null=True,
        blank=True,
        help_text="Final label: 1 relevant, 0 not (graded jobs: the grade 0..G); empty: "
        "unresolved.",
    )
    grade = models.SmallIntegerField(
        null=True,
        blank=True,
        help_text="The grade the final label gives in the refined qrels (written there when "
        "applied); empty: unresolved.",
    )
    relevant_grade = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="For a binary label: the grade 'relevant' maps to; empty for a graded label.",
    )
    source = models.CharField(max_length=12, choices=Source.choices)
    reason = models.CharField(
        max_length=40, blank=True, help_text="Why there is no final label, when unresolved."
    )
    applied = models.BooleanField(
        default=False,
        help_text="The label was written to the refined qrels (False for originally judged "
        "pairs, whose original grade is kept, and for unresolved pairs).",
    )
    original_relevance = models.SmallIntegerField(null=True, blank=True)
    consensus_label = models.SmallIntegerField(null=True, blank=True)
    consensus_round = models.PositiveSmallIntegerField(null=True, blank=True)
    debate_status = models.CharField(max_length=10, blank=True)
    escalation_reason = models.CharField(max_length=20, blank=True)
    review_kind = models.CharField(max_length=10, blank=True, help_text="escalated or audit.")
    inclusion = models.FloatField(
        null=True,
        blank=True,
        help_text="The pair's probability of going to humans at refinement: 1 escalated, its "
        "audit unit's probability in its job for an agreed pair (drawn or not); when several "
        "jobs of the dataset could send it to people, the union of their independent draws, "
        "1 - prod(1 - p). Empty: neither, or a set refined before it was stored (the job's "
        "audit share then).",
    )
    drawn = models.BooleanField(
        null=True,
        blank=True,
        help_text="Whether any job of the dataset sent the pair to people at refinement "
        "(escalated it, or its audit drew it, or will at its next sync), its human label in "
        "or not. Empty in sets refined before it was stored.",
    )
    machine_label = models.SmallIntegerField(
        null=True,
        blank=True,
        help_text="The consensus of the pair's newest settled debate on the pool, whether or "
        "not humans answered it: the label the intervals correct (empty: it escalated, or "
        "none settled, or a set refined before it was stored).",
    )
    machine_round = models.PositiveSmallIntegerField(null=True, blank=True)
    job = models.ForeignKey(
        DebateJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    debate = models.ForeignKey(
        Debate, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    agent_models = models.JSONField(default=list, blank=True, help_text="[model A, model B].")
    prompt_version = models.CharField(max_length=50, blank=True)
    annotators = models.JSONField(default=list, blank=True, help_text="Usernames, sorted.")
    judgments = models.JSONField(
        default=list, blank=True, help_text='[{"annotator", "label", "at"}] (live judgments).'
    )
    adjudicator = models.CharField(max_length=150, blank=True)
    debated_at = models.DateTimeField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    reused = models.CharField(
        max_length=100,
        blank=True,
        help_text="When the deciding debate's agreed label was taken over from an earlier job "
        "with the same reuse key: 'reused by job N from job M (debate D)'; the rest of the "
        "row is that label's provenance.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["qrel_set", "query", "document"], name="provenance_natural_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.qrel_set_id} {self.query_id} {self.document_id} {self.label} {self.source}"

    @property
    def is_correction(self) -> bool:
        """A human verdict written over the grade the original qrels held (``applied`` with an
        ``original_relevance``): original → ``grade``, by ``annotators`` or ``adjudicator``,
        from ``debate`` of ``job`` (:mod:`assess.refined.corrections`)."""
        return self.applied and self.original_relevance is not None

    @property
    def overrides_consensus(self) -> bool:
        """A human label that replaced the agents' consensus, as the refinement counted it
        (:func:`assess.models.overrides.overrides_consensus` on the stored fields)."""
        return overrides_consensus(
            source=self.source,
            label=self.label,
            consensus_label=self.consensus_label,
            machine_label=self.machine_label,
        )


class ExportFile(models.Model):
    """One export file, written by a Celery job; deterministic bytes, sha256 recorded."""

    class Kind(models.TextChoices):
        TREC = "trec", "TREC qrels"
        BEIR = "beir", "BEIR qrels TSV"
        LABELS = "labels", "labels JSONL with provenance"
        TRANSCRIPTS = "transcripts", "debate transcripts JSONL"
        DISAGREEMENTS = "disagreements", "disagreements and escalations CSV"
        BENCHMARK = "benchmark", "benchmark zip: BEIR layout with a datasheet"

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    kind = models.CharField(max_length=15, choices=Kind.choices)
    qrel_set = models.ForeignKey(
        QrelSet, null=True, blank=True, on_delete=models.CASCADE, related_name="exports"
    )
    pool = models.ForeignKey(
        Pool, null=True, blank=True, on_delete=models.CASCADE, related_name="exports"
    )
    key = models.CharField(
        max_length=200, help_text="kind, source and the source's version: same key, same bytes."
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    path = models.CharField(max_length=300, blank=True, help_text="Relative to VAR_DIR/exports.")
    filename = models.CharField(max_length=200, blank=True, help_text="Download name.")
    sha256 = models.CharField(max_length=64, blank=True)
    rows = models.PositiveIntegerField(default=0)
    bytes = models.PositiveBigIntegerField(default=0)
    seconds = models.FloatField(default=0)
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="export_files",
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            # At most one live export per key: a second click finds the first and reuses it.
            models.UniqueConstraint(
                fields=["key"],
                condition=models.Q(status__in=["pending", "running", "done"]),
                name="exportfile_one_live_per_key",
            )
        ]

    def __str__(self) -> str:
        return f"export {self.pk} {self.kind} ({self.status})"

    @property
    def worker_warning(self) -> str:
        """A sentence when the export has waited a minute for a Celery worker that never took
        it (:func:`core.broker.background_wait_warning`); "" otherwise."""
        return background_wait_warning(
            status=self.status, queued=self.Status.PENDING, since=self.created
        )


class RagGeneration(models.Model):
    """One generated answer to a query from a run's top k chunks. Reused: the same (run,
    query, k, generator, prompt version) is never generated twice, where the generator names
    the backend kind, its server and the model (two servers serving a model under the same
    name are two generators). ``correct``/``exact_match``/``f1`` score the answer against
    the reference answers of the time it was generated; reports score the stored answer
    against the current ones (:mod:`assess.evaluation.rag_eval`)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="rag_generations")
    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="rag_generations")
    k = models.PositiveSmallIntegerField()
    backend = models.JSONField(help_text="Backend config (safe to store: never a key).")
    model = models.CharField(max_length=200)
    generator = models.CharField(
        max_length=400,
        help_text="Backend kind, server and model, e.g. openai:http://gpu1:8000/v1:llama-70b "
        "(assess.rag_eval.generator_key; never a key).",
    )
    prompt_version = models.CharField(max_length=50)
    doc_ids = models.JSONField(default=list, help_text="The chunks given, in rank order.")
    chunks_truncated = models.BooleanField(default=False)
    answer = models.TextField(blank=True)
    correct = models.BooleanField(help_text="A normalised reference answer is in the answer.")
    exact_match = models.BooleanField()
    f1 = models.FloatField(help_text="SQuAD token F1, 0..1.")
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(default=0)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", "query", "k", "generator", "prompt_version"],
                name="raggeneration_natural_key",
            )
        ]

    def __str__(self) -> str:
        return f"{self.run_id} {self.query_id} k={self.k} {self.generator}: {self.correct}"
