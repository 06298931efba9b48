"""Benchmarks as stored rows: datasets, documents (chunks), queries, qrel sets and qrels.

Ids from the benchmark files (``doc_id``, ``query_id``) are natural keys, unique per dataset;
the database primary keys never leave the app.
"""

from django.db import models

RELEVANCE_MIN = -127
RELEVANCE_MAX = 127


class Dataset(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    source = models.TextField(
        blank=True, help_text="Where the files came from (path, URL, commit)."
    )
    licence = models.TextField(blank=True, help_text="Licence note, e.g. 'CC BY-NC 2.0'.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


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
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "name"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "name"], name="qrelset_natural_key")
        ]

    def __str__(self) -> str:
        return f"{self.dataset.slug}/{self.name}"


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
