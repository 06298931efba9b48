"""An API token is printed (command) or shown (page) once and stored only as its SHA-256;
it can be revoked; the webhook secret is shown on request and can be replaced."""

import hashlib
import io

import pytest
from django.core.management import call_command

from core.models import ApiToken
from core.tokens import api_token_user, webhook_signature


def test_the_command_prints_a_token_once_and_stores_its_hash(client_as, db):
    user = client_as("researcher")  # makes the user "researcher"
    out = io.StringIO()
    call_command("api_token", "researcher", "--name", "notebook", stdout=out, stderr=io.StringIO())

    token = out.getvalue().strip()
    assert token.startswith("dream_") and len(token) == 49
    row = ApiToken.objects.get()
    assert row.key_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in (row.prefix, row.name, row.key_hash)
    assert api_token_user(token=token).get_username() == "researcher"
    assert user.get("/api/v1/datasets", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 200

    call_command("api_token", "researcher", "--revoke", stdout=io.StringIO())
    assert api_token_user(token=token) is None


def test_a_user_makes_and_revokes_a_token_on_their_page(client_as):
    client = client_as("annotator")
    made = client.post("/account/tokens/", {"action": "create", "name": "script"})
    assert made.status_code == 201
    html = made.content.decode()
    token = html.split('id="new-token">New token: <code>')[1].split("</code>")[0]
    assert api_token_user(token=token) is not None
    again = client.get("/account/tokens/").content.decode()
    assert token not in again and token[:10] + "…" in again

    client.post("/account/tokens/revoke/", {"token": ApiToken.objects.get().pk})
    assert api_token_user(token=token) is None


def test_another_users_token_cannot_be_revoked_from_my_page(client_as, api_as):
    theirs = api_as("admin")
    client_as("researcher").post("/account/tokens/revoke/", {"token": ApiToken.objects.get().pk})
    assert theirs.get("/api/v1/datasets").status_code == 200


def test_the_webhook_secret_is_shown_on_request_and_signs_as_documented(client_as):
    client = client_as("admin")
    assert 'id="webhook-secret"' not in client.get("/account/tokens/").content.decode()
    html = client.post("/account/tokens/", {"action": "secret"}).content.decode()
    secret = html.split('id="webhook-secret"><code>')[1].split("</code>")[0]
    assert len(secret) == 64
    # HMAC-SHA256 of "timestamp.body": hand-checked with the standard library.
    import hmac

    expected = hmac.new(secret.encode(), b"1700000000.{}", hashlib.sha256).hexdigest()
    assert (
        webhook_signature(secret=secret, body=b"{}", timestamp=1700000000) == f"sha256={expected}"
    )
    rotated = client.post("/account/webhook-secret/").content.decode()
    assert secret not in rotated


@pytest.mark.parametrize("path", ["/account/tokens/"])
def test_the_tokens_page_needs_a_login(client, db, path):
    assert client.get(path).status_code == 302
