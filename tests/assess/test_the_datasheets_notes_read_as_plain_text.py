"""The datasheet's interval notes and errors read as plain text too: only the characters that
could open a Markdown construct mid-line are escaped (``md_inline``), so a note reads
"stratum 'label 1, round 2' (11 pairs)", never "\\'label 1\\, round 2\\' \\(11 pairs\\)",
and a hostile one still renders inert."""

import pytest

from assess.refined.datasheet_markdown import md_inline


def test_quotes_commas_and_parentheses_stay_as_they_are():
    note = "stratum 'label 1, round 2' (11 pairs) has 1 human label: a 95% interval > 0.5"
    assert md_inline(note) == (
        "stratum 'label 1, round 2' (11 pairs) has 1 human label: a 95% interval \\> 0.5"
    )


def test_what_could_open_a_construct_is_escaped_and_renders_inert():
    hostile = "[x](javascript:alert(1)) <b>*y*</b> `z` _w_ &amp; ~~s~~ a|b\nnext"
    escaped = md_inline(hostile)
    assert escaped == (
        r"\[x\](javascript:alert(1)) \<b\>\*y\*\</b\> \`z\` \_w\_ \&amp; \~\~s\~\~ a\|b next"
    )
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark").enable("strikethrough").render(f"- Note: {escaped}")
    assert html == (
        "<ul>\n<li>Note: [x](javascript:alert(1)) &lt;b&gt;*y*&lt;/b&gt; `z` _w_ &amp;amp; "
        "~~s~~ a|b next</li>\n</ul>\n"
    )
