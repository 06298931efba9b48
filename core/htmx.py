"""One rule for views that answer htmx requests with a fragment and others with the page.

Such a response depends on a request header, so caches (the browser's, htmx's history cache,
a proxy) must key it on that header: every response carries ``Vary: HX-Request``; otherwise
the browser's back button can show a bare fragment as a page. When htmx restores a page
from history and its snapshot is gone, it asks the server again with
``HX-History-Restore-Request: true`` (and ``HX-Request: true``) and swaps the answer in as
the whole page, so that request gets the full page. Fragments that show state changing from
second to second (the judging pair, a job's progress) are never stored at all.

Usage, as the outermost decorator (so that a login redirect varies too)::

    @htmx_view(no_store=True)
    @role_required(Role.ANNOTATOR)
    def judge(request): ...
        template = FRAGMENT if wants_fragment(request) else PAGE

See the htmx documentation, "History Support" and "Caching".
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase
from django.utils.cache import add_never_cache_headers, patch_vary_headers
from django_htmx.middleware import HtmxDetails

View = Callable[..., HttpResponseBase]


def wants_fragment(request: HttpRequest) -> bool:
    """True for an htmx request (``HX-Request: true``) that is not a history restore
    (``HX-History-Restore-Request: true``): answer with the fragment; otherwise the page."""
    htmx: HtmxDetails | None = getattr(request, "htmx", None)
    return htmx is not None and bool(htmx) and not htmx.history_restore_request


def htmx_view(*, no_store: bool = False) -> Callable[[View], View]:
    """Decorate a view that serves the page or, by :func:`wants_fragment`, its fragment.

    Adds ``HX-Request`` to the response's ``Vary`` header (django.utils.cache.
    patch_vary_headers, keeping ``Cookie`` and others) on every response; with ``no_store``
    also ``Cache-Control: max-age=0, no-cache, no-store, must-revalidate, private``
    (django.utils.cache.add_never_cache_headers), for live judging and progress views.
    """

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponseBase:
            response = view(request, *args, **kwargs)
            patch_vary_headers(response, ("HX-Request",))
            if no_store:
                add_never_cache_headers(response)
            return response

        return wrapped

    return decorate
