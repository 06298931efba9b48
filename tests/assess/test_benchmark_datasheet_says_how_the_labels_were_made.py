"""The benchmark zip's README is rendered by a pure function from a hand-filled Datasheet (no
database): it holds the values it is given (models, R, counts, the audit's Wilson interval,
costs, how to load it), and hostile text from the database (a dataset name that would be a
heading and a link, a ``|`` or backticks in a model name, line breaks) stays inert."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from assess.refined.benchmark_zip import zip_path_part
from assess.refined.datasheet import (
    AgentSheet,
    AgreementSheet,
    AuditSheet,
    Datasheet,
    JobSheet,
    RunSheet,
    datasheet_render,
    md_code,
    md_title,
)
from assess.review.agreement import wilson_interval

HEADINGS = [
    "## Files",
    "## Source benchmark",
    "## Refined qrel set",
    "## Pool",
    "## Final labels of the pool's pairs",
    "## Debate jobs",
    "### Job 7",
    "## Intervals on the refined measures",
    "## Ranking agreement of the original and refined leaderboards",
    "## Cost per final label",
    "## Loading",
]


def job(**changes) -> JobSheet:
    sheet = JobSheet(
        job=7,
        agents=(
            AgentSheet("A", "relevant", "qwen3-32b", "openai qwen3-32b at http://gpu1:8000/v1"),
            AgentSheet(
                "B",
                "irrelevant",
                "gpt-5-mini",
                "openai gpt-5-mini at https://api.openai.com/v1, reasoning_effort low",
                '{"reasoning_effort": "low"}',
            ),
        ),
        prompt_version="dream-v3",
        rounds=3,
        scale="binary",
        max_grade=1,
        consensus="exact",
        temperature=0.25,
        max_tokens=2048,
        max_tokens_cap=4096,
        audit=AuditSheet(
            share=0.05,
            sampled=40,
            error=wilson_interval(3, 37),
            agreement=34 / 37,
            kappa=0.81,
            agreed=800,
        ),
        agreement=AgreementSheet(
            pairs=12, annotators=3, kappa=0.625, kappa_items=9, alpha=0.6, disagreements=2
        ),
    )
    return replace(sheet, **changes)


def sheet(**changes) -> Datasheet:
    value = Datasheet(
        folder="scifact",
        split="test",
        dataset_name="SciFact",
        dataset_source="https://github.com/beir-cellar/beir",
        dataset_licence="CC BY-NC 2.0",
        exclude_identical_ids=False,
        documents=5183,
        queries=1109,
        refined_name="test-dream-d10",
        created=datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC),
        original_name="test",
        original_rows=339,
        qrels_rows=358,
        grades="0–1 (0: 12 · 1: 346)",
        relevant_grade=1,
        new_relevant=7,
        new_nonrelevant=12,
        pool_name="test-d10-q1",
        pool_depth=10,
        pool_include_judged=False,
        pool_runs=(RunSheet("dense", "all-MiniLM-L6-v2"), RunSheet("bm25", "rank-bm25")),
        pool_queries=("1", "3"),
        pairs=19,
        by_source={"consensus": 15, "human": 3, "adjudicated": 1},
        by_reason={},
        escalations={"disagreement": 3, "truncated": 1},
        overrides_consensus=2,
        jobs=(job(),),
        costs=("all: 19 labels, 152 LLM calls; per final label 0.0123",),
    )
    return replace(value, **changes)


def test_the_datasheet_holds_the_values_it_is_given():
    text = datasheet_render(sheet=sheet())
    for expected in (
        "# SciFact: refined qrels `test-dream-d10`",
        "- Licence: `CC BY-NC 2.0`",
        "- Source: `https://github.com/beir-cellar/beir`",
        "made 2026-03-04 05:06:07 UTC",
        "- `corpus.jsonl`: 5,183 documents",
        "- `queries.jsonl`: 1,109 queries",
        "- `qrels/test.tsv`: the 358 rows of the refined set",
        "original qrel set `test` (the split `test`), whose 339 rows are copied unchanged",
        "- New labels: 7 relevant, 12 not relevant",
        "- Name: `test-d10-q1`: 19 pairs, the union of each run's top 10 documents per query",
        "- Runs (2), each pooled to depth 10:\n  - `bm25`: `rank-bm25`\n"
        "  - `dense`: `all-MiniLM-L6-v2`",
        "- Queries: a subset of 2: `1`, `3`",
        "- The two agents' consensus: 15",
        "- Humans (the majority, or median grade, of the annotators): 3",
        "- Adjudicated by an admin: 1",
        "- Unresolved (no label, so not in the qrels): 0",
        "- Debates escalated to humans: 4\n  - `disagreement`: 3\n  - `truncated`: 1",
        "- Human labels that overrode the agents' consensus: 2",
        "- Agent `A`, initial stance `relevant`: model `qwen3-32b`; backend "
        "`openai qwen3-32b at http://gpu1:8000/v1`; reasoning options none",
        "model `gpt-5-mini`; backend `openai gpt-5-mini at https://api.openai.com/v1, "
        'reasoning_effort low`; reasoning options `{"reasoning_effort": "low"}`',
        "- Prompt version `dream-v3`; R = 3 rounds at most; scale `binary`; consensus "
        "`exact`; temperature 0.25",
        "- Token budget: 2,048 completion tokens for a turn's first call, 4,096 for the re-ask",
        # wilson_interval(3, 37): the job page's figures, never recomputed here.
        # 5% is each agreed label's chance of being drawn; 40 of 800 happens to be 5% too.
        "- Audit (each agreed label drawn with probability 5%: 40 of 800 drawn): error rate "
        "of consensus labels "
        "0.081 (3 of 37), 95% confidence interval 0.028–0.213 (Wilson); humans agree with "
        "the consensus on 0.919, Cohen's kappa 0.810",
        "- Agreement among annotators: 12 pairs judged more than once by 3 annotators; "
        "Cohen's kappa 0.625 (the two annotators sharing the most pairs: 9 pairs); "
        "Krippendorff's alpha (nominal) 0.600; 2 pairs with disagreeing annotators",
        "```text\nall: 19 labels, 152 LLM calls; per final label 0.0123\n```",
        'GenericDataLoader(data_folder="scifact").load(\n    split="test"\n)',
        'with open("scifact/qrels/test.tsv"',
    ):
        assert expected in text, expected
    assert [line for line in text.splitlines() if line.startswith("#")][1:] == HEADINGS
    assert text.endswith("```\n") and "\n\n\n" not in text


def test_a_graded_job_shows_its_ordinal_agreement_and_side_errors():
    graded = job(
        scale="graded",
        max_grade=2,
        audit=AuditSheet(0.1, 8, wilson_interval(2, 8), 0.75, 0.5, wilson_interval(1, 8), 0.7),
        agreement=AgreementSheet(4, 2, 0.5, 4, 0.4, 1, True, 0.55, 0.66),
    )
    text = datasheet_render(sheet=sheet(jobs=(graded,)))
    assert "scale `graded` (grades 0..2)" in text
    assert "on the wrong side of relevance (grade 0 vs 1 or more): 0.125 (1 of 8)" in text
    assert "; weighted kappa (quadratic) 0.700" in text
    assert "alpha (ordinal) 0.550; weighted kappa (quadratic) 0.660" in text


def test_the_audit_share_reads_as_each_pairs_chance_not_as_the_share_drawn():
    # The demo's job: 25% audit share, 19 agreed labels, 2 drawn (11% of 19).
    demo = AuditSheet(0.25, 2, wilson_interval(0, 0), agreed=19)
    text = datasheet_render(sheet=sheet(jobs=(job(audit=demo),)))
    assert "- Audit (each agreed label drawn with probability 25%: 2 of 19 drawn): " in text
    neyman = replace(demo, allocation="neyman")
    text = datasheet_render(sheet=sheet(jobs=(job(audit=neyman),)))
    assert (
        "- Audit (Neyman allocation: each agreed label drawn with its audit unit's "
        "probability, 25% of them expected in all: 2 of 19 drawn): "
    ) in text


def test_an_unjudged_audit_and_missing_fields_say_so():
    quiet = job(
        audit=AuditSheet(0.02, 3, wilson_interval(0, 0)),
        agreement=AgreementSheet(0, 0, None, 0, None, 0),
    )
    text = datasheet_render(sheet=sheet(jobs=(quiet,), dataset_licence="", dataset_source=""))
    assert "error rate of consensus labels not known yet (no audited pair judged)" in text
    assert "- Agreement among annotators: no item of this job has two judgments (only " in text
    assert "- Licence: not recorded" in text and "- Source: not recorded" in text
    assert "No debate job covered the pool." in datasheet_render(sheet=sheet(jobs=()))


def test_a_tie_across_jobs_and_a_job_with_no_item_judged_twice_say_what_each_counts():
    """A person's vote on a pair in one job and the simulated annotator's in another tie in
    the final labels, while neither job has an item judged twice: the sheet said "human tie:
    1" beside "no pair has two human judgments". Each line now says what it counts."""
    lone = job(agreement=AgreementSheet(0, 0, None, 0, None, 0))
    text = datasheet_render(
        sheet=sheet(
            jobs=(lone,),
            by_source={"consensus": 18, "unresolved": 1},
            by_reason={"human tie": 1},
        )
    )
    assert (
        "  - `human tie`: 1 (the pair's human votes, merged over every job that asked people "
        "about it and counting a simulated annotator's vote as one, are split evenly; each "
        "job's agreement line below counts only the judgments on its own items)"
    ) in text
    assert (
        "- Agreement among annotators: no item of this job has two judgments (only the "
        "judgments on the job's own review items count here, a simulated annotator's "
        "included; votes on the same pair in other jobs meet only in the final labels, where "
        "they may tie)"
    ) in text
    assert "no pair has two human judgments" not in text


