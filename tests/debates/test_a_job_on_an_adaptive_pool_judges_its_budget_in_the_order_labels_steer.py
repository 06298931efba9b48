"""A job on a bandit or mtc pool debates its budget batch by batch, each batch chosen by the
strategy from the labels known by then: with batches of one pair, the pairs it debates are
exactly the strategy's replay with the consensus labels as the oracle, and it stops at the
budget."""

import pytest

from assess.refined.refine import qrels_refine
from corpora.pool_strategies import pool_order
from corpora.services import dataset_import_beir, pool_build, qrel_set_get, run_import
from debates.llm.scripted import RuleClient
from debates.management.commands._jobs import bar_total, wait_job
from debates.models import Debate, DebateJob
from debates.services import pool_batches
from debates.services.jobs import debate_job_extend, debate_job_pause, debate_job_resume
from debates.services.launch import DuplicateJobError, JobSpec, debate_job_launch
from debates.services.leases import job_finish_if_done
from debates.services.progress import debate_job_notes
from debates.services.run import debate_job_run_inline
from tests.fixtures.datasets import write_beir
from tests.fixtures.jobs import AGENT_A, AGENT_B, reply

RELEVANT = {("q1", "d2"), ("q1", "d5"), ("q2", "d6")}
DOCS = [f"d{i}" for i in range(1, 9)]
RUNS = {
    "a": {"q1": ["d1", "d2", "d3"], "q2": ["d4", "d5", "d6"]},
    "b": {"q1": ["d2", "d5", "d7"], "q2": ["d6", "d1", "d8"]},
    "c": {"q1": ["d8", "d3", "d5"], "q2": ["d7", "d4", "d2"]},
}


@pytest.fixture
def adaptive_dataset(tmp_path):
    corpus = [{"_id": d, "title": "", "text": f"document {d} text"} for d in DOCS]
    queries = [{"_id": "q1", "text": "first query"}, {"_id": "q2", "text": "second query"}]
    # One judged pair per query, so both are pooled; neither is in any run's top 3.
    qrels = "query-id\tcorpus-id\tscore\nq1\td4\t0\nq2\td3\t0\n"
    folder = write_beir(tmp_path / "ad", corpus=corpus, queries=queries, qrels={"test": qrels})
    dataset = dataset_import_beir(path=folder, name="adaptive")
    runs = []
    for name, per_query in RUNS.items():
        path = tmp_path / f"{name}.run"
        path.write_text(
            "".join(
                f"{q} Q0 {d} {r} {10 - r} {name}\n"
                for q, docs in per_query.items()
                for r, d in enumerate(docs, start=1)
            )
        )
        runs.append(run_import(dataset=dataset, path=path, name=name))
    return dataset, runs


def truthful_agents(fake_llms):
    """Both agents answer the pair's true label, so every debate agrees in round 1."""

    def rule(messages):
        user = next(m["content"] for m in messages if m["role"] == "user")
        query = "q1" if "first query" in user else "q2"
        doc = next(d for d in DOCS if f"document {d} text" in user)
        return reply(int((query, doc) in RELEVANT))

    fake_llms(a=RuleClient(rule), b=RuleClient(rule))


def _budgeted_pool(adaptive_dataset, strategy: str, budget: int | None, *, name: str | None = None):
    """The adaptive dataset's depth-3 pool of its three runs, ordered by ``strategy``."""
    dataset, runs = adaptive_dataset
    test = qrel_set_get(dataset=dataset, name="test")
    return pool_build(
        dataset=dataset,
        qrel_set=test,
        runs=runs,
        depth=3,
        strategy=strategy,
        budget=budget,
        name=name,
    ).pool


