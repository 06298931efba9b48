"""Top-level URL configuration: Django admin, login/logout, home and each app's pages.

Unknown paths under ``/api/`` answer a JSON 404 (:func:`api_not_found`). The last pattern
catches every path nothing else matches (:func:`anywhere_else`), so that
anonymous visitors get the login page there too, with ``DEBUG`` on or off (``handler404``
alone serves only ``DEBUG=0``, and Django's ``DEBUG`` 404 page lists every URL pattern).
"""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.views import redirect_to_login
from django.contrib.staticfiles import finders
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponsePermanentRedirect,
    JsonResponse,
)
from django.urls import Resolver404, include, path, re_path, resolve
from django.views.decorators.common import no_append_slash
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from api.main import api
from core import token_views
from core import views as core_views
from corpora import views as corpora_views


@csrf_exempt  # it changes nothing; an anonymous POST goes to the login page, not a CSRF 403
@no_append_slash  # CommonMiddleware must not send "/nope" to "/nope/": this view decides
def anywhere_else(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Any path no other pattern matches (``rest`` is that path, unused).

    Anonymous visitors are redirected to the login page (302, ``?next=`` the path), like
    every page but the login page, so they learn nothing about which addresses exist.
    Signed-in users get what Django would give them without this pattern: a 301 to the path
    with a slash appended when that path exists (``APPEND_SLASH``, as the Django admin's
    ``catch_all_view`` does), else 404. Paths under ``STATIC_URL`` are 404 for everyone
    (static files are public; in production the reverse proxy serves them).
    Raises Http404.
    """
    static = "/" + settings.STATIC_URL.lstrip("/")
    if request.path_info.startswith(static):
        raise Http404("no such static file")
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if settings.APPEND_SLASH and not request.path_info.endswith("/"):
        try:
            match = resolve(request.path_info + "/")
        except Resolver404:
            pass
        else:
            if getattr(match.func, "should_append_slash", True):
                return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
    raise Http404("no page at this address")


@csrf_exempt  # it changes nothing; a POST gets the same 404
@no_append_slash  # "/api/v1/jobs/" is no route either: no redirect to a page that is none
def api_not_found(request: HttpRequest, rest: str = "") -> JsonResponse:
    """Any path under ``/api/`` no route matches (``rest`` is that path, unused): JSON 404
    ``{"detail": "no API route at this address"}``, whatever the method and role. The routes
    are listed in the public ``/api/v1/openapi.json`` anyway, so this tells nobody more."""
    return JsonResponse({"detail": "no API route at this address"}, status=404)


@require_safe
def favicon(request: HttpRequest) -> FileResponse:
    """``/favicon.ico`` for everyone (browsers ask for it on every page before any link):
    the icon ``static/favicon.ico`` the base template links, cached for a day. Raises Http404
    when the file is missing."""
    found = finders.find("favicon.ico")
    if not found:
        raise Http404("no favicon")
    response = FileResponse(open(found, "rb"), content_type="image/x-icon")  # noqa: SIM115
    response["Cache-Control"] = "public, max-age=86400"
    return response


urlpatterns = [
    # Unnamed: public, the one view outside the role table (browsers ask before any login).
    path("favicon.ico", favicon),
    # Before admin.site.urls: the admin's own login form must not bypass the rate limit.
    path("admin/login/", core_views.rate_limited_login(admin.site.login)),
    path("admin/", admin.site.urls),
    path("login/", core_views.login_view, name="login"),
    # Django's LogoutView accepts POST only (a GET answers 405), so a link cannot log anyone out.
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/tokens/", token_views.tokens_page, name="tokens"),
    path("account/tokens/revoke/", token_views.token_revoke, name="token_revoke"),
    path("account/webhook-secret/", token_views.webhook_secret_new, name="webhook_secret_new"),
    path("", corpora_views.home, name="home"),
    path("", include("corpora.urls")),
    path("", include("debates.urls")),
    path("", include("assess.review.urls")),
    path("", include("assess.refined.urls")),
    path("api/v1/", api.urls),
    # Any other path under /api/: a JSON 404 for everyone (a client is not sent to the login
    # page); a wrong method on a route is the API's own 405.
    re_path(r"^api/(?P<rest>.*)$", api_not_found),
    # Last: every other path (see anywhere_else).
    re_path(r"^(?P<rest>.*)$", anywhere_else),
]
