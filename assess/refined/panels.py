"""The refined side's panel on the debate job page (registered by ``assess.apps`` with
:func:`debates.views.job_panel_register`, since debates cannot import assess): the cost of
the final labels of the newest refined set of the job's pool. Read-only."""

from __future__ import annotations

from django.http import HttpRequest
from django.template.loader import render_to_string

from debates.models import DebateJob

from ..models import Refinement
from .cost import cost_rows
from .selectors import refined_costs, refined_sources


def job_costs_panel(request: HttpRequest, job: DebateJob) -> str:
    """The cost of every final label of the newest refined set made from ``job``'s pool, split
    by source (``templates/assess/refined/partials/job_costs_panel.html``), saying "batch
    prices" for a batch-mode job and marking the sources whose labels are simulated; "" when
    no refined set was made from the pool yet."""
    refinement = Refinement.objects.filter(pool=job.pool).order_by("-pk").first()
    if refinement is None:
        return ""
    _by_source, simulated = refined_sources(refinement=refinement)
    return render_to_string(
        "assess/refined/partials/job_costs_panel.html",
        {
            "costs": cost_rows(refined_costs(qrel_set=refinement.qrel_set)),
            "simulated": simulated,
            "costs_of": refinement.qrel_set,
            "job": job,
        },
        request=request,
    )
