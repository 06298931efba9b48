"""Accounts and roles: who may see which page.

Three roles, stored as Django auth groups of the same name:

- ``annotator``: judges the pairs the debates could not settle (judging pages only);
- ``admin``: manages datasets, launches and controls jobs; staff (Django admin);
- ``researcher``: read-only views and downloads.

Superusers count as admin. Every view is wrapped in :func:`role_required`; anonymous users
are sent to the login page. core is the base app, so corpora, debates and assess import
this module.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from enum import StrEnum
from functools import wraps
from typing import Any, Protocol, cast

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import (
    AbstractBaseUser,
    AnonymousUser,
    Group,
    Permission,
    PermissionsMixin,
)
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import resolve_url
from django_htmx.http import HttpResponseClientRedirect


class Role(StrEnum):
    ANNOTATOR = "annotator"
    ADMIN = "admin"
    RESEARCHER = "researcher"


ROLES: tuple[str, ...] = tuple(r.value for r in Role)
# Apps whose models the admin role may change in the Django admin.
ADMIN_APPS = ("corpora", "debates", "assess")
_CACHE_ATTR = "_dream_roles"


def roles_ensure() -> dict[str, Group]:
    """Create the three role groups if missing (idempotent); return ``{role: Group}``.

    The admin group is (re)granted every permission on the corpora, debates and assess models,
    so models added later are covered by the next run (``createuser`` runs it every time).
    """
    with transaction.atomic():
        groups = {role: Group.objects.get_or_create(name=role)[0] for role in ROLES}
        permissions = Permission.objects.filter(content_type__app_label__in=ADMIN_APPS)
        groups[Role.ADMIN].permissions.add(*permissions)
    return groups


def user_roles(user: AbstractBaseUser | AnonymousUser) -> frozenset[str]:
    """The roles a user holds: role-named groups, plus admin for a superuser.

    Anonymous and inactive users hold none. Cached on the user object for the request.
    """
    if not user.is_authenticated or not user.is_active:
        return frozenset()
    if not isinstance(user, PermissionsMixin):  # a user model without groups has no roles
        return frozenset()
    cached = getattr(user, _CACHE_ATTR, None)
    if cached is None:
        names = set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
        if user.is_superuser:
            names.add(Role.ADMIN.value)
        cached = frozenset(names)
        setattr(user, _CACHE_ATTR, cached)
    return cached


def user_has_role(user: AbstractBaseUser | AnonymousUser, *roles: str) -> bool:
    """True if the user holds at least one of ``roles``. Raises ValueError for an unknown role."""
    _check_roles(roles)
    return bool(user_roles(user) & set(roles))


def user_role_label(user: AbstractBaseUser | AnonymousUser) -> str:
    """The user's roles for display, e.g. ``"admin"`` or ``"annotator, researcher"``; ``""``."""
    held = user_roles(user)
    return ", ".join(role for role in ROLES if role in held)


def _check_roles(roles: tuple[str, ...]) -> None:
    if not roles:
        raise ValueError("name at least one role")
    unknown = [r for r in roles if r not in ROLES]
    if unknown:
        raise ValueError(f"unknown role(s) {', '.join(map(repr, unknown))}; roles: {ROLES}")


def _login_redirect(request: HttpRequest) -> HttpResponse:
    htmx = getattr(request, "htmx", None)  # django_htmx.middleware.HtmxDetails
    if htmx:
        # An htmx fragment must not be swapped for the login page: send the whole window to
        # the login page, coming back to the page the user was on (not the fragment URL).
        back = htmx.current_url_abs_path or resolve_url(settings.LOGIN_REDIRECT_URL)
        response = redirect_to_login(back)
        return HttpResponseClientRedirect(response.url)
    return redirect_to_login(request.get_full_path())


class RoleView(Protocol):
    """A view wrapped by :func:`role_required`: callable as the view, with its rule."""

    allowed_roles: frozenset[str]

    def __call__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase: ...


def role_required(*roles: str) -> Callable[[Callable[..., HttpResponseBase]], RoleView]:
    """Decorator for function views: only users holding one of ``roles`` get through.

    Anonymous users are redirected to the login page (302 with ``?next=``; for an htmx
    request an ``HX-Redirect`` to it); logged-in users without the role get 403. Unknown
    role names raise ValueError when the view module is imported. The wrapped view carries
    ``allowed_roles`` (a frozenset) so tests and pages can read the rule back.
    """
    _check_roles(roles)

    def decorator(view: Callable[..., HttpResponseBase]) -> RoleView:
        @wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponseBase:
            if not request.user.is_authenticated:
                return _login_redirect(request)
            if not user_has_role(request.user, *roles):
                raise PermissionDenied("Your account does not have a role that may open this page.")
            return view(request, *args, **kwargs)

        role_view = cast(RoleView, wrapped)
        role_view.allowed_roles = frozenset(roles)
        return role_view

    return decorator


def user_ensure(
    *, username: str, role: str, password: str | None = None
) -> tuple[AbstractBaseUser, bool, str | None]:
    """Create the user or update an existing one so it holds exactly ``role``.

    Other role groups are removed; ``is_staff`` is set for admin and cleared otherwise
    (superuser status is never touched). ``password`` replaces the password when given; a new
    user without one gets a generated password. Returns ``(user, created, generated_password)``
    (the last is None unless generated). Raises ValueError for an unknown role or empty name.
    """
    _check_roles((role,))
    username = username.strip()
    if not username:
        raise ValueError("the username is empty")
    User = get_user_model()
    generated = None
    with transaction.atomic():
        groups = roles_ensure()
        lookup: dict[str, Any] = {User.USERNAME_FIELD: username}
        user, created = User.objects.get_or_create(**lookup)
        if password is None and created:
            generated = password = secrets.token_urlsafe(12)
        if password is not None:
            user.set_password(password)
        user.is_staff = role == Role.ADMIN or user.is_superuser
        user.save()
        user.groups.remove(*(g for name, g in groups.items() if name != role))
        user.groups.add(groups[role])
    return user, created, generated
