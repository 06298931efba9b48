"""evaluate_assessor --scale graded draws the gold pairs evenly over the grades 0..G and
reports exact and within-one accuracy, balanced accuracy at relevance level 1, settled share,
escalation and calls per pair for DREAM and a single graded judge, with confusion matrices."""

import pytest
from django.core.management import call_command

from corpora.models import Pool
from debates.llm.base import LLMResult
from debates.llm.scripted import RuleClient
from debates.models import DebateJob
from tests.fixtures.datasets import write_beir
from tests.fixtures.engine import stance_in
from tests.fixtures.jobs import reply

WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")
CORPUS = [{"_id": f"d{i}", "title": "", "text": w} for i, w in enumerate(WORDS, start=1)]
QUERIES = [{"_id": "q1", "text": "first"}, {"_id": "q2", "text": "second"}]
# Gold: d1, d2 grade 2; d3, d4 grade 1; d5, d6 grade 0.
QRELS = "q1\td1\t2\nq2\td2\t2\nq1\td3\t1\nq2\td4\t1\nq1\td5\t0\nq2\td6\t0\n"
# Debate (R = 1), grades of (agent A, agent B): d1 2/2 right; d2 1/1 one off; d3 1/1 right;
# d4 2/0 escalated; d5 0/0 right; d6 2/2 two off. The single judge says 1 for everything.
DEBATE = {"alpha": (2, 2), "bravo": (1, 1), "charlie": (1, 1), "delta": (2, 0), "echo": (0, 0),
          "foxtrot": (2, 2)}  # fmt: skip


def rule(messages):
    system, user = messages[0]["content"], messages[1]["content"]
    word = next(w for w in WORDS if w in user)
    if "initial stance" not in system:
        grade = 1
    else:
        grade = DEBATE[word][0 if stance_in(messages) == "relevant" else 1]
    return LLMResult(reply(grade), "rule", 100, 10, 5.0, "stop")


@pytest.fixture
def gold(tmp_path, monkeypatch):
    from corpora.services import dataset_import_beir

    client = RuleClient(rule)
    monkeypatch.setattr(
        "debates.services.backends.agent_client_get", lambda *, config, api_key=None: client
    )
    folder = write_beir(tmp_path / "gold", corpus=CORPUS, queries=QUERIES, qrels={"test": QRELS})
    return dataset_import_beir(path=folder, name="gold")


@pytest.mark.django_db
def test_the_graded_report_on_six_hand_made_gold_pairs(gold, capsys):
    call_command(
        "evaluate_assessor",
        "gold",
        "--scale",
        "graded",
        "--sample",
        "6",
        "--rounds",
        "1",
        "--no-progress",
    )
    out = capsys.readouterr().out.splitlines()

    job = DebateJob.objects.get()
    assert (job.scale, job.max_grade, job.consensus) == ("graded", 2, "exact")
    pool = Pool.objects.get(name="eval-test-graded-n6-seed0")
    assert dict(pool.pairs.values_list("document__doc_id", "original_relevance")) == {
        "d1": 2, "d2": 2, "d3": 1, "d4": 1, "d5": 0, "d6": 0,
    }  # fmt: skip
    assert out[0] == (
        "evaluate_assessor --scale graded gold/test: 6 pairs in pool eval-test-graded-n6-seed0, "
        "gold grades 0..2: 2 of grade 0, 2 of grade 1, 2 of grade 2"
    )
    assert "R=1, graded 0..2 (consensus exact), max 384 tokens per call" in out[1]
    rows = {line[:37].strip(): line[37:].split() for line in out[4:6]}
    # Single judge, 1 everywhere: exact 2/6; all within one; irrelevant 0/2, relevant 4/4.
    assert rows["single graded judge, on settled pairs"] == [
        "33.3", "100.0", "50.0", "100.0", "0.0", "0", "1.00",
    ]  # fmt: skip
    # DREAM, 5 settled: exact d1 d3 d5; within one + d2; irrelevant d5 of d5 d6, relevant
    # 3 of 3; d4 escalated; 12 calls for 6 pairs.
    assert rows["DREAM R=1 graded, on settled pairs"] == [
        "60.0", "80.0", "75.0", "83.3", "16.7", "0", "2.00",
    ]  # fmt: skip
    dream = out.index("confusion matrix, DREAM:")
    assert out[dream + 1 : dream + 5] == [
        "gold \\ given      0     1     2  escal. failed",
        "           0      1     0     1       0      0",
        "           1      0     1     0       1      0",
        "           2      0     1     1       0      0",
    ]
    single = out.index("confusion matrix, single graded judge:")
    assert out[single + 2 : single + 5] == [
        "           0      0     2     0       0      0",
        "           1      0     2     0       0      0",
        "           2      0     2     0       0      0",
    ]
