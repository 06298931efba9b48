"""The upload size limit, enforced before a request body is read.

Django reads a multipart body only when a view touches ``request.POST`` or ``FILES``, and
spools files to disk beyond ``FILE_UPLOAD_MAX_MEMORY_SIZE``; but it would still read and
store a body of any size. :class:`UploadLimitMiddleware` answers 413 at once, without
reading a byte, when the declared ``Content-Length`` is over ``DREAM_UPLOAD_MAX_BYTES``
(JSON under ``/api/``, text elsewhere). A body without a declared length is not read by
Django at all under WSGI, so the header is the whole of what needs checking.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


class UploadLimitMiddleware:
    """Refuse a request whose declared body is over ``DREAM_UPLOAD_MAX_BYTES`` (413)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = int(settings.DREAM_UPLOAD_MAX_BYTES)
        size = _declared_length(request)
        if size > limit:
            message = f"upload: {size:,} bytes is over the limit of {limit:,} bytes"
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": message}, status=413)
            return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
