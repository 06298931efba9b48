"""Benchmarks as stored rows: datasets, documents (chunks), queries, qrel sets and qrels.

Ids from the benchmark files (``doc_id``, ``query_id``) are natural keys, unique per dataset;
the database primary keys never leave the app.
"""

from django.conf import settings
from django.db import models

from core.broker import background_wait_warning
from core.paths import source_shown

from .pool_strategies import ADAPTIVE

RELEVANCE_MIN = -127
RELEVANCE_MAX = 127


class Dataset(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    source = models.TextField(
        blank=True, help_text="Where the files came from (path, URL, commit)."
    )
    licence = models.TextField(blank=True, help_text="Licence note, e.g. 'CC BY-NC 2.0'.")
    exclude_identical_ids = models.BooleanField(
        default=False,
        help_text="A query's own document (doc id = query id) is never retrieved, pooled, "
        "refined or counted in an evaluation (BEIR's ignore_identical_ids, for ArguAna and "
        "Quora, whose queries are documents of the corpus).",
    )
    identical_ids = models.PositiveIntegerField(
        default=0, help_text="Query ids that are also document ids (counted at import)."
    )
    identical_texts = models.PositiveIntegerField(
        default=0, help_text="Documents whose text equals a query's text (counted at import)."
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug

    @property
    def source_shown(self) -> str:
        """``source`` as users see it: a folder on the server by its last part only
        (:func:`core.paths.source_shown`)."""
        return source_shown(self.source)


class Document(models.Model):
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="documents")
    doc_id = models.CharField(max_length=200)
    title = models.TextField(blank=True)
    text = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["dataset", "doc_id"], name="document_natural_key")
        ]

    def __str__(self) -> str:
        return f"{self.dataset_id}:{self.doc_id}"


class Query(models.Model):
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="queries")
    query_id = models.CharField(max_length=200)
    text = models.TextField()
    answers = models.JSONField(default=list, blank=True, help_text="Reference answers (strings).")
    metadata = models.JSONField(default=dict, blank=True)

    class Meta:
        verbose_name_plural = "queries"
        constraints = [
            models.UniqueConstraint(fields=["dataset", "query_id"], name="query_natural_key")
        ]

    def __str__(self) -> str:
        return f"{self.dataset_id}:{self.query_id}"


class QrelSet(models.Model):
    class Origin(models.TextChoices):
        IMPORTED = "imported", "imported"
        REFINED = "refined", "refined"

    class DuplicatePolicy(models.TextChoices):
        REJECT = "", "reject duplicates"
        KEEP_MAX = "keep-max", "keep the highest grade"
        KEEP_LAST = "keep-last", "keep the last row"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="qrel_sets")
    name = models.CharField(max_length=100, help_text="Split or version name, e.g. 'test'.")
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.IMPORTED)
    source = models.TextField(blank=True, help_text="File the qrels were read from.")
    duplicate_policy = models.CharField(
        max_length=10, choices=DuplicatePolicy.choices, default="", blank=True
    )
    duplicates_resolved = models.PositiveIntegerField(
        default=0, help_text="Rows dropped by the duplicate policy at import."
    )
    unknown_ids_dropped = models.PositiveIntegerField(
        default=0,
        help_text="Rows naming a query or document id absent from the dataset, skipped at "
        "import with --unknown-ids drop (listed in the import record).",
    )
    # The scale of the set (graded debates read their top grade here), recorded when its rows
    # are written (import, refinement) and never recomputed: the rows of a qrel set do not
    # change.
    grades = models.JSONField(
        default=dict,
        blank=True,
        help_text='Rows per grade, e.g. {"1": 11758, "2": 576} (keys are the grades as text).',
    )
    grade_min = models.SmallIntegerField(null=True, blank=True, help_text="Lowest grade.")
    grade_max = models.SmallIntegerField(null=True, blank=True, help_text="Highest grade.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "name"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "name"], name="qrelset_natural_key")
        ]

    def __str__(self) -> str:
        return f"{self.dataset.slug}/{self.name}"

    @property
    def grade_counts(self) -> dict[int, int]:
        """Rows per grade, ``{grade: rows}`` in ascending grade order (empty: no rows)."""
        return {int(g): n for g, n in sorted(self.grades.items(), key=lambda i: int(i[0]))}

    @property
    def grades_text(self) -> str:
        """The scale as the dataset page shows it: ``"1–2 (1: 11,758 · 2: 576)"``, rows per
        grade ascending; ``"none"`` for a set without rows."""
        counts = self.grade_counts
        if not counts:
            return "none"
        span = (
            f"{self.grade_min}"
            if self.grade_min == self.grade_max
            else f"{self.grade_min}–{self.grade_max}"
        )
        return f"{span} (" + " · ".join(f"{g}: {n:,}" for g, n in counts.items()) + ")"