@pytest.mark.django_db
@pytest.mark.parametrize("strategy", ["bandit", "mtc"])
def test_batches_of_one_follow_the_strategy_replay_and_stop_at_the_budget(
    adaptive_dataset, fake_llms, monkeypatch, strategy
):
    dataset, runs = adaptive_dataset
    truthful_agents(fake_llms)
    monkeypatch.setattr(pool_batches, "ADAPTIVE_BATCH", 1)
    test = qrel_set_get(dataset=dataset, name="test")
    pool = pool_build(
        dataset=dataset, qrel_set=test, runs=runs, depth=3, strategy=strategy, budget=7
    ).pool
    assert pool.pairs.count() == 13 and pool.budget == 7
    job = debate_job_launch(spec=JobSpec(pool=pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1))
    assert job.pair_limit == 7 and job.debates.count() == 1  # one batch at a time
    debate_job_run_inline(job=job)
    job.refresh_from_db()
    assert job.status == DebateJob.Status.FINISHED
    debated = list(
        Debate.objects.filter(job=job)
        .order_by("pk")
        .values_list("pair__query__query_id", "pair__document__doc_id", "final_label")
    )
    assert len(debated) == 7
    assert all(label == int((q, d) in RELEVANT) for q, d, label in debated)
    replay = pool_order(
        strategy,
        RUNS,
        labels={("q1", "d4"): 0, ("q2", "d3"): 0},
        budget=7,
        oracle=lambda q, d: int((q, d) in RELEVANT),
    )
    assert [(q, d) for q, d, _ in debated] == replay
    # The 6 pairs beyond the budget stay holes by design: refining needs no --allow-partial.
    report = qrels_refine(pool=pool, name=f"after-{strategy}")
    assert report.qrel_set.qrels.count() == 2 + 7
    note = next(n for n in debate_job_notes(job=job) if n.startswith("judging order"))
    assert note.endswith(
        "7 chosen of 13 pairs (budget 7), 1 at a time, each batch chosen from the labels known "
        "by then"
    )


@pytest.mark.django_db
def test_the_judging_order_note_counts_the_chosen_pairs_of_the_whole_pool_and_names_the_budget(
    adaptive_dataset, fake_llms
):
    truthful_agents(fake_llms)
    pool = _budgeted_pool(adaptive_dataset, "bandit", 7)
    job = debate_job_launch(spec=JobSpec(pool=pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1))
    [note] = pool_batches.pool_batch_notes(job)
    chosen = job.debates.count()
    assert note.startswith(
        f"judging order: bandit (MaxMean over runs); {chosen} chosen of 13 pairs (budget 7), "
    )
    everything = _budgeted_pool(adaptive_dataset, "mtc", None, name="all")
    job = debate_job_launch(
        spec=JobSpec(pool=everything, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1)
    )
    [note] = pool_batches.pool_batch_notes(job)
    assert f"{job.debates.count()} chosen of 13 pairs (no budget: every pair), " in note
    # A job's own limit is no budget of the pool's: the note says whose it is.
    limited = debate_job_launch(
        spec=JobSpec(pool=everything, agent_a=AGENT_A, agent_b=AGENT_B, rounds=2, limit=5)
    )
    [note] = pool_batches.pool_batch_notes(limited)
    assert f"{limited.debates.count()} chosen of 13 pairs (at most 5 by the job's limit), " in note


@pytest.mark.django_db
def test_a_second_identical_job_on_a_budgeted_pool_is_refused_as_a_duplicate(
    adaptive_dataset, fake_llms
):
    truthful_agents(fake_llms)
    pool = _budgeted_pool(adaptive_dataset, "bandit", 5)
    spec = JobSpec(pool=pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1)
    debate_job_launch(spec=spec, start=False)
    with pytest.raises(DuplicateJobError):
        debate_job_launch(spec=spec, start=False)


@pytest.mark.django_db
def test_a_paused_adaptive_job_whose_batch_ended_gets_its_next_batch_on_resume(
    adaptive_dataset, fake_llms, monkeypatch
):
    truthful_agents(fake_llms)
    monkeypatch.setattr(pool_batches, "ADAPTIVE_BATCH", 2)
    pool = _budgeted_pool(adaptive_dataset, "mtc", 6)
    job = debate_job_launch(spec=JobSpec(pool=pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1))
    # The first batch ends while the job is paused: no next batch is chosen then.
    debate_job_pause(job=job)
    Debate.objects.filter(job=job).update(status=Debate.Status.AGREED, final_label=0)
    assert pool_batches.pool_batch_next(job_id=job.pk) == []
    debate_job_resume(job=job, enqueue=False)
    job.refresh_from_db()
    assert job.status == DebateJob.Status.RUNNING
    assert job.debates.count() == 4 and job.debates.filter(status="pending").count() == 2
    # Extending never passes the budget: 2 more at most (one batch), then nothing.
    assert debate_job_extend(job=job, enqueue=False) == 2
    assert debate_job_extend(job=job, enqueue=False) == 0
    assert job.debates.count() == 6


