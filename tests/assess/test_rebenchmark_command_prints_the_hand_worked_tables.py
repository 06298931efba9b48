"""`rebenchmark DATASET --original test --refined NAME` prints the leaderboards before and
after, rank changes with Kendall's tau and paired tests, and the per-query changes; on the
holes world every number is worked out by hand.

nDCG@10 (gain = grade, grades <= 0 gain nothing, discount 1/log2(rank + 1), D2 = 0.630930):

- original: alpha q1 D2/1, q2 D2/1 → 0.6309; beta q1 1/1, q2 D2/1 → 0.8155;
- refined: alpha q1 (1 + D2)/(1 + D2) = 1, q2 D2/(1 + D2) = 0.386853 → 0.6934;
  beta q1 1/(1 + D2) = 0.613147, q2 (D2 + 0.5)/(1 + D2) = 0.693426 → 0.6533.

The holes alpha found (q1 d3) lift it above beta: ranks swap, tau = -1. Hole@10: one hole
in one of the two queries' top 10 → 0.05 for both.

Per-query changes list every measure. R@10 = R@100 (every run ranks at most 3): the refined
qrels add a relevant d3 to both queries, so alpha q2 (d6, d4) and beta q1 (d1, d2, d5) find
1 of 2 instead of 1 of 1 (-0.5), the others find both (0). P@10 gains 0.1 where d3 is
ranked (alpha q1, beta q2); Success@10 stays 1; the paper variant equals nDCG@10 (no query
has more than 10 relevant documents).
"""

import io
import re

import pytest
from django.core.management import CommandError, call_command


def run(*args) -> list[str]:
    out = io.StringIO()
    call_command("rebenchmark", "holes", *args, stdout=out)
    return [line.split() for line in out.getvalue().splitlines()]


def section(lines, title):
    start = lines.index(title.split())
    return lines[start + 3 : lines.index([], start)] if [] in lines[start:] else lines[start + 3 :]


@pytest.mark.django_db
def test_the_tables_hold_the_hand_worked_values(refined):
    lines = run("--original", "test", "--refined", "test-dream")
    before = section(lines, "Leaderboard on the original qrels")
    assert [row[:4] for row in before[:2]] == [
        ["1", "beta", "0.8155", "1.0000"],
        ["2", "alpha", "0.6309", "1.0000"],
    ]
    after = section(lines, "Leaderboard on the refined qrels")
    assert after[0][:3] == ["1", "alpha", "0.6934"]
    assert after[1][:3] == ["2", "beta", "0.6533"]
    assert after[0][-1] == after[1][-1] == "0.0500"  # Hole@10
    assert after[0][-2] == "0.6934"  # paper variant: every query has <= 10 relevant
    changes = section(lines, "Rank changes")
    # After the plain Δ its interval ("Δ nDCG@10 [95%]": tests/assess/
    # test_each_rebenchmark_delta_carries_its_interval_or_says_why_not.py), then Hole@10.
    # n_b = 1 or 0 in the holes world: fewer than 5, so the bracket is marked the whole range.
    interval = r"(n/a|[-+]?[\d.]+ \[[-+]?[\d.]+, [-+]?[\d.]+\] \(whole range; n = \d+; n_b = \d+\))"
    assert re.match(
        r"alpha 2 1 \+1 0\.6309 0\.6934 \+0\.0625 " + interval + r" 0\.0500 ", " ".join(changes[0])
    )
    assert re.match(
        r"beta 1 2 -1 0\.8155 0\.6533 -0\.1622 " + interval + r" 0\.0500 ", " ".join(changes[1])
    )
    # Named by what it compares: the refined qrels' debate labels, not the PPI estimates.
    tau = "Kendall's tau-b original vs refined qrels (debate labels), between the two nDCG@10"
    assert f"{tau} rankings: -1.0000".split() == changes[2][:14]
    title = "Per-query changes (refined − original)"
    header = lines[lines.index(title.split()) + 1]
    assert " ".join(header) == (
        "system query Δ nDCG@10 Δ R@10 Δ R@100 Δ P@10 Δ Success@10 Δ Judged@10 "
        "Δ nDCG@10 (DREAM paper variant, ideal over all gold) Hole@10"
    )
    per_query = section(lines, title)
    assert per_query[:4] == [
        ["alpha", "q1", "+0.3691", "0.0000", "0.0000", "+0.1000", "0.0000", "+0.3333"]
        + ["+0.3691", "0.1000"],
        ["alpha", "q2", "-0.2441", "-0.5000", "-0.5000", "0.0000", "0.0000", "+0.5000"]
        + ["-0.2441", "0.0000"],
        ["beta", "q1", "-0.3869", "-0.5000", "-0.5000", "0.0000", "0.0000", "+0.3333"]
        + ["-0.3869", "0.0000"],
        ["beta", "q2", "+0.0625", "0.0000", "0.0000", "+0.1000", "0.0000", "+0.3333"]
        + ["+0.0625", "0.1000"],
    ]


@pytest.mark.django_db
def test_runs_can_be_chosen_and_unknown_names_are_refused(refined):
    lines = run("--refined", "test-dream", "--runs", "alpha", "--no-per-query")
    assert lines[0][-9:] == "runs (alpha) on qrels test (original) and test-dream (refined)".split()
    assert section(lines, "Leaderboard on the original qrels")[0][:3] == ["1", "alpha", "0.6309"]
    assert ["Per-query", "changes", "(refined", "−", "original)"] not in lines
    with pytest.raises(
        CommandError, match=r"no finished run 'gamma' in 'holes' \(finished: alpha, beta\)"
    ):
        run("--refined", "test-dream", "--runs", "gamma")
    with pytest.raises(
        CommandError, match=r"no qrel set 'v9' in 'holes' \(known: test, test-dream\)"
    ):
        run("--refined", "v9")
