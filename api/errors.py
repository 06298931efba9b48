"""The API's errors, one shape for all: JSON ``{"detail": "..."}``, and for input that does
not validate (422) also the field errors, ``{"detail": "field: message; ...", "errors":
[{"field", "message", "type", "loc"}, ...]}``.

:func:`api_errors_install` puts the handlers on the API object: a refused input is a 422
naming each field (a form route's request that is no form: a 415 saying so); a missing or
unknown token a 401 with ``WWW-Authenticate: Bearer``; a body over
``DATA_UPLOAD_MAX_MEMORY_SIZE`` a 413; more fields than ``DATA_UPLOAD_MAX_NUMBER_FIELDS``
(query or form) or files than ``DATA_UPLOAD_MAX_NUMBER_FILES`` a 400; any other exception
a JSON 500 whose traceback goes to the server's log only, with ``DEBUG`` on or off
(django-ninja's own handler would send the traceback to the client when ``DEBUG`` is on).
:func:`error_responses` is what each route declares in the OpenAPI document.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import (
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI, Schema
from ninja.errors import AuthenticationError, ValidationError

log = logging.getLogger("api")

# Where a parameter was read from: the first element of each error's location.
_SOURCES = {"body", "query", "path", "form", "file", "header", "cookie"}


class ErrorOut(Schema):
    """Every error but a validation error: what went wrong, in words."""

    detail: str


class FieldError(Schema):
    """One refused field: ``field`` is its name as sent (``max_tokens``, ``agent_a.model``,
    ``page``), ``message`` why, ``type`` pydantic's error type (``less_than_equal``,
    ``extra_forbidden``, ``missing``, ...), ``loc`` the full location (``["body",
    "payload", "max_tokens"]``)."""

    field: str
    message: str
    type: str
    loc: list[str | int]


class ValidationErrorOut(Schema):
    """A 422: ``detail`` names every refused field (``"field: message; field: message"``),
    ``errors`` lists them one by one."""

    detail: str
    errors: list[FieldError]


def error_responses(*codes: int) -> dict[int, type[Schema]]:
    """The error responses a route declares: 401 and 403 (every route needs a token whose
    user has the role) and ``codes`` (400, 404, 409, 413, 422, ...), each with its schema
    (:class:`ValidationErrorOut` for 422, else :class:`ErrorOut`)."""
    return {
        code: ValidationErrorOut if code == 422 else ErrorOut for code in sorted({401, 403, *codes})
    }


def field_name(loc: tuple[Any, ...] | list[Any]) -> str:
    """The name a client sent a field under, from a django-ninja error location: the source
    (``body``, ``query``, ...) and, for a JSON body, the view's parameter name dropped, e.g.
    ``("body", "payload", "agent_a", "model")`` -> ``"agent_a.model"``, ``("query",
    "page")`` -> ``"page"``. An empty rest (the body as a whole, ``("body", "payload")``) is
    ``"body"``, never the view's parameter name."""
    parts = list(loc)
    source = parts.pop(0) if parts and parts[0] in _SOURCES else ""
    if source == "body" and parts:
        parts.pop(0)
    return ".".join(str(p) for p in parts) or source or "body"


def _message(error: dict[str, Any]) -> str:
    """An error's message: pydantic's, but a JSON body missing as a whole (an empty
    request) is "required, a JSON object", not pydantic's "Field required" of a field."""
    if error.get("type") == "missing" and field_name(error.get("loc", ())) == "body":
        return "required, a JSON object (Content-Type: application/json)"
    return str(error.get("msg", ""))


def validation_error_body(errors: list[dict[str, Any]]) -> dict[str, Any]:
    """The 422 body for django-ninja's ``errors`` (pydantic's, with ``loc`` and ``msg``)."""
    fields = [
        {
            "field": field_name(e.get("loc", ())),
            "message": _message(e),
            "type": str(e.get("type", "")),
            "loc": [p if isinstance(p, int) else str(p) for p in e.get("loc", ())],
        }
        for e in errors
    ]
    return {"detail": "; ".join(f"{f['field']}: {f['message']}" for f in fields), "errors": fields}


_FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")


def _form_sent_otherwise(request: HttpRequest, errors: list[dict[str, Any]]) -> str:
    """Why a form route's request is a 415 (RFC 9110 section 15.5.16): every refused field
    is a form field or a file and the body is no form (JSON, say), so each field reads as
    missing; "" otherwise (the 422 names the fields)."""
    sent = (request.content_type or "").lower()
    if not errors or sent in _FORM_TYPES:
        return ""
    if any(not e.get("loc") or e["loc"][0] not in ("form", "file") for e in errors):
        return ""
    return f"this route takes multipart/form-data, got {sent or 'no Content-Type'}"


def api_errors_install(api: NinjaAPI) -> None:
    """Replace django-ninja's handlers of validation errors and unexpected exceptions on
    ``api`` with the ones described in this module's docstring."""

    # Each handler takes its exception as Any: django-ninja types it as the class or one.
    def answer(request: HttpRequest, status: int, detail: str) -> HttpResponse:
        return api.create_response(request, {"detail": detail}, status=status)

    def invalid(request: HttpRequest, exc: Any) -> HttpResponse:
        wrong_type = _form_sent_otherwise(request, exc.errors)
        if wrong_type:
            return answer(request, 415, wrong_type)
        return api.create_response(request, validation_error_body(exc.errors), status=422)

    def unauthorized(request: HttpRequest, exc: Any) -> HttpResponse:
        # RFC 6750 section 3: a 401 names the scheme the client must use.
        response = answer(request, 401, str(exc))
        response["WWW-Authenticate"] = 'Bearer realm="api"'
        return response

    def too_big(request: HttpRequest, exc: Any) -> HttpResponse:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return answer(request, 413, f"request body: over the limit of {limit:,} bytes")

    def too_many_fields(request: HttpRequest, exc: Any) -> HttpResponse:
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        return answer(request, 400, f"request: more than {limit:,} query or form fields")

    def too_many_files(request: HttpRequest, exc: Any) -> HttpResponse:
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FILES
        return answer(request, 400, f"request: more than {limit:,} files")

    def suspicious(request: HttpRequest, exc: Any) -> HttpResponse:
        # Django's own message may name settings or internals: log it, answer plainly.
        log.warning("refused a suspicious API request: %s", exc)
        return answer(request, 400, "bad request")

    def unexpected(request: HttpRequest, exc: Any) -> HttpResponse:
        log.error("API %s %s failed", request.method, request.path, exc_info=exc)
        return answer(request, 500, "internal error: the server's log has the details")

    api.add_exception_handler(ValidationError, invalid)
    api.add_exception_handler(AuthenticationError, unauthorized)
    api.add_exception_handler(RequestDataTooBig, too_big)
    api.add_exception_handler(TooManyFieldsSent, too_many_fields)
    api.add_exception_handler(TooManyFilesSent, too_many_files)
    api.add_exception_handler(SuspiciousOperation, suspicious)
    api.add_exception_handler(Exception, unexpected)
