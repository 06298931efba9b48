"""``manage.py createuser NAME --role R`` creates the user with role R, or moves an existing
user to role R (re-runs are idempotent); admins are staff, the others are not."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.fixtures.ui import FAST_HASHERS


@pytest.fixture(autouse=True)
def fast_hasher(settings):
    settings.PASSWORD_HASHERS = FAST_HASHERS


def _groups(user) -> list[str]:
    return sorted(user.groups.values_list("name", flat=True))


def test_a_new_user_without_a_password_gets_a_printed_working_one(db, capsys):
    call_command("createuser", "ann", "--role", "annotator")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "created user ann with role annotator"
    assert lines[1].startswith("password: ")
    password = lines[1].removeprefix("password: ")
    assert len(password) == 16
    user = get_user_model().objects.get(username="ann")
    assert user.check_password(password)
    assert (_groups(user), user.is_staff, user.is_superuser) == (["annotator"], False, False)


def test_a_rerun_moves_the_user_to_the_new_role_and_keeps_the_password(db, capsys):
    call_command("createuser", "ann", "--role", "annotator", "--password", "first pass 1")
    call_command("createuser", "ann", "--role", "admin")
    assert capsys.readouterr().out.splitlines() == [
        "created user ann with role annotator",
        "updated user ann with role admin",
    ]
    user = get_user_model().objects.get(username="ann")
    assert (_groups(user), user.is_staff) == (["admin"], True)
    assert user.check_password("first pass 1")
    call_command("createuser", "ann", "--role", "researcher")
    call_command("createuser", "ann", "--role", "researcher")
    user.refresh_from_db()
    assert (_groups(user), user.is_staff) == (["researcher"], False)
    assert get_user_model().objects.count() == 1


def test_the_password_can_come_from_an_environment_variable(db, monkeypatch, capsys):
    monkeypatch.setenv("DREAM_PW", "from the env 1")
    call_command("createuser", "res", "--role", "researcher", "--password-env", "DREAM_PW")
    assert "password:" not in capsys.readouterr().out
    assert get_user_model().objects.get(username="res").check_password("from the env 1")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--role", "annotator", "--password-env", "DREAM_UNSET"], "DREAM_UNSET is unset"),
        (
            ["--role", "annotator", "--password", "short"],
            "password refused: This password is too short",
        ),
        (["--role", "boss"], "invalid choice: 'boss'"),
    ],
)
def test_bad_arguments_are_refused_and_create_nobody(db, monkeypatch, args, message):
    monkeypatch.delenv("DREAM_UNSET", raising=False)
    with pytest.raises(CommandError, match=message):
        call_command("createuser", "x", *args)
    assert get_user_model().objects.count() == 0


def test_the_admin_group_may_change_every_corpora_model(db):
    call_command("createuser", "boss", "--role", "admin", "--password", "long enough 1")
    user = get_user_model().objects.get(username="boss")
    assert user.has_perm("corpora.change_dataset")
    assert user.has_perm("corpora.delete_qrel")
    assert not user.has_perm("auth.change_user")
