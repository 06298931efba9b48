"""Markdown written by admins (annotation guidelines) as HTML that is safe to put in a page.

Pure: no database, no Django. Two layers, so that a mistake in one is caught by the other:

1. markdown-it-py's CommonMark parser with tables and with its ``html`` option off, so raw
   HTML in the text (``<script>``, ``<img onerror=…>``, ``<iframe>``) comes out escaped, as
   text, and its link validator drops ``javascript:``, ``vbscript:`` and ``file:`` links;
2. nh3 (the ammonia sanitiser) over the result with an allow-list of tags and attributes:
   no script, style, iframe or img, no ``on*`` or ``style`` attribute, links only to
   ``http``, ``https`` and ``mailto`` with ``rel="noopener noreferrer nofollow"``.

The page's Content-Security-Policy (no inline script) is a third layer, not relied on here.
"""

from __future__ import annotations

import nh3
from markdown_it import MarkdownIt

__all__ = ["ALLOWED_TAGS", "markdown_safe_html"]

ALLOWED_TAGS: frozenset[str] = frozenset(
    {
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "ul",
        "ol",
        "li",
        "strong",
        "em",
        "code",
        "pre",
        "blockquote",
        "a",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "hr",
        "br",
        # The parser never makes these three (raw HTML is off); they are allowed so that
        # text sanitised here keeps them should the parser ever pass them through.
        "kbd",
        "mark",
        "del",
    }
)
# Only what the allowed tags need: a link's target and title, a list's first number.
# Everything else (on*, style, class, id, src) is dropped.
_ATTRIBUTES: dict[str, set[str]] = {"a": {"href", "title"}, "ol": {"start"}}
_URL_SCHEMES: set[str] = {"http", "https", "mailto"}
# Contents removed along with the tag (nh3 keeps the text of other disallowed tags).
_DROPPED_WITH_CONTENT: set[str] = {"script", "style", "iframe", "object", "embed", "template"}
_LINK_REL = "noopener noreferrer nofollow"

# Built once: a MarkdownIt instance holds no per-document state between render() calls.
_PARSER = MarkdownIt("commonmark", {"html": False}).enable("table")


def markdown_safe_html(text: str) -> str:
    """``text`` (CommonMark with tables) as sanitised HTML.

    Raw HTML in ``text`` is shown as text, never as markup; links keep only http, https
    and mailto targets (relative ones are dropped: a guideline links out, not into the
    app). E.g. ``"# T\\n\\n**b**"`` gives ``"<h1>T</h1>\\n<p><strong>b</strong></p>\\n"``.
    Never raises for any ``str``.
    """
    rendered = _PARSER.render(text)
    return nh3.clean(
        rendered,
        tags=set(ALLOWED_TAGS),
        clean_content_tags=_DROPPED_WITH_CONTENT,
        attributes=_ATTRIBUTES,
        url_schemes=_URL_SCHEMES,
        url_relative="deny",
        link_rel=_LINK_REL,
        strip_comments=True,
    )
