"""The dataset page's pool form starts with every finished run ticked; a required field left
empty is refused with its error beside its label, before the list of runs."""

import pytest

from corpora.models import Pool, Run
from tests.fixtures.ui import html_elements


def _pool_form(html: str) -> str:
    start = html.index('id="pool-form"')
    return html[start : html.index("</form>", start)]


@pytest.mark.django_db
def test_every_finished_run_starts_ticked_and_an_unfinished_one_is_not_offered(
    tiny_dataset, client_as
):
    Run.objects.create(dataset=tiny_dataset, name="dense", system="x", status=Run.Status.DONE)
    Run.objects.create(dataset=tiny_dataset, name="late", system="x", status=Run.Status.RUNNING)
    form = _pool_form(client_as("admin").get("/datasets/tiny/").content.decode())
    elements, _ = html_elements(form)
    boxes = {a["value"]: "checked" in a for t, a in elements if a.get("name") == "runs"}
    assert boxes == {"bm25": True, "dense": True}


@pytest.mark.django_db
def test_a_missing_run_is_named_beside_the_label_and_nothing_is_built(tiny_dataset, client_as):
    answer = client_as("admin").post("/datasets/tiny/actions/pool/", {"qrels": "test", "depth": 2})
    assert answer.status_code == 400
    form = _pool_form(answer.content.decode())
    start = form.index('id="pool-field-runs"')
    field = form[start : form.index("</div>", start)]
    label_end = field.index("</label>")
    error = field.index('<span class="field-error" role="alert">This field is required.</span>')
    assert label_end < error < field.index('name="runs"')
    assert 'class="field has-error"' in form[start - 30 : start]
    assert not Pool.objects.exclude(name="p").exists()


@pytest.mark.django_db
def test_the_form_offers_a_judging_order_and_refuses_a_fractional_count_budget(
    tiny_dataset, client_as
):
    client = client_as("admin")
    form = _pool_form(client.get("/datasets/tiny/").content.decode())
    elements, _ = html_elements(form)
    strategies = [
        a["value"]
        for t, a in elements
        if t == "option" and a.get("value") in ("depth", "rbp", "rrf", "bandit", "mtc")
    ]
    assert strategies == ["depth", "rbp", "rrf", "bandit", "mtc"]
    answer = client.post(
        "/datasets/tiny/actions/pool/",
        {"qrels": "test", "runs": ["bm25"], "depth": 2, "strategy": "mtc", "budget": "2.5"},
    )
    assert answer.status_code == 400
    assert (
        "2.5: give a whole number of pairs (1, 2000) or a share below 1 (0.6); leave the field "
        "empty to judge the whole pool"
    ) in answer.content.decode()
    assert not Pool.objects.exclude(name="p").exists()