class Qrel(models.Model):
    qrel_set = models.ForeignKey(QrelSet, on_delete=models.CASCADE, related_name="qrels")
    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="qrels")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="qrels")
    relevance = models.SmallIntegerField(help_text="Grade, -127..127; > 0 means relevant.")

    class Meta:
        constraints = [
            # Also the index behind "is (query, document) judged in this set?" in pooling.
            models.UniqueConstraint(
                fields=["qrel_set", "query", "document"], name="qrel_natural_key"
            ),
            models.CheckConstraint(
                condition=models.Q(relevance__gte=RELEVANCE_MIN)
                & models.Q(relevance__lte=RELEVANCE_MAX),
                name="qrel_relevance_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.qrel_set_id} {self.query_id} {self.document_id} {self.relevance}"


class ImportRecord(models.Model):
    """One successful import, for the dataset's history page."""

    class Kind(models.TextChoices):
        BEIR = "beir", "BEIR folder"
        QRELS = "qrels", "TREC qrels"
        ANSWERS = "answers", "reference answers"
        RUN = "run", "TREC run"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="imports")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    path = models.TextField()
    summary = models.JSONField(default=dict)
    seconds = models.FloatField(default=0)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.dataset.slug} {self.kind} {self.path}"

    @property
    def kind_shown(self) -> str:
        """The kind as the history shows it: a qrels import by its file's format ("BEIR
        qrels (TSV)" when ``summary["format"]`` says ``beir``; "TREC qrels" otherwise, as
        every import before the format was recorded was read as one)."""
        if self.kind == self.Kind.QRELS and (self.summary or {}).get("format") == "beir":
            return "BEIR qrels (TSV)"
        return self.get_kind_display()


class Run(models.Model):
    """A ranked list of documents per query: built by a retriever here or imported (TREC run).

    Rank order is (score descending, doc_id ascending) everywhere, so a run is reproducible
    byte for byte. ``status`` tracks a built-in retrieval executed by a Celery task.
    """

    class Source(models.TextChoices):
        BUILTIN = "builtin", "built-in retriever"
        IMPORTED = "imported", "imported TREC run"

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="runs")
    name = models.SlugField(max_length=100, help_text="Run tag, unique per dataset, e.g. 'bm25'.")
    system = models.TextField(blank=True, help_text="What produced the run (retriever, model).")
    parameters = models.JSONField(default=dict, blank=True)
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.BUILTIN)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DONE)
    error = models.TextField(blank=True)
    seconds = models.FloatField(default=0, help_text="Wall-clock seconds to build or import.")
    truncated_documents = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Dense runs: documents longer than the model reads (its max_seq_length in "
        "its own word pieces); without windows their ends were ignored.",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "name"]
        constraints = [models.UniqueConstraint(fields=["dataset", "name"], name="run_natural_key")]

    def __str__(self) -> str:
        return f"{self.dataset.slug}/{self.name}"

    @property
    def windows(self) -> dict | None:
        """The window settings of a dense run scored by its best window (MaxP), else None."""
        return (self.parameters or {}).get("windows")


class RunEntry(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="entries")
    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="run_entries")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="run_entries")
    rank = models.PositiveIntegerField(help_text="1-based rank within the query.")
    score = models.FloatField(help_text="Raw score from the system (kept as imported).")

    class Meta:
        verbose_name_plural = "run entries"
        constraints = [
            models.UniqueConstraint(
                fields=["run", "query", "document"], name="runentry_natural_key"
            )
        ]
        indexes = [models.Index(fields=["run", "query", "rank"], name="runentry_rank")]

    def __str__(self) -> str:
        return f"{self.run_id} {self.query_id} {self.document_id} {self.rank} {self.score}"


