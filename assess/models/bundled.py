"""Whether a refined set's labels came from the bundled model (SmolLM2-135M, the embedded
backend without a ``model_path``), and the warning every report of such a set shows: the
job page's banner (:func:`debates.bundled.embedded_warning`) said again on the refined set's
page and API, the re-benchmark's page, API and printout, the demo's and pipeline's printout
and the benchmark zip's datasheet. Its labels are for trying the pipeline, not for a
benchmark, and a researcher reads the refined set, not the job page. Queries only; no model
of its own.
"""

from __future__ import annotations

from typing import Any

from debates.bundled import embedded_warning
from debates.models import DebateJob

from .refined import Refinement
from .simulated import refinement_chain


def refined_jobs(qrel_set: Any) -> list[int]:
    """The debate job ids of the refinements that made ``qrel_set`` and the refined sets it
    was refined from (:func:`assess.models.simulated.refinement_chain`): the rows it copied
    from those sets are their jobs' labels. Empty for an imported set."""
    chain = Refinement.objects.filter(qrel_set__in=[q.pk for q in refinement_chain(qrel_set)])
    return sorted({job for jobs in chain.values_list("jobs", flat=True) for job in jobs or []})


def jobs_bundled_warning(jobs: list[int]) -> str:
    """The job page's banner on the bundled model's labels when one of ``jobs`` (ids) ran it
    (:attr:`debates.models.DebateJob.uses_bundled_model`); "" otherwise."""
    found = DebateJob.objects.filter(pk__in=jobs)
    return embedded_warning() if any(job.uses_bundled_model for job in found) else ""


def refined_bundled_warning(*, qrel_set: Any) -> str:
    """The banner on the bundled model's labels when a job behind ``qrel_set``'s labels (its
    own refinement's or one it was refined from) ran that model; "" otherwise, and for an
    imported set."""
    return jobs_bundled_warning(refined_jobs(qrel_set))
