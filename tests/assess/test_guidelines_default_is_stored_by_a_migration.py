"""The built-in default guidelines: migration 0010 stores version 1 (no dataset, no job)
from its own copy of assess.review.default_guidelines.DEFAULT_GUIDELINES_TEXT, and the copy
and the constant agree; storing it again adds nothing. The text says what "relevant"
means, how to use the debate, the graded scale and the keys, with worked examples."""

import importlib

from django.apps import apps

from assess.models import Guidelines
from assess.review.default_guidelines import DEFAULT_GUIDELINES_TEXT
from assess.review.guidelines import guidelines_render

MIGRATION = importlib.import_module("assess.migrations.0010_default_guidelines")


def test_the_migration_holds_the_same_text_as_the_constant():
    assert MIGRATION.TEXT == DEFAULT_GUIDELINES_TEXT


def test_the_migration_stores_version_1_of_the_default_once(db):
    # A transactional test's flush may have removed the row the migration stored.
    Guidelines.objects.filter(dataset=None, job=None).delete()
    MIGRATION.store_default(apps, None)
    MIGRATION.store_default(apps, None)
    (default,) = Guidelines.objects.filter(dataset=None, job=None)
    assert (default.version, default.text, default.created_by) == (
        1,
        DEFAULT_GUIDELINES_TEXT,
        None,
    )


def test_the_default_explains_relevance_the_debate_grades_keys_and_examples():
    html = guidelines_render(DEFAULT_GUIDELINES_TEXT)
    for heading in (
        '<h2>What "relevant" means here</h2>',
        "<h2>Using the debate</h2>",
        "<h2>Graded pairs (0 to G)</h2>",
        "<h2>Keys</h2>",
        "<h2>Worked examples</h2>",
    ):
        assert heading in html, heading
    assert "<h1>" not in html  # the page around the text has its own headings
    assert "supports or refutes" in html
    assert "The agents may be wrong." in html
    examples = html.split("<h3>")[1:]
    assert len(examples) >= 3
    assert any(e.startswith("1. Relevant") for e in examples)
    assert any(e.startswith("2. Not relevant: same topic") for e in examples)
    assert any(e.startswith("3. Partial") for e in examples)
    assert html.count("<table>") == 2  # the graded scale and the keys
    assert "<code>g</code>" in html
