"""What every endpoint shares: token auth, the role check, lookups that answer 404, and the
operation schema returned by every long step (202 with a URL to poll).

Auth: ``Authorization: Bearer <token>`` (:func:`core.tokens.api_token_user`); no token or
an unknown one answers 401, a token whose user lacks the role 403, as the pages do for a
signed-in user. Errors are JSON ``{"detail": "..."}`` with the messages the commands print.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

from django.conf import settings
from django.http import HttpRequest
from ninja import Path, Query, Schema
from ninja.errors import HttpError, ValidationError
from ninja.security import HttpBearer
from pydantic import BeforeValidator, ConfigDict

from core.roles import Role, user_has_role
from core.tokens import api_token_user
from corpora.models import Dataset, Operation, Pool, QrelSet, Run
from corpora.services import dataset_get, qrel_set_get, run_get
from corpora.services.operations import operation_fixes

READERS = (Role.RESEARCHER, Role.ADMIN)
ADMINS = (Role.ADMIN,)


class TokenAuth(HttpBearer):
    """Bearer token auth for routes open to ``roles``: the token's user becomes
    ``request.user``; an unknown token answers 401, a user without the role 403. Checked
    before the request's parameters are read, so a malformed request from the wrong role is
    a 403, never a validation error."""

    def __init__(self, roles: tuple[str, ...]) -> None:
        super().__init__()
        self.roles = roles

    def authenticate(self, request: HttpRequest, token: str) -> Any:
        user = api_token_user(token=token)
        if user is None:
            return None
        if not user_has_role(user, *self.roles):
            raise HttpError(403, f"this needs the role {' or '.join(self.roles)}")
        request.user = user
        return user


READ = TokenAuth(READERS)  # every route's default (researchers and admins)
WRITE = TokenAuth(ADMINS)  # uploads, runs, pools, jobs, refining

# The largest row id a path may name (PostgreSQL's bigint): a larger one is a 422, never
# a number the database cannot compare.
MAX_ID = 2**63 - 1
# The highest page number a list takes: 100,000 pages of 50 are more rows than any list
# holds, and the offset stays a small number for the database.
MAX_PAGE = 100_000

RowId = Annotated[int, Path(..., ge=1, le=MAX_ID, description="A row id (1 or more).")]
PageNumber = Annotated[
    int, Query(1, ge=1, le=MAX_PAGE, description=f"Page number, 1..{MAX_PAGE:,}.")
]


def _whole_float_to_int(value: Any) -> Any:
    """``value`` as an int when it is a float with no fractional part (``1004.0``): JSON
    Schema's "integer" takes such numbers, so the document's integers must too. Anything
    else is left for the strict int check (``1.5``, ``true`` and ``"2"`` are refused)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# Every whole-number field of an input schema (with StrictIn's strict mode) takes 3.0 as 3:
# ``Whole`` for a required one or one with a default, ``Annotated[int, Field(...), WHOLE] |
# None`` for an optional one (the range before the validator, or the document loses it).
WHOLE = BeforeValidator(_whole_float_to_int)
Whole = Annotated[int, WHOLE]


def header_text(value: str) -> str:
    """A header's value as the client wrote it: WSGI hands a header's bytes over decoded as
    ISO-8859-1 (PEP 3333), so ``é`` sent as UTF-8 arrives as two characters (``Ã©``);
    they are decoded again as UTF-8 when they are UTF-8, else left as they came."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return value


def query_unknown_refuse(view: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap an API view (django-ninja "operation" decorator, run after validation) so that
    a query parameter it does not take is a 422 naming it, as an unknown body field is."""
    taken = set(inspect.signature(view).parameters) - {"request"}

    @functools.wraps(view)
    def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        unknown = sorted(set(request.GET) - taken)
        if unknown:
            raise ValidationError(
                [
                    {
                        "loc": ("query", name),
                        "msg": "Unknown query parameter",
                        "type": "extra_forbidden",
                    }
                    for name in unknown
                ]
            )
        return view(request, *args, **kwargs)

    return checked


class StrictIn(Schema):
    """Base of every JSON input schema: an unknown field is refused (422 naming it), and
    numbers and booleans are taken only as themselves (``true`` is no 1, ``"2"`` no 2; a
    whole number is a float, and a :data:`Whole` field takes ``3.0`` as 3)."""

    model_config = ConfigDict(extra="forbid", strict=True)


def page_bounds(page: int) -> tuple[int, int]:
    """The slice ``(start, stop)`` of page ``page`` (1-based, bounded by the schema),
    ``NINJA_PAGINATION_PER_PAGE`` rows a page."""
    size = int(settings.NINJA_PAGINATION_PER_PAGE)
    start = (page - 1) * size
    return start, start + size


def dataset_or_404(slug: str) -> Dataset:
    """The dataset ``slug``; 404 (JSON) when there is none."""
    try:
        return dataset_get(slug=slug)
    except Dataset.DoesNotExist:
        raise HttpError(404, f"no dataset {slug!r}") from None


def qrel_set_or_404(dataset: Dataset, name: str) -> QrelSet:
    """``dataset``'s qrel set ``name``; 404 when there is none."""
    try:
        return qrel_set_get(dataset=dataset, name=name)
    except QrelSet.DoesNotExist:
        raise HttpError(404, f"no qrel set {name!r} in {dataset.slug}") from None


def run_or_404(dataset: Dataset, name: str) -> Run:
    """``dataset``'s run ``name``; 404 when there is none."""
    try:
        return run_get(dataset=dataset, name=name)
    except Run.DoesNotExist:
        raise HttpError(404, f"no run {name!r} in {dataset.slug}") from None


def pool_or_404(pool_id: int) -> Pool:
    """Pool ``pool_id`` with its dataset and qrel set; 404 when there is none."""
    pool = Pool.objects.select_related("dataset", "qrel_set").filter(pk=pool_id).first()
    if pool is None:
        raise HttpError(404, f"no pool {pool_id}")
    return pool


class OperationOut(Schema):
    """A long step (upload, pool build, refinement) and where to poll it."""

    id: int
    kind: Literal[
        "import_beir", "import_qrels", "import_run", "build_pool", "refine", "train_stage0"
    ]
    status: Literal["queued", "running", "done", "failed"]
    stage: str
    dataset: str | None
    result: dict[str, Any]
    error: str
    url: str
    created: datetime
    finished: datetime | None
    #: A sentence when the step has waited a minute for a Celery worker that never took it
    #: (naming the queue and the worker command); "" otherwise.
    warning: str = ""

    @staticmethod
    def of(operation: Operation) -> OperationOut:
        return OperationOut(
            id=operation.pk,
            kind=operation.kind,  # type: ignore[arg-type]  # the model's choices: the enum
            status=operation.status,  # type: ignore[arg-type]  # the model's choices: the enum
            stage=operation.stage,
            dataset=operation.dataset.slug if operation.dataset_id else None,  # type: ignore[union-attr]
            result=operation.result,
            error=_operation_error(operation),
            url=f"/api/v1/operations/{operation.pk}",
            created=operation.created,
            finished=operation.finished,
            warning=operation.worker_warning,
        )


def _operation_error(operation: Operation) -> str:
    """The operation's error, with the option that would get past it as a JSON field."""
    fixes = operation_fixes(operation=operation)
    if not fixes:
        return operation.error
    return f"{operation.error}\nTo get past this: {'; '.join(f.words('api') for f in fixes)}"
