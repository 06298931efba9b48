"""The models and the migrations describe the same schema: a model change (a field, its
choices or help text) without its migration would leave a fresh database behind the code."""

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_every_model_change_has_its_migration():
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exc:  # --check exits 1 when a migration is missing
        pytest.fail(f"models differ from their migrations (exit {exc.code}):\n{out.getvalue()}")
    assert "No changes detected" in out.getvalue()
