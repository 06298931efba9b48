"""hide_qrels makes a qrel set with part of another's relevant rows left out (the holes a
simulated study debates), drawn by seed over the ids; non-relevant rows are all kept; a taken
name or a share outside [0, 1] changes nothing."""

import pytest
from django.core.management import CommandError, call_command

from corpora.holes import qrels_hide
from corpora.models import QrelSet
from corpora.services import qrel_set_get
from corpora.services.datasets import qrels_rows

QRELS = {"a": {"x": 1, "y": 0, "z": 2}, "b": {"x": 1}, "c": {"w": 0}}


def test_hiding_every_relevant_row_keeps_only_the_non_relevant_ones_and_counts_them():
    kept, removed = qrels_hide(QRELS, hide=1.0, seed=3)
    assert (kept, removed) == ({"a": {"y": 0}, "c": {"w": 0}}, 3)


def test_hiding_nothing_keeps_every_row():
    assert qrels_hide(QRELS, hide=0.0, seed=3) == (QRELS, 0)


def test_the_same_seed_hides_the_same_rows_whatever_order_the_qrels_came_in():
    many = {f"q{i}": {f"d{j}": int(j % 3 == 0) for j in range(30)} for i in range(40)}
    shuffled = {q: dict(reversed(list(many[q].items()))) for q in reversed(list(many))}
    first = qrels_hide(many, hide=0.5, seed=1)
    assert first == qrels_hide(shuffled, hide=0.5, seed=1)
    assert first != qrels_hide(many, hide=0.5, seed=2)
    relevant = sum(g for judged in many.values() for g in judged.values())
    assert relevant == 400 and 150 < first[1] < 250  # about half: Bin(400, 0.5) within 5 sd


def test_a_share_outside_zero_to_one_is_refused():
    with pytest.raises(ValueError, match="hide: must be between 0 and 1, got 1.5"):
        qrels_hide(QRELS, hide=1.5, seed=1)


@pytest.mark.django_db
def test_the_command_makes_the_set_and_says_what_it_hid_and_what_to_do_next(energy, capsys):
    call_command("hide_qrels", "energy", "--qrels", "test", "--name", "half", "--hide", "1")
    out = capsys.readouterr().out
    half = qrel_set_get(dataset=energy, name="half")
    # energy's test qrels: q1 d1 1, q1 d3 0, q2 d3 2, q2 d4 -1; both relevant rows go.
    assert list(qrels_rows(qrel_set=half)) == [("q1", "d3", 0), ("q2", "d4", -1)]
    assert (
        half.source == "test with each relevant row hidden at probability 1 (seed 1): 2 of 2 hidden"
    )
    assert "qrel set half: 2 rows (2 of 2 relevant rows of test hidden, seed 1)" in out
    assert "./dream manage build_pool energy --qrels half" in out
    assert "--backend simulated --truth DIR/test.tsv" in out


@pytest.mark.django_db
def test_a_taken_name_or_a_bad_share_makes_nothing(energy):
    with pytest.raises(CommandError, match="nothing made: qrel set 'test' already exists"):
        call_command("hide_qrels", "energy", "--name", "test")
    with pytest.raises(CommandError, match="nothing made: hide: must be between 0 and 1"):
        call_command("hide_qrels", "energy", "--name", "other", "--hide", "-0.1")
    assert list(QrelSet.objects.values_list("name", flat=True)) == ["test"]
