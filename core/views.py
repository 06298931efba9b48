"""The login page and the login rate limit around every login form (ours, the Django
admin's). Open to everyone; the URL names stay ``login`` (see ``config.urls``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponseBase
from django.shortcuts import render

from .accounts import client_ip, login_attempt_finish, login_attempt_start

TOO_MANY_LOGINS = (
    "Too many failed sign-in attempts for this username or from this address. "
    "Wait {minutes} minutes, then try again."
)


def rate_limited_login(
    login: Callable[..., HttpResponseBase],
) -> Callable[..., HttpResponseBase]:
    """Wrap a login view (ours, the Django admin's) in the login rate limit of
    :mod:`core.accounts`: a refused POST answers 429 with our login form and a message,
    and the password is not checked."""

    @wraps(login)
    def view(request: HttpRequest, *args, **kwargs) -> HttpResponseBase:
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
