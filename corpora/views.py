"""People-facing pages for accounts and datasets.

Who may open what (every view is wrapped in :func:`corpora.roles.role_required`):

| page                                   | annotator | researcher | admin |
|----------------------------------------|-----------|------------|-------|
| home                                   | yes       | yes        | yes   |
| datasets, dataset, documents, document | 403       | yes        | yes   |
| qrels download (TREC, BEIR)            | 403       | yes        | yes   |

Anonymous users are redirected to the login page from every page but the login page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import wraps

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header
from django.utils.text import slugify

from . import formats
from .accounts import client_ip, login_attempt_finish, login_attempt_start
from .models import Dataset, Document, QrelSet
from .roles import ROLES, Role, role_required, user_has_role
from .selectors import (
    dataset_counts_list,
    dataset_overview,
    document_get,
    document_judgments,
    documents_page,
)
from .services.datasets import dataset_get, qrel_set_get, qrels_rows

READERS = (Role.RESEARCHER, Role.ADMIN)
QRELS_DOWNLOADS = {
    # format: (file suffix, line formatter, header)
    "trec": (".qrels", formats.format_trec_qrel, ""),
    "beir": (".tsv", formats.format_beir_qrel, formats.BEIR_QRELS_HEADER),
}
TOO_MANY_LOGINS = (
    "Too many failed sign-in attempts for this username or from this address. "
    "Wait {minutes} minutes, then try again."
)


def _dataset_or_404(slug: str) -> Dataset:
    try:
        return dataset_get(slug=slug)
    except Dataset.DoesNotExist:
        raise Http404(f"No dataset {slug!r}.") from None


def rate_limited_login(login: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Wrap a login view (ours, the Django admin's) in the login rate limit of
    :mod:`corpora.accounts`: a refused POST answers 429 with our login form and a message,
    and the password is not checked."""

    @wraps(login)
    def view(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method != "POST":
            return login(request, *args, **kwargs)
        username = request.POST.get("username", "")
        address = client_ip(request)
        if not login_attempt_start(username=username, client_ip=address):
            form = AuthenticationForm(request, initial={"username": username})
            next_url = request.POST.get("next") or request.GET.get("next", "")
            message = TOO_MANY_LOGINS.format(minutes=settings.LOGIN_RATE_WINDOW // 60)
            context = {"form": form, "blocked": message, "next": next_url}
            response = render(request, "registration/login.html", context, status=429)
            response["Retry-After"] = str(settings.LOGIN_RATE_WINDOW)
            return response
        try:
            return login(request, *args, **kwargs)
        finally:
            login_attempt_finish(username=username, client_ip=address, request=request)

    return view


#: The login page, open to everyone; a logged-in user is sent on to ``next`` or home.
login_view = rate_limited_login(auth_views.LoginView.as_view(redirect_authenticated_user=True))


@role_required(*ROLES)
def home(request: HttpRequest) -> HttpResponse:
    """The dashboard: links to what the user's roles may open."""
    return render(
        request,
        "corpora/home.html",
        {
            "can_read_datasets": user_has_role(request.user, *READERS),
            "is_annotator": user_has_role(request.user, Role.ANNOTATOR),
        },
    )


@role_required(*READERS)
def dataset_list(request: HttpRequest) -> HttpResponse:
    """Every dataset with its counts."""
    return render(request, "corpora/dataset_list.html", {"rows": dataset_counts_list()})


@role_required(*READERS)
def dataset_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """One dataset: counts, qrel sets with downloads, runs, pools and import history."""
    dataset = _dataset_or_404(slug)
    return render(
        request,
        "corpora/dataset_detail.html",
        {"dataset": dataset, "overview": dataset_overview(dataset=dataset)},
    )


@role_required(*READERS)
def document_list(request: HttpRequest, slug: str) -> HttpResponse:
    """The dataset's documents by id, 50 a page, filtered by an id prefix (``?prefix=``)."""
    dataset = _dataset_or_404(slug)
    prefix = request.GET.get("prefix", "").strip()
    page = documents_page(dataset=dataset, prefix=prefix, page=request.GET.get("page", 1))
    return render(
        request,
        "corpora/document_list.html",
        {"dataset": dataset, "page": page, "prefix": prefix},
    )


@role_required(*READERS)
def document_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """One document (``?id=<doc_id>``, any characters) and the qrels rows judging it."""
    dataset = _dataset_or_404(slug)
    doc_id = request.GET.get("id", "")
    try:
        document = document_get(dataset=dataset, doc_id=doc_id)
    except Document.DoesNotExist:
        raise Http404(f"No document {doc_id!r} in {dataset.slug}.") from None
    return render(
        request,
        "corpora/document_detail.html",
        {
            "dataset": dataset,
            "document": document,
            "judgments": document_judgments(document=document),
        },
    )


@role_required(*READERS)
def qrels_download(request: HttpRequest, slug: str, name: str, fmt: str) -> HttpResponse:
    """Stream a qrel set as TREC qrels or BEIR TSV, byte-identical to ``export_qrels``."""
    dataset = _dataset_or_404(slug)
    if fmt not in QRELS_DOWNLOADS:
        raise Http404(f"Unknown qrels format {fmt!r}.")
    try:
        qrel_set = qrel_set_get(dataset=dataset, name=name)
    except QrelSet.DoesNotExist:
        raise Http404(f"No qrel set {name!r} in {dataset.slug}.") from None
    suffix, line, header = QRELS_DOWNLOADS[fmt]

    def lines() -> Iterator[str]:
        if header:
            yield header
        for query_id, doc_id, relevance in qrels_rows(qrel_set=qrel_set):
            yield line(query_id, doc_id, relevance)

    response = StreamingHttpResponse(lines(), content_type="text/plain; charset=utf-8")
    filename = f"{dataset.slug}-{slugify(qrel_set.name) or 'qrels'}{suffix}"
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response
