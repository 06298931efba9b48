"""No page has inline script, event-handler attributes or inline style (the CSP would
block them), and every script and stylesheet comes from our own /static/."""

import pytest

from tests.fixtures.ui import html_elements

PAGES = [
    ("anonymous", "/login/?next=/", 200),
    ("admin", "/", 200),
    ("annotator", "/", 200),
    ("annotator", "/datasets/", 403),
    ("admin", "/datasets/", 200),
    ("admin", "/datasets/tiny/", 200),
    ("admin", "/datasets/tiny/documents/", 200),
    ("admin", "/datasets/tiny/document/?id=d1", 200),
    ("admin", "/datasets/nope/", 404),
]


@pytest.mark.parametrize(("who", "url", "status"), PAGES, ids=[f"{w} {u}" for w, u, _ in PAGES])
def test_the_page_has_no_inline_script_handlers_or_styles(
    client_as, tiny_dataset, who, url, status
):
    response = client_as(who).get(url)
    assert response.status_code == status
    elements, inline_scripts = html_elements(response.content.decode())
    assert inline_scripts == []
    scripts = [attrs.get("src") for tag, attrs in elements if tag == "script"]
    assert scripts == ["/static/vendor/htmx-2.0.11.min.js", "/static/app.js"]
    links = [(attrs.get("rel"), attrs["href"]) for tag, attrs in elements if tag == "link"]
    # One stylesheet, served from our own static files; the icon is the only other link.
    assert links == [("icon", "/static/favicon.ico"), ("stylesheet", "/static/app.css")]
    assert [tag for tag, _ in elements if tag == "style"] == []
    for tag, attrs in elements:
        assert "style" not in attrs, tag
        assert [a for a in attrs if a.startswith("on")] == [], tag
        for name in ("href", "src", "action"):
            assert not (attrs.get(name) or "").lower().startswith("javascript:"), tag
    meta = {attrs.get("name"): attrs.get("content") for tag, attrs in elements if tag == "meta"}
    assert '"includeIndicatorStyles": false' in meta["htmx-config"]


def test_the_vendored_htmx_file_is_there_and_pinned():
    from django.contrib.staticfiles import finders

    path = finders.find("vendor/htmx-2.0.11.min.js")
    assert path is not None
    with open(path, encoding="utf-8") as handle:
        assert 'version:"2.0.11"' in handle.read().replace(" ", "")
