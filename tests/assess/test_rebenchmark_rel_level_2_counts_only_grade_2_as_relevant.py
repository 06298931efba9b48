"""`rebenchmark --rel-level 2` makes R@k, P@k, Success@k and Hole@10 count only grade >= 2
(ir_measures' rel=2), says so above the tables, and leaves nDCG@10 (grades as gains) alone.

World (worked by hand): documents d1-d5, queries q1, q2.
original ``test``: q1 d1=2, d2=1; q2 d4=1, d5=2.
``refined``: the same plus two filled holes, q1 d3=2 and q2 d3=1.
run alpha: q1 d3, d2; q2 d3, d4, d5.

At level 2 the relevant documents are q1 {d1} / q2 {d5} originally, q1 {d1, d3} / q2 {d5}
refined:
- R@10: original q1 0 (d1 not ranked), q2 1 -> 0.5; refined q1 1/2, q2 1 -> 0.75.
- P@10: original 0 and 0.1 -> 0.05; refined 0.1 and 0.1 -> 0.1.
- Success@10: original 0 and 1 -> 0.5; refined 1 and 1 -> 1.
- Hole@10: q1's d3 (grade 2) is a counted hole in the top 10, q2's d3 (grade 1) is not:
  (1/10 + 0) / 2 = 0.05 (at level 1 both count: 0.1).
At level 1: R@10 refined q1 2/3 (d2, d3 of d1, d2, d3), q2 1 -> 0.8333.
nDCG@10 (D2 = 1/log2(3) = 0.630930): original q1 D2 / (2 + D2) = 0.239812, q2 (D2 + 2/2) /
(2 + D2) = 0.619906 -> 0.4299, the same at both levels.
"""

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from corpora.services import dataset_import_beir, run_import
from tests.fixtures.datasets import write_beir

CORPUS = [{"_id": f"d{i}", "title": "", "text": f"document {i}"} for i in range(1, 6)]
QUERIES = [{"_id": "q1", "text": "first"}, {"_id": "q2", "text": "second"}]
HEADER = "query-id\tcorpus-id\tscore\n"
ORIGINAL = "q1\td1\t2\nq1\td2\t1\nq2\td4\t1\nq2\td5\t2\n"
REFINED = ORIGINAL + "q1\td3\t2\nq2\td3\t1\n"
RUN = ["q1 Q0 d3 1 2.0 alpha", "q1 Q0 d2 2 1.0 alpha"]
RUN += ["q2 Q0 d3 1 3.0 alpha", "q2 Q0 d4 2 2.0 alpha", "q2 Q0 d5 3 1.0 alpha"]


@pytest.fixture
def graded(db, tmp_path: Path):
    folder = write_beir(
        tmp_path / "graded",
        corpus=CORPUS,
        queries=QUERIES,
        qrels={"test": HEADER + ORIGINAL, "refined": HEADER + REFINED},
    )
    dataset = dataset_import_beir(path=folder, name="graded")
    run_path = tmp_path / "alpha.run"
    run_path.write_text("".join(line + "\n" for line in RUN), encoding="utf-8")
    run_import(dataset=dataset, path=run_path, name="alpha")
    return dataset


def rebench(*args) -> tuple[str, dict[str, list[str]]]:
    out = io.StringIO()
    call_command(
        "rebenchmark", "graded", "--refined", "refined", "--no-per-query", *args, stdout=out
    )
    text = out.getvalue()
    lines = text.splitlines()
    tables = {}
    for title in ("Leaderboard on the original qrels", "Leaderboard on the refined qrels"):
        start = lines.index(title)
        header = lines[start + 1].split("  ")
        tables[title] = (
            [h.strip() for h in header if h.strip()],
            lines[start + 3].split(),
        )
    return text, tables


def column(table, name):
    header, row = table
    # "rank system" then one cell per measure; header cells are split on two spaces.
    return row[header.index(name)]


def test_level_2_gives_the_hand_worked_binary_measures_and_hole(graded):
    text, tables = rebench("--rel-level", "2")
    assert (
        "Relevance level 2: R@k, P@k, Success@k and Hole@10 count grade >= 2 as relevant. "
        "nDCG@10 gains = grade (trec_eval's linear gain)." in text
    )
    before = tables["Leaderboard on the original qrels"]
    after = tables["Leaderboard on the refined qrels"]
    assert [column(before, m) for m in ("R@10", "P@10", "Success@10", "nDCG@10")] == [
        "0.5000",
        "0.0500",
        "0.5000",
        "0.4299",
    ]
    assert [column(after, m) for m in ("R@10", "P@10", "Success@10", "Hole@10")] == [
        "0.7500",
        "0.1000",
        "1.0000",
        "0.0500",
    ]


def test_level_1_counts_grade_1_too(graded):
    text, tables = rebench()
    assert "Relevance level 1: R@k, P@k, Success@k and Hole@10 count grade >= 1" in text
    after = tables["Leaderboard on the refined qrels"]
    assert column(after, "R@10") == "0.8333"
    assert column(after, "Hole@10") == "0.1000"
    assert column(tables["Leaderboard on the original qrels"], "nDCG@10") == "0.4299"


def test_exp_gain_adds_the_named_column(graded):
    text, tables = rebench("--exp-gain")
    assert "'nDCG@10 (exp. gain)' gains = 2^grade - 1" in text
    before = tables["Leaderboard on the original qrels"]
    # original q1: D2 / (3 + D2) = 0.173765; q2: (D2 + 3/2) / (3 + D2) = 0.586883 -> 0.3803
    assert column(before, "nDCG@10 (exp. gain)") == "0.3803"


def test_a_level_above_every_grade_is_said_above_the_tables_not_only_shown_as_zeros():
    from assess.evaluation.metrics import rebenchmark as compare
    from assess.evaluation.tables import relevance_note

    original, refined = {"q1": {"d1": 1}}, {"q1": {"d1": 1, "d2": 1}}
    runs = {"s": {"q1": {"d2": 0.9, "d1": 0.8}}}
    above = compare(original, refined, runs, rel_level=2)
    assert above.top_grade == 1
    assert above.after[0].scores["P@10"] == 0.0
    assert "No judgment of either qrel set reaches grade 2 (the highest is 1)" in (
        relevance_note(above)
    )
    within = compare(original, refined, runs, rel_level=1)
    assert within.after[0].scores["P@10"] == pytest.approx(0.2)
    assert "No judgment" not in relevance_note(within)
