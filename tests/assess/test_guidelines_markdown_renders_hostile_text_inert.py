"""Guidelines Markdown becomes sanitised HTML (assess.review.markdown, pure: no database):
headings, emphasis, lists, tables and http/https/mailto links survive; raw HTML comes out
as text; no script, iframe or img element, no on* or style attribute and no javascript:
URL reaches the page, also when the parser is bypassed and the sanitiser meets raw HTML."""

import nh3

from assess.review.markdown import ALLOWED_TAGS, markdown_safe_html
from tests.fixtures.ui import html_elements

HOSTILE = """\
# Rules

<script>alert(1)</script>

<img src=x onerror="alert(2)">

[click me](javascript:alert(3)) and [data](data:text/html;base64,PHNjcmlwdD4=)

<iframe src="https://evil.example/"></iframe>

<a href="javascript:alert(4)" onclick="alert(5)">raw link</a>

<style>body { display: none }</style>

[ok](https://example.org/guide "Guide") and <mailto:lead@example.org>
"""


def _tags(html: str) -> set[str]:
    return {tag for tag, _ in html_elements(html)[0]}


def _attributes(html: str) -> list[tuple[str, str, str]]:
    return [
        (tag, name, value or "")
        for tag, attrs in html_elements(html)[0]
        for name, value in attrs.items()
    ]


def test_a_simple_document_renders_to_exactly_this_html():
    assert markdown_safe_html("# T\n\n**b**") == "<h1>T</h1>\n<p><strong>b</strong></p>\n"


def test_lists_tables_and_links_render_with_a_safe_rel():
    html = markdown_safe_html(
        "- *one*\n- `two`\n\n| grade | name |\n|---|---|\n| 0 | not relevant |\n\n"
        "[guide](https://example.org/g)\n"
    )
    assert html == (
        "<ul>\n<li><em>one</em></li>\n<li><code>two</code></li>\n</ul>\n"
        "<table>\n<thead>\n<tr>\n<th>grade</th>\n<th>name</th>\n</tr>\n</thead>\n"
        "<tbody>\n<tr>\n<td>0</td>\n<td>not relevant</td>\n</tr>\n</tbody>\n</table>\n"
        '<p><a href="https://example.org/g" rel="noopener noreferrer nofollow">guide</a></p>\n'
    )


def test_script_img_iframe_and_javascript_links_render_inert():
    html = markdown_safe_html(HOSTILE)
    elements, scripts = html_elements(html)
    assert _tags(html) <= ALLOWED_TAGS
    assert not {"script", "img", "iframe", "style"} & _tags(html)
    assert scripts == []
    attributes = _attributes(html)
    assert {name for _, name, _ in attributes} <= {"href", "title", "rel"}
    assert not [a for a in attributes if "javascript:" in a[2].lower()]
    assert all(v.startswith(("https:", "mailto:")) for _, name, v in attributes if name == "href")
    # Raw HTML is shown as text, escaped, so annotators see what was written.
    assert "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>" in html
    assert '<p>&lt;img src=x onerror="alert(2)"&gt;</p>' in html
    assert (
        '<a href="https://example.org/guide" title="Guide" rel="noopener noreferrer nofollow">'
        "ok</a>"
    ) in html
    assert '<a href="mailto:lead@example.org" rel="noopener noreferrer nofollow">' in html


def test_the_javascript_link_stays_text_and_is_never_a_link():
    html = markdown_safe_html("[click me](javascript:alert(3))")
    assert html == "<p>[click me](javascript:alert(3))</p>\n"


def test_the_sanitiser_alone_strips_raw_html_the_parser_never_passes():
    # Defence in depth: should the parser ever emit raw HTML, the same allow-list holds.
    from assess.review import markdown

    raw = (
        '<p onclick="x()">a<script>alert(1)</script><img src=x onerror=y()>'
        '<iframe src="//e"></iframe><a href="javascript:alert(1)">j</a>'
        '<a href="/judge/">rel</a><kbd style="color:red">g</kbd></p>'
    )
    cleaned = nh3.clean(
        raw,
        tags=set(markdown.ALLOWED_TAGS),
        clean_content_tags=markdown._DROPPED_WITH_CONTENT,
        attributes=markdown._ATTRIBUTES,
        url_schemes=markdown._URL_SCHEMES,
        url_relative="deny",
        link_rel=markdown._LINK_REL,
    )
    assert cleaned == (
        '<p>a<a rel="noopener noreferrer nofollow">j</a>'
        '<a rel="noopener noreferrer nofollow">rel</a><kbd>g</kbd></p>'
    )
