"""What every endpoint shares: token auth, the role check, lookups that answer 404, and the
operation schema returned by every long step (202 with a URL to poll).

Auth: ``Authorization: Bearer <token>`` (:func:`core.tokens.api_token_user`); no token or
an unknown one answers 401, a token whose user lacks the role 403, as the pages do for a
signed-in user. Errors are JSON ``{"detail": "..."}`` with the messages the commands print.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from ninja import Schema
from ninja.errors import HttpError
from ninja.security import HttpBearer

from core.roles import Role, user_has_role
from core.tokens import api_token_user
from corpora.models import Dataset, Operation, Pool, QrelSet, Run
from corpora.services import dataset_get, qrel_set_get, run_get
from corpora.services.operations import operation_fix

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
    """A long step (upload, pool build) and where to poll it."""

    id: int
    kind: str
    status: str
    stage: str
    dataset: str | None
    result: dict[str, Any]
    error: str
    url: str
    created: datetime
    finished: datetime | None

    @staticmethod
    def of(operation: Operation) -> OperationOut:
        return OperationOut(
            id=operation.pk,
            kind=operation.kind,
            status=operation.status,
            stage=operation.stage,
            dataset=operation.dataset.slug if operation.dataset_id else None,  # type: ignore[union-attr]
            result=operation.result,
            error=_operation_error(operation),
            url=f"/api/v1/operations/{operation.pk}",
            created=operation.created,
            finished=operation.finished,
        )


def _operation_error(operation: Operation) -> str:
    """The operation's error, with the option that would get past it as a JSON field."""
    fix = operation_fix(operation=operation)
    return f"{operation.error}\nTo get past this: {fix.words('api')}" if fix else operation.error


class Message(Schema):
    detail: str
