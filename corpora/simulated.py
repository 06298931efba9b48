"""How a download of a qrel set holding simulated labels says so: its file name and an HTTP
header, the same for every download (the dataset page's and the API's TREC/BEIR/labels
downloads, the export jobs' files, ``export_qrels``, the pipeline's TREC file).

Only assess knows a refined label's provenance, and corpora never imports assess: assess
registers the function that counts a set's simulated labels (in ``AppConfig.ready()``),
as it registers :func:`corpora.views.simulated_qrel_sets_register` for the dataset page.
A TREC qrels file cannot carry a comment (trec_eval reads every line as a row), so its
name is what marks it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from django.http.response import HttpResponseBase

from .models import QrelSet

#: Put before the file name of every download of a set with simulated labels.
SIMULATED_FILE_PREFIX: Final = "SIMULATED-"
#: The response header of such a download: ``debate=N; human=M; stage0=K``.
SIMULATED_LABELS_HEADER: Final = "X-DREAM-Simulated-Labels"

#: The kinds of simulated labels a count gives, in the header's order.
SIMULATED_KINDS: Final = ("debate", "human", "stage0")

#: ``count(qrel_set) -> {"debate": n, "human": m, "stage0": k}``: a set's simulated labels.
SimulatedCounter = Callable[[QrelSet], Mapping[str, int]]
SIMULATED_COUNTERS: list[SimulatedCounter] = []


def simulated_label_counter_register(count: SimulatedCounter) -> None:
    """Make ``count(qrel_set) -> {"debate": n, "human": m, "stage0": k}`` the function that
    counts a set's simulated labels, copied ones included (idempotent; a later registration
    replaces an earlier one)."""
    SIMULATED_COUNTERS[:] = [count]


def qrel_set_simulated_counts(*, qrel_set: QrelSet) -> dict[str, int]:
    """``{"debate": n, "human": m, "stage0": k}``: the simulated labels of ``qrel_set`` as
    the registered counter gives them; all 0 for an imported set or when none is
    registered."""
    if not SIMULATED_COUNTERS or qrel_set.origin != QrelSet.Origin.REFINED:
        return dict.fromkeys(SIMULATED_KINDS, 0)
    found = SIMULATED_COUNTERS[0](qrel_set)
    return {kind: int(found.get(kind, 0)) for kind in SIMULATED_KINDS}


def simulated_filename(filename: str, counts: Mapping[str, int]) -> str:
    """``filename`` with :data:`SIMULATED_FILE_PREFIX` before it when ``counts``
    (``{"debate", "human", "stage0"}``) has any simulated label; unchanged otherwise."""
    return SIMULATED_FILE_PREFIX + filename if any(counts.values()) else filename


def simulated_header(counts: Mapping[str, int]) -> str:
    """The :data:`SIMULATED_LABELS_HEADER` value, ``"debate=3; human=0; stage0=0"``; ""
    when ``counts`` has no simulated label (no header is sent)."""
    if not any(counts.values()):
        return ""
    return "; ".join(f"{kind}={counts.get(kind, 0)}" for kind in SIMULATED_KINDS)


def simulated_response_mark(response: HttpResponseBase, counts: Mapping[str, int]) -> None:
    """Set :data:`SIMULATED_LABELS_HEADER` on ``response``  when
    ``counts`` has a simulated label; leave it unchanged otherwise."""
    if value := simulated_header(counts):
        response[SIMULATED_LABELS_HEADER] = value


def simulated_note(*, qrel_set: QrelSet, counts: Mapping[str, int]) -> str:
    """The line a command prints beside a file of ``qrel_set`` holding simulated labels
    (``counts``: ``{"debate", "human", "stage0"}``), e.g. "SIMULATED labels in qrel set
    'x': debate=3; human=0; stage0=0 (for planning a study, never a benchmark)"; "" when it
    has none."""
    if not (value := simulated_header(counts)):
        return ""
    return (
        f"SIMULATED labels in qrel set {qrel_set.name!r}: {value} (for planning a study, never "
        "a benchmark)"
    )
