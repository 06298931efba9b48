"""The page where a signed-in user makes and revokes their API tokens and reads their
webhook secret (every role: annotators may script too, within their role)."""

from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render

from .http import post_only
from .roles import ROLES, role_required
from .tokens import (
    api_token_create,
    api_token_revoke,
    api_tokens_of,
    webhook_secret_get,
    webhook_secret_rotate,
)


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, required=False, label="What it is for")


class RevokeForm(forms.Form):
    token = forms.IntegerField()


@role_required(*ROLES)
def tokens_page(request: HttpRequest, *, secret: str = "") -> HttpResponse:
    """GET: the user's tokens. POST ``action=create``: make a token, shown once on the page
    that answers (never stored, never shown again); ``action=secret``: show the webhook
    secret (made on first use, so only on a POST: a GET writes nothing)."""
    action = request.POST.get("action") if request.method == "POST" else None
    form = TokenForm(request.POST if action == "create" else None)
    new_token = ""
    if action == "create" and form.is_valid():
        _, new_token = api_token_create(user=request.user, name=form.cleaned_data["name"])
        form = TokenForm()
    if action == "secret":
        secret = webhook_secret_get(user=request.user)
    context = {
        "form": form,
        "new_token": new_token,
        "tokens": api_tokens_of(user=request.user),
        "secret": secret,
    }
    return render(request, "core/tokens.html", context, status=201 if new_token else 200)


@role_required(*ROLES)
@post_only
def token_revoke(request: HttpRequest) -> HttpResponse:
    """POST: revoke one of the user's own tokens (another user's id revokes nothing)."""
    form = RevokeForm(request.POST)
    if form.is_valid():
        api_token_revoke(user=request.user, token_id=form.cleaned_data["token"])
    return redirect("tokens")


@role_required(*ROLES)
@post_only
def webhook_secret_new(request: HttpRequest) -> HttpResponseBase:
    """POST: replace the user's webhook secret; the page shows the new one."""
    return tokens_page(request, secret=webhook_secret_rotate(user=request.user))
