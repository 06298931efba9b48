"""A researcher with a downloaded GGUF labels without any server: run_debates --model-path
runs the debate in-process with that file, and the job config and every turn name it."""

import pytest
from django.core.management import call_command

from debates.models import Debate, DebateJob, Turn


@pytest.mark.django_db
def test_one_pair_is_debated_with_the_copy_and_every_turn_names_it(small_pool, gguf_copy, capsys):
    call_command(
        "run_debates",
        "small/pool",
        "--model-path",
        str(gguf_copy),
        "--rounds",
        "1",
        "--limit",
        "1",
        "--max-tokens",
        "160",
        "--no-progress",
    )
    job = DebateJob.objects.get()
    expected = {
        "backend": "embedded",
        "model": str(gguf_copy),
        "model_path": str(gguf_copy),
        "n_ctx": 4096,
    }
    assert job.agent_a == job.agent_b == expected
    debate = Debate.objects.get(job=job)
    assert debate.status in ("agreed", "escalated"), debate.last_error
    turns = list(Turn.objects.filter(debate=debate).order_by("round", "agent"))
    assert [(t.round, t.agent) for t in turns] == [(1, "A"), (1, "B")]
    assert {t.model for t in turns} == {str(gguf_copy)}
    assert all(t.prompt_tokens > 100 and t.completion_tokens > 0 for t in turns)
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith(
        f"1 pairs of pool small/pool, R=1, agents: embedded {gguf_copy} "
        "(local GGUF in-process, context 4096)"
    )
