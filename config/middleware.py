"""Response headers every page gets, and JSON errors under ``/api/``."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase, JsonResponse


class SecurityHeadersMiddleware:
    """Adds the Content-Security-Policy header (``settings.CSP_POLICY``) to every response.

    A view that already set its own (stricter) policy keeps it. Django's SecurityMiddleware
    and XFrameOptionsMiddleware add nosniff, Referrer-Policy, COOP and X-Frame-Options.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        policy = getattr(settings, "CSP_POLICY", "")
        if policy:
            response.headers.setdefault("Content-Security-Policy", policy)
        return response


class ApiJsonErrorsMiddleware:
    """Under ``/api/``, an error answered by anything but the API's own handlers (a wrong
    method's 405, a bad ``Host`` header's 400, Django's 500 page) becomes JSON ``{"detail":
    "<the status's reason>"}`` with the same status and the other headers (``Allow``, ...),
    so an API client never gets HTML, nor a traceback with ``DEBUG`` on. Django's handler
    has already logged what it answered; JSON answers pass unchanged.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if (
            response.status_code < 400
            or not request.path_info.startswith("/api/")
            or response.headers.get("Content-Type", "").startswith("application/json")
        ):
            return response
        replaced = JsonResponse({"detail": response.reason_phrase}, status=response.status_code)
        for header, value in response.headers.items():
            if header.lower() not in ("content-type", "content-length"):
                replaced.headers[header] = value  # Allow, security headers, ...
        return replaced
