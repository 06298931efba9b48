"""``evaluate_assessor --samples N`` asks the single judge N times per pair, each sample with
its own seed at the sampling temperature, takes the majority (a tie: the lower label, or
escalated), scores that label and reports each pair's vote split; N > 1 at temperature 0 is
refused before anything is made."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from corpora.models import Pool
from debates.llm.base import LLMResult, PermanentLLMError
from debates.models import DebateJob
from tests.fixtures.datasets import write_beir
from tests.fixtures.jobs import reply

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
CORPUS = [{"_id": f"d{i}", "title": "", "text": w} for i, w in enumerate(WORDS, start=1)]
QUERIES = [{"_id": "q1", "text": "first"}, {"_id": "q2", "text": "second"}]
# Relevant: d1, d2, d3. Judged non-relevant: d4, d5, d6.
QRELS = "q1\td1\t1\nq1\td2\t1\nq2\td3\t2\nq1\td4\t0\nq2\td5\t0\nq2\td6\t0\n"
ERROR = PermanentLLMError("judge down")
# The single judge's reply to each document, by sample (seed 0, 1, 2): None is unreadable.
SAMPLES = {
    "alpha": (1, 1, 1),  # 3-0 relevant: right
    "bravo": (1, 0, 1),  # 2-1 relevant: right
    "charlie": (0, 0, 1),  # 2-1 irrelevant: wrong
    "delta": (0, 0, 0),  # 3-0 irrelevant: right
    "echo": (1, None, 0),  # 1-1 with one unread: a tie
    "foxtrot": (ERROR, ERROR, ERROR),  # every sample fails
}


class SeededJudge:
    """Debaters both say relevant; the single judge answers by document and seed (the
    sample). ``asked`` logs the single judge's (word, seed, temperature)."""

    model, context_window = "seeded", 100_000

    def __init__(self):
        self.asked = []

    def count_tokens(self, text):
        return len(text.split())

    def chat(self, messages, params):
        system, user = messages[0]["content"], messages[1]["content"]
        if "initial stance" in system:
            return LLMResult(reply(1), "seeded", 100, 10, 5.0, "stop")
        word = next(w for w in WORDS if w in user)
        self.asked.append((word, params.seed, params.temperature))
        label = SAMPLES[word][params.seed]
        if isinstance(label, Exception):
            raise label
        text = "no idea" if label is None else reply(label)
        return LLMResult(text, "seeded", 100, 10, 5.0, "stop")


@pytest.fixture
def judge(tmp_path, monkeypatch):
    from corpora.services import dataset_import_beir

    client = SeededJudge()
    monkeypatch.setattr(
        "debates.services.backends.agent_client_get", lambda *, config, api_key=None: client
    )
    folder = write_beir(tmp_path / "gold", corpus=CORPUS, queries=QUERIES, qrels={"test": QRELS})
    dataset_import_beir(path=folder, name="gold")
    return client


def run(*flags):
    call_command(
        "evaluate_assessor", "gold", "--sample", "6", "--rounds", "1", "--no-progress", *flags
    )


@pytest.mark.django_db
def test_three_samples_a_pair_vote_and_the_report_gives_the_splits(judge, capsys):
    run("--samples", "3", "--sample-temperature", "0.7")
    out = capsys.readouterr().out.splitlines()
    # Settled: d1, d2 right and d3 wrong (relevant 2 of 3); d4 right, d5 tied -> 0 right
    # (irrelevant 2 of 2); d6 failed. Calls: 3 a pair, d5 4 (its unread sample re-asked once),
    # d6's failed samples none: 3 + 3 + 3 + 3 + 4 = 16 for 6 pairs.
    assert out[4] == (
        "single judge, on settled pairs         100.0    66.7    83.3    83.3     0.0      1 "
        "      2.67"
    )
    assert out[-1] == (
        "single judge: majority of 3 samples a pair at temperature 0.7 (a tie: the lower "
        "label; 1 tied); vote splits 3-0: 2, 2-1: 2, 1-1: 1, 0-0: 1"
    )
    # Every pair asked once per seed, at the sampling temperature (d5's unread sample twice).
    seeds = {}
    for word, seed, temperature in judge.asked:
        assert temperature == 0.7
        seeds.setdefault(word, []).append(seed)
    assert seeds == {w: [0, 1, 2] for w in WORDS if w != "echo"} | {"echo": [0, 1, 1, 2]}
    # The debate keeps its own temperature (0).
    assert DebateJob.objects.get().temperature == 0


@pytest.mark.django_db
def test_a_tie_can_escalate_and_the_json_stores_each_pairs_vote(judge, capsys):
    run("--samples", "3", "--sample-temperature", "0.7", "--sample-ties", "escalate", "--json")
    single = json.loads(capsys.readouterr().out)["assessors"]["single"]
    # d5 escalated: irrelevant settled d4 only (1 of 1); 1 of 6 pairs escalated.
    assert (single["recall_nonrelevant"], single["recall_relevant"]) == pytest.approx((1, 2 / 3))
    assert (single["escalation_rate"], single["failed"]) == (pytest.approx(1 / 6), 1)
    sampling = single["sampling"]
    assert {k: sampling[k] for k in ("samples", "temperature", "ties", "splits")} == {
        "samples": 3,
        "temperature": 0.7,
        "ties": "escalate",
        "splits": {"3-0": 2, "2-1": 2, "1-1": 1, "0-0": 1},
    }
    pairs = {p["doc_id"]: p for p in sampling["pairs"]}
    assert {d: (p["label"], p["split"]) for d, p in pairs.items()} == {
        "d1": (1, "3-0"),
        "d2": (1, "2-1"),
        "d3": (0, "2-1"),
        "d4": (0, "3-0"),
        "d5": (None, "1-1"),
        "d6": (None, "0-0"),
    }
    assert pairs["d5"] | {"pair": 0} == {
        "pair": 0,
        "query_id": "q2",
        "doc_id": "d5",
        "label": None,
        "split": "1-1",
        "votes": {"0": 1, "1": 1},
        "unread": 1,
        "failed": 0,
        "tie": True,
    }
    assert (pairs["d6"]["failed"], pairs["d6"]["votes"]) == (3, {})


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--samples", "3"), "at temperature 0 every sample is the same reply (give --sample"),
        (("--samples", "3", "--sample-temperature", "0"), "need a sampling temperature above 0"),
        (("--samples", "26", "--sample-temperature", "0.7"), "--samples must be in 1..25, got 26"),
        (("--samples", "3", "--sample-temperature", "0.7", "--no-baseline"), "single judge's"),
    ],
)
def test_sampling_the_judge_wrongly_is_refused_before_anything_is_made(judge, flags, message):
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(".", r"\.")):
        run(*flags)
    assert (Pool.objects.count(), DebateJob.objects.count(), judge.asked) == (0, 0, [])
