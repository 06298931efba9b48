"""The ranking measures of a re-benchmark reach every place it is shown: the command's
tables, the page's "Ranking agreement" block and RBP columns, the API's JSON keys and the
benchmark zip's datasheet. The ``holes`` world of tests/fixtures/refine.py, by hand:

Leaderboards on nDCG@10: original [beta, alpha], refined [alpha, beta] (they swap): tau-b
= tau_AP,b = top-10 tau = -1; RBO: A_1 = 0, A_2 = 1 → (1/9) * 0.81 + 0.81 = 0.9.

RBP (p = 0.8; weights 0.2, 0.16, 0.128; tail 0.8^depth), relevant = grade >= 1:
- alpha original: q1 d3 (unjudged) d1 (1) d2 (0): base 0.16, residual 0.2 + 0.512 = 0.712;
  q2 d6 (unjudged) d4 (1): base 0.16, residual 0.2 + 0.64 = 0.84 → 0.1600 + 0.7760.
  Refined (d3 = 1, d6 = 0): q1 base 0.36, residual 0.512; q2 base 0.16, residual 0.64 →
  0.2600 + 0.5760.
- beta original: q1 d1 (1) d2 (0) d5 (unjudged): base 0.2, residual 0.128 + 0.512 = 0.64;
  q2 d5 (-1) d4 (1) d3 (unjudged): base 0.16, residual 0.64 → 0.1800 + 0.6400.
  Refined (q1 d5 = 0, q2 d3 = 1): q1 0.2 + 0.512; q2 0.288 + 0.512 → 0.2440 + 0.5120.
"""

import io
import zipfile

import pytest
from django.core.management import call_command
from django.urls import reverse

from assess.refined.benchmark_zip import benchmark_zip_write
from assess.refined.datasheet import IntervalsSheet, datasheet_render
from assess.refined.datasheet_ranking import RankingSheet, RbpCell
from tests.assess.test_benchmark_datasheet_says_how_the_labels_were_made import (
    HOSTILE_NAME,
    render_html,
    sheet,
)
from tests.fixtures.refine import refined_at_share
from tests.fixtures.ui import html_tables

pytestmark = pytest.mark.django_db

AGREEMENT = [
    ["Kendall's tau-b", "kendall_tau_b", "-1.0000", "2"],
    ["AP correlation tau_AP,b", "tauap_b", "-1.0000", "2"],
    ["Kendall's tau-b of the original top 10", "kendall@10", "-1.0000", "2"],
    ["RBO (p = 0.9), extrapolated", "rbo", "0.9000", "2"],
]


def test_the_command_prints_the_agreement_and_each_runs_rbp(refined):
    out = io.StringIO()
    call_command("rebenchmark", "holes", "--refined", "test-dream", "--no-intervals", stdout=out)
    text = out.getvalue()
    title = "Ranking agreement: original vs refined qrels (debate labels) leaderboard (nDCG@10)"
    assert title in text
    lines = [line.split() for line in text.splitlines()]
    assert "Kendall's tau-b kendall_tau_b -1.0000 2".split() in lines
    assert "AP correlation tau_AP,b tauap_b -1.0000 2".split() in lines
    assert "RBO (p = 0.9), extrapolated rbo 0.9000 2".split() in lines
    alpha = next(line for line in lines if line[:4] == ["alpha", "2", "1", "+1"])
    assert alpha[-6:] == ["0.1600", "+", "0.7760", "0.2600", "+", "0.5760"]
    beta = next(line for line in lines if line[:4] == ["beta", "1", "2", "-1"])
    assert beta[-6:] == ["0.1800", "+", "0.6400", "0.2440", "+", "0.5120"]


def test_the_page_shows_the_block_and_the_rbp_columns(refined, client_as):
    url = reverse("refined:rebenchmark", args=["holes"]) + "?original=test&refined=test-dream"
    html = client_as("researcher").get(url).content.decode()
    tables = html_tables(html)
    assert tables[3] == [["measure", "name", "value", "n"], *AGREEMENT]
    assert 'id="ranking-agreement"' in html
    changes = tables[2]
    assert changes[0][-2:] == ["RBP(p=0.8) original + residual", "RBP(p=0.8) refined + residual"]
    assert changes[1][0] == "alpha" and changes[1][-2:] == ["0.1600 + 0.7760", "0.2600 + 0.5760"]


def test_the_api_json_holds_the_measures_under_their_names(refined, api_as):
    body = api_as("researcher").get("/api/v1/datasets/holes/refined/test-dream/rebenchmark").json()
    assert body["kendall_tau_b"]["value"] == pytest.approx(-1.0)
    assert body["kendall_tau_b"]["n"] == 2
    assert body["tauap_b"] == {"value": pytest.approx(-1.0), "n": 2}
    assert body["kendall@10"] == {"value": pytest.approx(-1.0), "k": 10, "n": 2}
    assert body["rbo"] == {"value": pytest.approx(0.9), "p": 0.9, "n": 2}
    assert body["rbp"]["beta"] == {
        "p": 0.8, "base": pytest.approx(0.244), "residual": pytest.approx(0.512),
    }  # fmt: skip
    assert body["rbp_original"]["alpha"] == {
        "p": 0.8, "base": pytest.approx(0.16), "residual": pytest.approx(0.776),
    }  # fmt: skip
    assert body["tables"][-1]["rows"] == AGREEMENT
    assert "intervals" in body


def test_the_datasheet_states_them(refined, tmp_path):
    refined = refined_at_share(refined, 0.5)
    benchmark_zip_write(qrel_set=refined.refined, path=tmp_path / "b.zip")
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        readme = archive.read("holes/README.md").decode()
    section = readme.split("## Ranking agreement of the original and refined leaderboards")[1]
    section = section.split("\n## ")[0]
    tau_b = "- Kendall's tau-b, original vs refined qrels (debate labels) (`kendall_tau_b`)"
    assert f"{tau_b}: -1.000, n = 2 runs" in section
    assert "- AP correlation tau_AP,b (`tauap_b`): -1.000, n = 2 (Yilmaz" in section
    assert "- Kendall's tau-b of the original top 10 (`kendall@10`): -1.000, n = 2" in section
    assert "- RBO, p = 0.9, extrapolated (`rbo`): 0.900, n = 2 (Webber" in section
    assert "  - `alpha`: 0.1600 + 0.7760 → 0.2600 + 0.5760" in section
    assert "  - `beta`: 0.1800 + 0.6400 → 0.2440 + 0.5120" in section


def test_a_hostile_run_name_stays_inert_and_undefined_values_say_why():
    ranking = RankingSheet(
        runs=1, kendall_tau_b=None, tauap_b=None, kendall_at_k=None, rbo=None, k_runs=1,
        rbp={HOSTILE_NAME + "\n## Injected": RbpCell(0.1, 0.2, 0.3, 0.4)},
    )  # fmt: skip
    text = datasheet_render(sheet=sheet(intervals=IntervalsSheet(ranking=ranking)))
    tau_b = "- Kendall's tau-b, original vs refined qrels (debate labels) (`kendall_tau_b`)"
    assert f"{tau_b}: undefined (fewer than 2 runs" in text
    assert "  - `# x](javascript:alert(1)) ## Injected`: 0.1000 + 0.2000 → 0.3000 + 0.4000" in text
    html = render_html(text)
    assert "<a " not in html and "<h2>Injected</h2>" not in html
    assert "Not computed for this file." in datasheet_render(sheet=sheet())