def test_equal_sheets_give_equal_text_whatever_the_order_of_their_mappings():
    first = sheet(escalations={"disagreement": 3, "truncated": 1})
    second = sheet(escalations={"truncated": 1, "disagreement": 3})
    assert datasheet_render(sheet=first) == datasheet_render(sheet=second)


HOSTILE_NAME = "# x](javascript:alert(1))"
HOSTILE_MODEL = "gpt|4o `x` <script>alert(1)</script>\n## Injected\n| a | b |\n|---|---|"


def render_html(text: str) -> str:
    markdown_it = pytest.importorskip("markdown_it")
    return markdown_it.MarkdownIt("commonmark").enable("table").render(text)


def test_hostile_names_and_models_stay_inert():
    agents = (
        AgentSheet("A", "relevant", HOSTILE_MODEL, HOSTILE_MODEL, "{}\n```\n# code"),
        AgentSheet("B", "irrelevant", "[click](javascript:alert(1))", "`", ""),
    )
    hostile = sheet(
        dataset_name=HOSTILE_NAME,
        dataset_licence="<img src=x onerror=alert(1)>",
        refined_name="``",
        pool_runs=(RunSheet("r", "a\r\n\r\n# Not a heading\u2028[x]: javascript:alert(1)"),),
        pool_queries=("q|1", "\u202etxt.exe"),
        escalations={"<b>": 1},
        jobs=(job(agents=agents, prompt_version="v1 | v2"),),
        costs=("```", "# not a heading"),
    )
    text = datasheet_render(sheet=hostile)
    assert text.splitlines()[0] == r"# \# x\](javascript\:alert(1)): refined qrels ``` `` ```"
    assert "\u202e" not in text and "\u2028" not in text and "\r" not in text
    html = render_html(text)
    assert "<table" not in html and "<script" not in html and "<img" not in html
    assert "<b>" not in html and "<a " not in html
    # The document's structure is its own: the same headings, none made by a value.
    headings = re.findall(r"<h([1-3])>(.*?)</h\1>", html)
    assert [f"{'#' * int(level)} {title}" for level, title in headings[1:]] == HEADINGS
    assert headings[0][0] == "1"
    assert '<pre><code class="language-text">```\n# not a heading\n</code></pre>' in html
    # Shown verbatim, inside code spans.
    assert "<code>gpt|4o `x` &lt;script&gt;alert(1)&lt;/script&gt; ## Injected | a | b |" in html
    assert "<code>q|1</code>" in html and "<code>v1 | v2</code>" in html


