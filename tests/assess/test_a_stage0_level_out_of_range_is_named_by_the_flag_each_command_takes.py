"""A stage-0 level out of range is refused on the command line by the flag the user typed
(``--stage0-beta``), not by the option's keyword (``stage0_beta``): run_debates, pipeline
and demo alike, before any debate. The services, the form and the API keep the keyword."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from core.fixes import error_worded
from debates.models import DebateJob
from debates.services.common import DebateJobOptionError

pytestmark = pytest.mark.django_db


def test_run_debates_names_the_flag_of_a_level_out_of_range(small_pool, fake_llms):
    args = ["small/pool", "--backend", "test", "--stage0", "--stage0-beta", "0", "--no-progress"]
    with pytest.raises(CommandError) as caught:
        call_command("run_debates", *args)
    assert str(caught.value) == "--stage0-beta must be between 0.001 and 1.0, got 0.0"
    assert DebateJob.objects.count() == 0


def test_pipeline_names_the_flag_of_a_level_out_of_range(small_pool, fake_llms):
    args = ["small", "--retrievers", "bm25", "--backend", "test", "--stage0-alpha", "1.5"]
    with pytest.raises(CommandError) as caught:
        call_command("pipeline", *args)
    assert str(caught.value) == "--stage0-alpha must be between 0.001 and 0.999, got 1.5"
    assert DebateJob.objects.count() == 0


def test_demo_names_the_flag_of_a_level_out_of_range(tiny_beir, fake_llms):
    from corpora.services import dataset_import_beir

    # The demo reuses a dataset named scifact: this tiny one, not the bundled sample.
    dataset_import_beir(path=tiny_beir(), name="SciFact", slug="scifact")
    with pytest.raises(CommandError) as caught:
        call_command(
            "demo", "--retrievers", "bm25", "--stage0-delta", "0", "--no-serve",
            agent={"backend": "test"},
        )  # fmt: skip
    assert str(caught.value) == "--stage0-delta must be between 0.001 and 0.999, got 0.0"
    assert DebateJob.objects.count() == 0


def test_the_services_the_form_and_the_api_keep_the_options_keyword():
    refused = DebateJobOptionError("stage0_beta", "must be between 0.001 and 1.0, got 0.0")
    assert str(refused) == "stage0_beta must be between 0.001 and 1.0, got 0.0"
    for interface in ("api", "browser", "plain"):
        assert error_worded(refused, interface) == str(refused)
    assert error_worded(refused, "cli") == "--stage0-beta must be between 0.001 and 1.0, got 0.0"