class DocumentEmbedding(models.Model):
    """A document's dense vector for one encoder, computed once and reused by every run.

    ``vector`` is little-endian float32 bytes, L2-normalised (so dot product = cosine).
    ``windowing`` is empty for the vector of the whole document (as far as the model reads
    it), or ``"<max word pieces>/<stride>"`` for the vectors of its overlapping windows
    (``corpora.retrieval.document_windows``), numbered from 0 by ``window``. All windows of
    a document are stored in one transaction, so a document with window 0 has them all.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="embeddings")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="embeddings")
    model_name = models.CharField(max_length=200)
    windowing = models.CharField(max_length=20, blank=True, default="")
    window = models.PositiveIntegerField(default=0)
    vector = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["document", "model_name", "windowing", "window"],
                name="documentembedding_natural_key",
            )
        ]
        indexes = [
            models.Index(
                fields=["dataset", "model_name", "windowing"], name="embedding_dataset_model"
            )
        ]

    def __str__(self) -> str:
        suffix = f" {self.windowing}#{self.window}" if self.windowing else ""
        return f"{self.document_id} {self.model_name}{suffix}"


class Pool(models.Model):
    """Candidate (query, document) pairs: the union of chosen runs' top ``depth`` per query,
    minus pairs already judged in ``qrel_set`` unless ``include_judged``.

    ``strategy`` orders the pairs for judging (:mod:`corpora.pool_strategies`): ``depth``
    without a budget keeps the canonical order (query id, doc id); any other strategy, or a
    budget, stores each pair's place in ``Pair.pool_order``. ``budget`` is the number of
    pairs a job judges at most (None: every pair)."""

    class Strategy(models.TextChoices):
        DEPTH = "depth", "depth-k (rank by rank)"
        RBP = "rbp", "RBP-weighted (p = 0.8)"
        RRF = "rrf", "reciprocal rank fusion (k = 60)"
        BANDIT = "bandit", "bandit (MaxMean over runs)"
        MTC = "mtc", "minimal test collection"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="pools")
    qrel_set = models.ForeignKey(
        QrelSet,
        # RESTRICT, not PROTECT: deleting the whole dataset (pools included) still works.
        on_delete=models.RESTRICT,
        related_name="pools",
        help_text="The qrels the pool is judged against (judged pairs are left out).",
    )
    name = models.SlugField(max_length=100)
    depth = models.PositiveIntegerField(default=10, help_text="Pool depth k: top k per run.")
    include_judged = models.BooleanField(
        default=False, help_text="Keep pairs already judged in the qrel set (accuracy audits)."
    )
    runs = models.ManyToManyField(Run, related_name="pools", blank=True)
    query_ids = models.JSONField(
        default=list,
        blank=True,
        help_text="Pool only these query ids (a bounded subset); empty: every judged query.",
    )
    strategy = models.CharField(
        max_length=10,
        choices=Strategy.choices,
        default=Strategy.DEPTH,
        help_text="The order in which the pairs are judged.",
    )
    budget = models.PositiveIntegerField(
        null=True, blank=True, help_text="Pairs a job judges at most, in the strategy's order."
    )
    strategy_parameters = models.JSONField(
        default=dict, blank=True, help_text="The strategy's settings (p, k, discount...)."
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "name"]
        constraints = [models.UniqueConstraint(fields=["dataset", "name"], name="pool_natural_key")]

    def __str__(self) -> str:
        return f"{self.dataset.slug}/{self.name}"

    @property
    def adaptive(self) -> bool:
        """Whether the strategy reorders the pairs as labels arrive (bandit, mtc)."""
        return self.strategy in ADAPTIVE


class Pair(models.Model):
    """One candidate (query, document) in a pool; its provenance is in ``sources``."""

    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="pairs")
    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="pairs")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="pairs")
    original_relevance = models.SmallIntegerField(
        null=True, blank=True, help_text="Grade in the pool's qrel set, if judged there."
    )
    pool_order = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Place in the pool strategy's judging order (1 first); empty: canonical.",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pool", "query", "document"], name="pair_natural_key")
        ]

    def __str__(self) -> str:
        return f"{self.pool_id} {self.query_id} {self.document_id}"


class PairSource(models.Model):
    """A run that put a pair in its pool, at this rank and score."""

    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="sources")
    # A run whose ranks are a pool's provenance must not vanish under it; RESTRICT (unlike
    # PROTECT) still lets the whole dataset, pools included, be deleted.
    run = models.ForeignKey(Run, on_delete=models.RESTRICT, related_name="pair_sources")
    rank = models.PositiveIntegerField()
    score = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pair", "run"], name="pairsource_natural_key")
        ]

    def __str__(self) -> str:
        return f"{self.pair_id} {self.run_id} {self.rank}"


class Operation(models.Model):
    """A long step started from the browser or the API (an uploaded benchmark, qrels file or
    run imported; a pool built; a pool refined into a refined qrel set, a step of ``assess``
    registered with :func:`corpora.services.operations.operation_step_register`), run in the
    background. Its row is the truth about it: the pages and ``GET /api/v1/operations/<id>``
    poll it. ``params`` are the step's options as
    given (validated before the row exists), ``result`` what it made (a dataset slug, a qrel
    set, run or pool id and name), ``error`` the message the equivalent command would print
    (``file:line: reason``, paths relative to the upload). ``upload_dir`` holds the uploaded
    files until the step ends (then removed)."""

    class Kind(models.TextChoices):
        IMPORT_BEIR = "import_beir", "import a BEIR benchmark"
        IMPORT_QRELS = "import_qrels", "import a qrels file"
        IMPORT_RUN = "import_run", "import a TREC run"
        BUILD_POOL = "build_pool", "build a pool"
        REFINE = "refine", "refine a pool"
        TRAIN_STAGE0 = "train_stage0", "train a stage-0 judge"

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    kind = models.CharField(max_length=20, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    stage = models.CharField(max_length=200, blank=True, help_text="What it is doing now.")
    dataset = models.ForeignKey(
        Dataset, null=True, blank=True, on_delete=models.CASCADE, related_name="operations"
    )
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    upload_dir = models.CharField(max_length=500, blank=True)
    upload_bytes = models.BigIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="corpora_operations",
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"operation {self.pk} {self.kind} ({self.status})"

    @property
    def ended(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)

    @property
    def worker_warning(self) -> str:
        """A sentence when the step has waited a minute for a Celery worker that never took
        it (:func:`core.broker.background_wait_warning`); "" otherwise."""
        return background_wait_warning(
            status=self.status, queued=self.Status.QUEUED, since=self.created
        )