def test_code_spans_and_text_escape_what_markdown_would_read():
    assert md_code("plain") == "`plain`"
    assert md_code("a`b") == "``a`b``"
    assert md_code("`x`") == "`` `x` ``"
    assert md_code("") == "(none)" and md_code("", empty="not recorded") == "not recorded"
    assert md_code("a\nb\r\nc") == "`a b  c`"


def test_the_title_escapes_what_markdown_reads_in_a_heading_and_nothing_else():
    # A hyphen or a dot means nothing in a heading's words: the name reads as itself.
    assert md_title("nfcorpus-test") == "nfcorpus-test"
    assert md_title("trec-covid.v2 (round 5), 'beir'!") == "trec-covid.v2 (round 5), 'beir'!"
    assert datasheet_render(sheet=sheet(dataset_name="nfcorpus-test")).startswith(
        "# nfcorpus-test: refined qrels "
    )
    # What would open emphasis, code, a link, HTML, an entity or a heading stays escaped.
    assert md_title("a*b_[c](d)") == r"a\*b\_\[c\](d)"
    assert md_title("#1 `x` a~b &amp; c|d") == r"\#1 \`x\` a\~b \&amp; c\|d"
    assert render_html(md_title("<b>*x*</b>")).strip() == "<p>&lt;b&gt;*x*&lt;/b&gt;</p>"
    # GitHub's bare autolinks (a scheme, an e-mail address, www.) are broken up too.
    assert md_title("https://a.org me@a.org www.a.org") == r"https\://a.org me\@a.org www\.a.org"
    # GitHub's math ($...$, $$...$$) is broken up as well.
    assert md_title("$\\sqrt{x}$ data $$y$$") == r"\$\\sqrt{x}\$ data \$\$y\$\$"


@pytest.mark.parametrize(
    ("value", "part"),
    [("scifact", "scifact"), ("../../etc", "etc"), ("a/b c", "a-b-c"), ("..", "x"), ("", "x")],
)
def test_zip_paths_keep_to_one_safe_part(value, part):
    assert zip_path_part(value, fallback="x") == part


def test_a_job_that_did_not_finish_is_named_with_its_status():
    text = datasheet_render(sheet=sheet(jobs=(job(status="cancelled"), job(job=8))))
    assert "### Job 7 (cancelled)\n" in text and "### Job 8\n" in text
