"""evaluate_assessor debates a stratified sample of gold pairs and reports recall per class,
balanced accuracy, settled share, escalation rate and calls per pair, beside the single judge."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from corpora.models import Pair, Pool
from debates.llm.base import LLMResult
from debates.llm.scripted import RuleClient
from tests.fixtures.datasets import write_beir
from tests.fixtures.engine import stance_in
from tests.fixtures.jobs import reply

CORPUS = [
    {"_id": f"d{i}", "title": "", "text": text}
    for i, text in enumerate(
        ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"], start=1
    )
]
QUERIES = [{"_id": "q1", "text": "first"}, {"_id": "q2", "text": "second"}]
# Relevant: d1, d2, d3. Judged non-relevant: d4, d5, d6 (grade 0, 0, -1).
QRELS = "q1\td1\t1\nq1\td2\t1\nq2\td3\t2\nq1\td4\t0\nq2\td5\t0\nq2\td6\t-1\n"

# Debate: d1 both 1 (right); d2 split every round (escalated); d3 split, then both 0 in round
# 2 (wrong); d4 both 0 (right); d5 both 1 (wrong); d6 unreadable twice (escalated).
# Single judge: 1 for everything but d6 (0).
DEBATE = {"alpha": 1, "charlie": (None, 0), "delta": 0, "echo": 1}


def rule(messages):
    system, user = messages[0]["content"], messages[1]["content"]
    word = next(w for w in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot") if w in user)
    if "initial stance" not in system:
        return LLMResult(reply(0 if word == "foxtrot" else 1), "rule", 100, 10, 5.0, "stop")
    if word == "foxtrot":
        return LLMResult("no idea", "rule", 100, 10, 5.0, "stop")
    stance = int(stance_in(messages) == "relevant")
    planned = DEBATE.get(word, (None, None))
    if isinstance(planned, int):
        label = planned
    elif "Round 2." in user and planned[1] is not None:
        label = planned[1]
    else:
        label = stance
    return LLMResult(reply(label), "rule", 100, 10, 5.0, "stop")


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
def test_the_report_gives_both_readings_beside_the_single_judge(gold, capsys):
    call_command("evaluate_assessor", "gold", "--sample", "6", "--rounds", "2", "--no-progress")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "evaluate_assessor gold/test: 6 pairs in pool eval-test-n6-seed0: "
        "3 judged relevant, 3 judged non-relevant"
    )
    assert out[1].startswith("agents: embedded SmolLM2-135M-Instruct-Q4_1")
    assert out[1].endswith(" s") and "R=2, max 384 tokens per call, temperature 0; job " in out[1]
    assert out[3:7] == [
        "method                               rec.irr rec.rel bal.acc settled  escal. "
        "failed calls/pair",
        # irrelevant: d6 right of 3; relevant 3 of 3; 6 calls for 6 pairs.
        "single judge, on settled pairs          33.3   100.0    66.7   100.0     0.0      0 "
        "      1.00",
        # settled: d4 right, d5 wrong; d1 right, d3 wrong; 2+4+4+2+2+2 = 16 calls.
        "DREAM R=2, on settled pairs             50.0    50.0    50.0    66.7    33.3      0 "
        "      2.67",
        # escalated d2 (relevant) and d6 (irrelevant) count as right.
        "DREAM R=2, humans right on escalated    66.7    66.7    66.7   100.0    33.3      0 "
        "      2.67",
    ]
    pool = Pool.objects.get(name="eval-test-n6-seed0")
    assert pool.include_judged
    grades = dict(pool.pairs.values_list("document__doc_id", "original_relevance"))
    assert grades == {"d1": 1, "d2": 1, "d3": 2, "d4": 0, "d5": 0, "d6": -1}


@pytest.mark.django_db
def test_a_smaller_sample_is_half_relevant_and_the_same_for_the_same_seed(gold, capsys):
    call_command("evaluate_assessor", "gold", "--sample", "4", "--no-baseline", "--no-progress")
    first = set(Pair.objects.values_list("document__doc_id", flat=True))
    assert len(first & {"d1", "d2", "d3"}) == 2 and len(first & {"d4", "d5", "d6"}) == 2
    call_command("evaluate_assessor", "gold", "--sample", "4", "--no-baseline", "--no-progress")
    assert Pair.objects.count() == 4  # the same pool, the same pairs
    assert "single judge" not in capsys.readouterr().out


@pytest.mark.django_db
def test_unjudged_negatives_need_dense_judgments_or_an_explicit_flag(tmp_path, monkeypatch):
    from corpora.services import dataset_import_beir

    monkeypatch.setattr(
        "debates.services.backends.agent_client_get",
        lambda *, config, api_key=None: RuleClient(lambda m: reply(1)),
    )
    corpus = [
        {"_id": doc_id, "title": "", "text": text}
        for doc_id, text in [
            ("d1", "first alpha"),
            ("d2", "first bravo"),
            ("d3", "second charlie"),
            ("d4", "second delta"),
            ("d5", "first second echo"),
            ("d6", "golf"),
        ]
    ]
    folder = write_beir(
        tmp_path / "sparse",
        corpus=corpus,
        queries=QUERIES,
        qrels={"test": "q1\td1\t1\nq2\td3\t1\n"},
    )
    dataset_import_beir(path=folder, name="sparse")
    with pytest.raises(CommandError, match="judge no pair non-relevant"):
        call_command("evaluate_assessor", "sparse", "--sample", "4", "--no-progress")
    call_command(
        "evaluate_assessor",
        "sparse",
        "--sample",
        "4",
        "--unjudged-negatives",
        "--depth",
        "3",
        "--rounds",
        "1",
        "--no-progress",
    )
    pool = Pool.objects.get(name="eval-test-n4-seed0")
    assert list(pool.runs.values_list("name", flat=True)) == ["bm25"]
    negatives = pool.pairs.filter(original_relevance=None)
    assert negatives.count() == 2
    assert all(p.sources.get().rank <= 3 for p in negatives)
    # BM25's top 3 unjudged: q1 -> d2, d5; q2 -> d4, d5 (d6 matches nothing).
    assert set(negatives.values_list("query__query_id", "document__doc_id")) <= {
        ("q1", "d2"),
        ("q1", "d5"),
        ("q2", "d4"),
        ("q2", "d5"),
    }


@pytest.mark.django_db
def test_json_prints_one_object_with_dream_at_the_top_and_each_assessor(gold, capsys):
    import json

    call_command(
        "evaluate_assessor", "gold", "--sample", "6", "--rounds", "2", "--no-progress", "--json"
    )
    body = json.loads(capsys.readouterr().out)  # one object, nothing else on stdout
    # The same figures as the text report above.
    assert body["assessor"] == "dream" and body["n"] == 6
    assert body["balanced_accuracy"] == pytest.approx(0.5)
    assert (body["recall_relevant"], body["recall_nonrelevant"]) == (0.5, 0.5)
    single = body["assessors"]["single"]
    assert (single["recall_relevant"], single["recall_nonrelevant"]) == pytest.approx((1, 1 / 3))
    assert single["balanced_accuracy"] == pytest.approx(2 / 3) and single["n"] == 6
    humans = body["assessors"]["dream_with_humans"]
    assert humans["balanced_accuracy"] == pytest.approx(2 / 3)
    assert body["assessors"]["dream"]["settled"] == pytest.approx(4 / 6)
    assert body["pool"] == "eval-test-n6-seed0"
