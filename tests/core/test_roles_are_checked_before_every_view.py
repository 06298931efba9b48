"""Role checks: groups name the roles, superusers count as admin, inactive and anonymous
users hold none, and ``role_required`` turns the rule into 302 (anonymous) or 403."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, Group
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.test import RequestFactory

from core.roles import (
    ROLES,
    role_required,
    roles_ensure,
    user_has_role,
    user_role_label,
    user_roles,
)


def test_roles_ensure_creates_the_three_groups_once(db):
    roles_ensure()
    roles_ensure()
    assert sorted(Group.objects.values_list("name", flat=True)) == sorted(ROLES)
    assert ROLES == ("annotator", "admin", "researcher")


def test_a_user_holds_the_roles_of_its_groups(make_user):
    user = make_user("researcher")
    assert user_roles(user) == {"researcher"}
    assert user_has_role(user, "researcher", "admin")
    assert not user_has_role(user, "annotator")
    assert user_role_label(user) == "researcher"


def test_a_superuser_counts_as_admin_but_not_as_annotator(db):
    root = get_user_model().objects.create_superuser("root", password="x" * 12)
    assert user_roles(root) == {"admin"}
    assert not user_has_role(root, "annotator")


def test_inactive_and_anonymous_users_hold_no_role(make_user):
    user = make_user("admin")
    user.is_active = False
    assert user_roles(user) == frozenset()
    assert user_roles(AnonymousUser()) == frozenset()


def test_an_unknown_role_name_is_an_error_at_once():
    with pytest.raises(ValueError, match="unknown role"):
        role_required("boss")
    with pytest.raises(ValueError, match="at least one role"):
        role_required()


def test_role_required_redirects_anonymous_users_and_refuses_other_roles(make_user):
    @role_required("researcher")
    def view(request):
        return HttpResponse("ok")

    assert view.allowed_roles == {"researcher"}
    request = RequestFactory().get("/somewhere/?a=1")
    request.user = AnonymousUser()
    response = view(request)
    assert (response.status_code, response["Location"]) == (302, "/login/?next=/somewhere/%3Fa%3D1")
    request.user = make_user("annotator")
    with pytest.raises(PermissionDenied):
        view(request)
    request.user = make_user("researcher")
    assert view(request).content == b"ok"