@pytest.mark.django_db
def test_only_the_batch_step_finishes_an_adaptive_job_once_its_budget_is_spent(
    adaptive_dataset, fake_llms, monkeypatch
):
    # Two workers end a batch's last two debates: the job-finishing statement of the one
    # whose check comes first must not finish the job before the next batch is added (it
    # would judge by a snapshot older than that batch): it leaves such jobs alone, and the
    # batch step, under the job's lock, finishes the job once no batch is left.
    truthful_agents(fake_llms)
    monkeypatch.setattr(pool_batches, "ADAPTIVE_BATCH", 2)
    pool = _budgeted_pool(adaptive_dataset, "bandit", 4)
    job = debate_job_launch(spec=JobSpec(pool=pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1))
    Debate.objects.filter(job=job).update(status=Debate.Status.AGREED, final_label=0)
    assert job_finish_if_done(job_id=job.pk) is False
    assert len(pool_batches.pool_batch_next(job_id=job.pk)) == 2
    Debate.objects.filter(job=job).update(status=Debate.Status.AGREED, final_label=0)
    assert job_finish_if_done(job_id=job.pk) is False
    job.refresh_from_db()
    assert job.status == DebateJob.Status.RUNNING
    assert pool_batches.pool_batch_next(job_id=job.pk) == []  # the budget of 4 is spent
    job.refresh_from_db()
    assert job.status == DebateJob.Status.FINISHED and job.finished is not None


@pytest.mark.django_db
def test_the_progress_bar_of_a_job_on_an_adaptive_pool_counts_to_its_budget(
    adaptive_dataset, fake_llms, monkeypatch, capsys
):
    truthful_agents(fake_llms)
    monkeypatch.setattr(pool_batches, "ADAPTIVE_BATCH", 1)
    pool = _budgeted_pool(adaptive_dataset, "bandit", 7)
    job = debate_job_launch(spec=JobSpec(pool=pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1))
    assert job.debates.count() == 1  # the job holds one debate, but will judge 7
    progress = wait_job(job, progress_bar=True)
    assert progress.done == 7
    bar = capsys.readouterr().err
    # The first frame already counts to the budget, never to the one debate made so far.
    assert "0/7" in bar and "7/7" in bar and "/1 " not in bar


def test_the_bar_counts_an_adaptive_pools_job_to_its_limit_or_the_pools_end() -> None:
    assert bar_total(debates=1, adaptive=True, pair_limit=7, pool_pairs=13) == 7
    assert bar_total(debates=1, adaptive=True, pair_limit=20, pool_pairs=13) == 13
    assert bar_total(debates=2, adaptive=True, pair_limit=None, pool_pairs=13) == 13
    assert bar_total(debates=4, adaptive=False, pair_limit=7, pool_pairs=13) == 4


@pytest.mark.django_db
def test_the_bar_of_a_job_that_finds_fewer_unlabelled_pairs_than_its_budget_ends_at_its_debates(
    adaptive_dataset, fake_llms, monkeypatch, capsys
):
    truthful_agents(fake_llms)
    monkeypatch.setattr(pool_batches, "ADAPTIVE_BATCH", 1)
    pool = _budgeted_pool(adaptive_dataset, "bandit", 9)
    first = debate_job_launch(spec=JobSpec(pool=pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1))
    debate_job_run_inline(job=first)
    # The second job's first pair (the stored order's first) is reused from the first job;
    # then its strategy skips the 9 pairs the first labelled: 4 of the 13 are left.
    second = debate_job_launch(
        spec=JobSpec(pool=pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1, reuse=True)
    )
    progress = wait_job(second, progress_bar=True)
    assert progress.status == "finished" and progress.total == 5 and progress.reused == 1
    frames = capsys.readouterr().err.replace("\n", "\r").split("\r")
    last = [frame for frame in frames if frame.strip()][-1]
    assert "5/5" in last
