"""Views that only take a POST: :func:`post_only`, in place of Django's ``require_POST``.

Such an address changes something (a job's budget, a judgment, a token), so a GET must not
run it; Django's ``require_POST`` answers one with a 405 and an empty page, which leaves
whoever followed a link or reloaded the address facing a blank screen. Here the 405 keeps
its ``Allow: POST`` header and says, in one plain-text sentence, what the address is for.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase, HttpResponseNotAllowed
from django.utils.log import log_response

View = Callable[..., HttpResponseBase]

POST_ONLY_TEXT = (
    "405 Method Not Allowed: this address takes only a POST, which the form or button on "
    "its page sends; a {method} here changes nothing. Go back to that page to use it.\n"
)


def post_only(view: View) -> View:
    """Decorate a view that only takes POST: any other method gets a 405 with ``Allow:
    POST`` and :data:`POST_ONLY_TEXT` as its plain-text body (logged as Django logs its own
    405), and the view is not called."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponseBase:
        if request.method != "POST":
            response = HttpResponseNotAllowed(
                ["POST"],
                POST_ONLY_TEXT.format(method=request.method),
                content_type="text/plain; charset=utf-8",
            )
            log_response(
                "Method Not Allowed (%s): %s",
                request.method,
                request.path,
                response=response,
                request=request,
            )
            return response
        return view(request, *args, **kwargs)

    return wrapped
