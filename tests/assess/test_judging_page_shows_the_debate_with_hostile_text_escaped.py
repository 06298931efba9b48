"""The judging page shows the query, reference answers, the chunk with query terms and each
agent's evidence highlighted, and the debate round by round with why it was escalated; all
text is escaped, so markup in a chunk, an argument or a quote stays text."""

from assess.review.highlight import Segment, query_terms, segments, term_spans
from tests.fixtures.ui import html_elements

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"


def test_segments_cut_the_text_at_every_mark_and_join_back_to_it():
    text = "Solar panels: solar power <b>"
    marks = [(0, 5, "q"), (14, 19, "q"), (0, 12, "a")]
    cut = segments(text, marks)
    assert cut == [
        Segment("Solar", frozenset({"q", "a"})),
        Segment(" panels", frozenset({"a"})),
        Segment(": ", frozenset()),
        Segment("solar", frozenset({"q"})),
        Segment(" power <b>", frozenset()),
    ]
    assert "".join(s.text for s in cut) == text
    assert cut[0].css == "hl-a hl-q"


def test_query_terms_skip_stopwords_and_match_plurals():
    assert query_terms("Does vitamin D reduce the fractures?") == ["vitamin", "reduce", "fractures"]
    text = "A fracture and two Fractures, vitamins."
    assert [text[s:e] for s, e in term_spans(text, ["fractures", "vitamin"])] == [
        "fracture",
        "Fractures",
        "vitamins",
    ]


def test_the_page_shows_query_answers_chunk_and_both_rounds(client_as, make_review_job):
    make_review_job(escalated=1)
    html = client_as("annotator").get("/judge/").content.decode()
    assert "Does vitamin D reduce fractures?" in html
    assert "<li>30 percent</li>" in html  # reference answer
    assert '<mark class="hl-a">Daily <mark' not in html  # segments never nest
    assert (
        '<mark class="hl-a">Daily </mark><mark class="hl-a hl-q">vitamin</mark>'
        '<mark class="hl-a"> D reduced hip </mark><mark class="hl-a hl-q">fractures</mark>'
        '<mark class="hl-a"> by 30 percent.</mark>'
    ) in html
    assert '<mark class="hl-b">Lower doses showed no effect.</mark>' in html
    assert html.count('class="round"') == 2
    assert "The chunk reports the effect directly. (round 2)" in html
    assert "Only one dose helped. (round 1)" in html
    assert "The two agents still disagreed after the last round (2 of 2)." in html
    assert "Label: <strong>relevant</strong>" in html
    assert "Label: <strong>not relevant</strong>" in html


def test_hostile_text_everywhere_is_shown_escaped_and_runs_nothing(client_as, make_review_job):
    make_review_job(
        escalated=1,
        query_text=f"solar {IMG}",
        chunk_text=f"solar before {SCRIPT} after {IMG} end",
        evidence_a=(f"before {SCRIPT} after",),
        evidence_b=(IMG,),
        argument_a=f"argument {SCRIPT}",
        argument_b=f"argument {IMG}",
    )
    response = client_as("annotator").get("/judge/")
    html = response.content.decode()
    assert SCRIPT not in html
    assert IMG not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "argument &lt;img src=x onerror=alert(1)&gt; (round 1)" in html
    # The quote of A is highlighted as escaped text; "alert" is also a query term (from the
    # query's <img ... onerror=alert(1)>), so it carries both highlights.
    assert (
        '<mark class="hl-a">before &lt;script&gt;</mark><mark class="hl-a hl-q">alert</mark>'
        '<mark class="hl-a">(1)&lt;/script&gt; after</mark>'
    ) in html
    assert '<mark class="hl-b">(1)&gt;</mark> end</div>' in html
    elements, inline_scripts = html_elements(html)
    assert inline_scripts == []
    assert [tag for tag, _ in elements if tag == "img"] == []
    scripts = [attrs.get("src") for tag, attrs in elements if tag == "script"]
    assert scripts == [
        "/static/vendor/htmx-2.0.11.min.js",
        "/static/app.js",
        "/static/judge.js",
        "/static/guidelines.js",
    ]
    for _tag, attrs in elements:
        assert "style" not in attrs
        assert [a for a in attrs if a.startswith("on")] == []
