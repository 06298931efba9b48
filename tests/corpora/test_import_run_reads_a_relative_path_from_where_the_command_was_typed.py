"""``import_run DATASET runs/my.run`` reads the file relative to the folder the command was
typed in (``DREAM_CALLER_DIR``, which ``./dream`` exports before it changes to the
repository), not relative to the process's directory; without ``DREAM_CALLER_DIR`` (plain
``python manage.py``) it is the process's directory. A file missing there is named by its
absolute path and nothing is imported."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from corpora.models import Run
from tests.fixtures.pooling import run_file

MINE = ["q1 Q0 d1 1 3 mine", "q1 Q0 d2 2 2 mine", "q2 Q0 d3 1 1 mine"]
DECOY = ["q1 Q0 d4 1 3 decoy"]  # the same relative path under the process's directory


def _write(folder, lines):
    (folder / "runs").mkdir()
    (folder / "runs" / "my.run").write_text(run_file(lines), encoding="utf-8")


@pytest.mark.django_db
def test_the_run_is_read_from_the_folder_the_command_was_typed_in(energy, typed_in, capsys):
    _write(typed_in.caller, MINE)
    _write(typed_in.cwd, DECOY)
    call_command("import_run", "energy", "runs/my.run")
    run = Run.objects.get()
    assert run.name == "mine"
    assert sorted(run.entries.values_list("query__query_id", "document__doc_id")) == [
        ("q1", "d1"),
        ("q1", "d2"),
        ("q2", "d3"),
    ]
    assert "run mine: 2 queries, 3 entries" in capsys.readouterr().out


@pytest.mark.django_db
def test_without_the_callers_folder_the_process_directory_is_used(energy, typed_in, monkeypatch):
    monkeypatch.delenv("DREAM_CALLER_DIR")
    _write(typed_in.cwd, MINE)
    call_command("import_run", "energy", "runs/my.run")
    assert Run.objects.get().name == "mine"


@pytest.mark.django_db
def test_a_file_missing_in_the_callers_folder_is_named_by_its_absolute_path(energy, typed_in):
    _write(typed_in.cwd, DECOY)  # present only where ./dream changed to: not read
    with pytest.raises(CommandError) as refused:
        call_command("import_run", "energy", "runs/my.run")
    assert str(refused.value) == (
        f"import failed, nothing imported: {typed_in.caller / 'runs' / 'my.run'}: cannot open "
        "the file (No such file or directory)"
    )
    assert not Run.objects.exists()
