"""After 5 failed logins for a username or from an address within 15 minutes, the next
attempt gets 429 without its password being checked, on our login page and the admin's."""

import time

from django.core.cache.backends import locmem

from core.accounts import login_failures
from tests.fixtures.ui import PASSWORD


def _login(client, username, password, address="10.0.0.1", path="/login/"):
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=address)


def test_the_sixth_attempt_is_refused_even_with_the_right_password(client, make_user, fresh_cache):
    make_user("annotator", "bo")
    statuses = [_login(client, "bo", f"wrong{i}").status_code for i in range(5)]
    assert statuses == [200] * 5
    response = _login(client, "bo", PASSWORD)
    assert response.status_code == 429
    assert response["Retry-After"] == "900"
    assert b"Too many failed sign-in attempts" in response.content
    assert b"Wait 15 minutes" in response.content
    assert "_auth_user_id" not in client.session
    assert login_failures(username="bo", client_ip="10.0.0.1") == (5, 5)


def test_failures_for_one_username_count_from_any_address_and_any_case(
    client, make_user, fresh_cache
):
    make_user("annotator", "bo")
    for i in range(5):
        assert (
            _login(client, "BO" if i % 2 else "bo", "wrong", address=f"10.0.1.{i}").status_code
            == 200
        )
    assert _login(client, "Bo", PASSWORD, address="10.0.2.1").status_code == 429


def test_failures_from_one_address_count_across_usernames(client, make_user, fresh_cache):
    make_user("annotator", "bo")
    for i in range(5):
        assert _login(client, f"guess{i}", "wrong", address="10.0.0.9").status_code == 200
    assert _login(client, "bo", PASSWORD, address="10.0.0.9").status_code == 429
    # Another address and the same user: the username has no failures, so it works.
    assert _login(client, "bo", PASSWORD, address="10.0.0.10").status_code == 302


def test_successful_logins_and_refused_attempts_are_not_failures(client, make_user, fresh_cache):
    make_user("annotator", "bo")
    for _ in range(4):
        assert _login(client, "bo", "wrong").status_code == 200
    for _ in range(3):
        assert _login(client, "bo", PASSWORD).status_code == 302
        client.post("/logout/")
    assert login_failures(username="bo", client_ip="10.0.0.1") == (4, 4)
    assert _login(client, "bo", "wrong").status_code == 200
    assert _login(client, "bo", "wrong").status_code == 429
    assert login_failures(username="bo", client_ip="10.0.0.1") == (5, 5)


def test_the_limit_ends_fifteen_minutes_after_the_first_failure(
    client, make_user, fresh_cache, monkeypatch
):
    make_user("annotator", "bo")
    for _ in range(5):
        _login(client, "bo", "wrong")
    assert _login(client, "bo", PASSWORD).status_code == 429

    class Later:
        @staticmethod
        def time():
            return time.time() + 15 * 60 + 1

    monkeypatch.setattr(locmem, "time", Later)
    assert _login(client, "bo", PASSWORD).status_code == 302


def test_the_django_admin_login_is_limited_too(client, make_user, fresh_cache):
    make_user("admin", "cy")
    for _ in range(5):
        assert _login(client, "cy", "wrong", path="/admin/login/").status_code == 200
    response = _login(client, "cy", PASSWORD, path="/admin/login/")
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session
