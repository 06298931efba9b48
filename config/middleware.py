"""Response headers every page gets."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase


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
