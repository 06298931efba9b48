"""``simulate_study``: the command the checks call, its JSON keys, its reproducibility and
its refusals (a small dataset with two imported runs; every label is simulated)."""

import io
import json
import re

import pytest
from django.core.management import CommandError, call_command

from debates.audit_design import NEYMAN_PILOT
from tests.fixtures.datasets import write_beir
from tests.fixtures.pooling import run_file

pytestmark = pytest.mark.django_db

DOCS = [{"_id": f"d{i}", "title": "", "text": f"text {i}"} for i in range(1, 21)]
QUERIES = [{"_id": f"q{i}", "text": f"query {i}"} for i in range(1, 7)]
# Each query judges three documents relevant and one not.
QRELS = (
    "query-id\tcorpus-id\tscore\n"
    + "".join(f"q{q}\td{q + k}\t1\n" for q in range(1, 7) for k in range(3))
    + "".join(f"q{q}\td{q + 10}\t0\n" for q in range(1, 7))
)


@pytest.fixture
def study(tmp_path, import_run):
    from corpora.services import dataset_import_beir

    folder = write_beir(tmp_path / "study", corpus=DOCS, queries=QUERIES, qrels={"test": QRELS})
    dataset = dataset_import_beir(path=folder, name="study")
    for name, shift in (("r1", 0), ("r2", 2)):
        lines = [
            f"q{q} Q0 d{(q + shift + r) % 20 + 1} {r + 1} {10 - r} {name}"
            for q in range(1, 7)
            for r in range(10)
        ]
        import_run(dataset, name, lines)
    return dataset, folder / "qrels" / "test.tsv"


def run_study(truth, *extra):
    out = io.StringIO()
    call_command(
        "simulate_study",
        "study",
        "--truth",
        str(truth),
        "--runs",
        "r1,r2",
        "--replications",
        "30",
        "--json",
        *extra,
        stdout=out,
    )
    return json.loads(out.getvalue())


def test_the_json_has_the_interface_keys_and_the_same_seed_gives_the_same_numbers(study):
    _dataset, truth = study
    first = run_study(truth)
    assert first["replications"] == 30
    assert first["systems"] == 2
    assert first["queries"] == 6
    assert first["labels"] == "simulated"
    assert first["human_labels"] > 0
    assert set(first["methods"]) == {"ppi", "llm_only", "human_only"}
    for method in first["methods"].values():
        # Every method made its 60 intervals, and none is a point (the debaters err).
        assert (method["intervals"], method["failures"]) == (60, 0)
        assert method["mean_width"] > 0.0
    # At the default 10% audit most of this six-query world's values rest on fewer than 5
    # audited labels, so both methods give most of their whole range; with half the agreed
    # labels audited the values rest on enough labels to compare widths at the same labels.
    half = run_study(truth, "--audit-share", "0.5")
    # 32 of 60 at seed 1 (24 when n_b counted every pair with a slope; its effective size,
    # interval_range.sample_bears_on, is smaller where a few pairs' terms dominate).
    assert half["methods"]["ppi"]["whole_range_intervals"] < 40
    assert half["methods"]["human_only"]["mean_width"] > half["methods"]["ppi"]["mean_width"]
    assert run_study(truth) == first
    assert run_study(truth, "--seed", "2") != first


def test_a_perfect_debater_with_a_full_audit_gives_the_true_value_every_time(study):
    _dataset, truth = study
    result = run_study(truth, "--sensitivity", "1", "--specificity", "1", "--audit-share", "1")
    assert result["methods"]["ppi"]["coverage"] == 1.0
    assert result["methods"]["ppi"]["mean_width"] == 0.0


def test_a_truth_file_naming_an_unknown_document_is_refused_with_file_and_line(study, tmp_path):
    _dataset, _truth = study
    bad = tmp_path / "truth.tsv"
    bad.write_text(run_file(["query-id\tcorpus-id\tscore", "q1\td1\t1", "q1\tnope\t1"]))
    with pytest.raises(CommandError, match=rf"{bad}:3: document 'nope' is not in study"):
        run_study(bad)


def test_an_unknown_run_or_a_bad_share_is_refused_by_name(study):
    _dataset, truth = study
    out = io.StringIO()
    with pytest.raises(CommandError, match="run 'bm25x' does not exist"):
        call_command(
            "simulate_study",
            "study",
            "--truth",
            str(truth),
            "--runs",
            "bm25x",
            "--json",
            stdout=out,
        )
    with pytest.raises(CommandError, match="--audit-share: must be between 0 and 1"):
        run_study(truth, "--audit-share", "1.5")


def test_more_measures_add_their_own_methods_and_comparisons_and_keep_the_headline(study):
    _dataset, truth = study
    first = run_study(truth)
    both = run_study(truth, "--measures", "P@10,R@100")
    # nDCG@10 is always checked first, and adding measures leaves its figures as they were.
    assert list(both["measures"]) == ["nDCG@10", "P@10", "R@100"]
    assert both["methods"] == first["methods"] == both["measures"]["nDCG@10"]["methods"]
    for measure in both["measures"].values():
        assert measure["methods"]["ppi"]["intervals"] == 60
        comparisons = measure["comparisons"]
        # Two systems: one pair per replication, one tau per replication.
        assert comparisons["pairs"] == 30
        assert comparisons["tau"]["intervals"] + comparisons["tau"]["undefined"] == 30


def test_a_perfect_debater_with_a_full_audit_settles_no_pair_the_wrong_way(study):
    _dataset, truth = study
    result = run_study(
        truth, "--sensitivity", "1", "--specificity", "1", "--audit-share", "1",
        "--measures", "P@10",
    )  # fmt: skip
    for measure in result["measures"].values():
        comparisons = measure["comparisons"]
        # Every label is right: each difference is the true one, as is tau.
        assert comparisons["coverage"] == 1.0
        assert comparisons["mean_width"] == 0.0
        assert comparisons["wrongly_settled"] == 0
        assert comparisons["tau"]["coverage"] in (1.0, None)


def test_an_unknown_measure_is_refused_naming_the_flag_and_only_what_was_typed(study):
    _dataset, truth = study
    with pytest.raises(CommandError) as refused:
        run_study(truth, "--measures", "MAP")
    # nDCG@10, always checked, is not reported as if the user had typed it.
    assert str(refused.value) == (
        "--measures: unknown measure MAP; each must be one of nDCG@10, P@10, R@100"
    )


def test_an_audit_share_of_zero_is_refused_before_any_replication_runs(study):
    _dataset, truth = study
    with pytest.raises(CommandError, match=r"--audit-share: intervals need an audit share > 0"):
        run_study(truth, "--audit-share", "0")


def test_one_replication_of_a_simulated_study_is_one_replication(study):
    _dataset, truth = study
    out = io.StringIO()
    call_command(
        "simulate_study", "study", "--truth", str(truth), "--runs", "r1,r2",
        "--replications", "1", stdout=out,
    )  # fmt: skip
    assert out.getvalue().startswith(
        "simulated study of study (SIMULATED labels): 1 replication, 2 systems, 6 queries; mean "
        "per replication "
    )
    # The table counts, beside each coverage, the intervals spanning every value the labels
    # allow (covered by construction) and the replications without an interval.
    header = next(line for line in out.getvalue().splitlines() if line.startswith("measure "))
    assert (
        "mean width  mean error (se)    intervals  whole range  failures  lowest system" in header
    )
    # One replication: a mean error, and no standard error to give.
    row = next(line for line in out.getvalue().splitlines() if line.startswith("nDCG@10   ppi "))
    assert re.search(r"  [+-]\d\.\d{4}  ", row) and "(" not in row.split("]", 1)[1]


def test_the_table_shows_each_coverages_interval_and_with_erring_annotators_their_value(study):
    # What --json gives is in the table too: a coverage is read with its interval, and with
    # erring annotators beside the coverage of their value, which is what the intervals aim at.
    _dataset, truth = study
    out = io.StringIO()
    call_command(
        "simulate_study", "study", "--truth", str(truth), "--runs", "r1,r2",
        "--replications", "20", "--annotator-error", "0.2", stdout=out,
    )  # fmt: skip
    text = out.getvalue()
    payload = run_study(truth, "--replications", "20", "--annotator-error", "0.2")
    ppi = payload["methods"]["ppi"]
    low, high = ppi["coverage_interval"]
    row = next(line for line in text.splitlines() if line.startswith("nDCG@10   ppi "))
    assert row.startswith(f"nDCG@10   ppi         {ppi['coverage']:.3f} [{low:.3f}, {high:.3f}]")
    assert f"{ppi['coverage_of_annotators_value']:.3f}" in row.split("]", 1)[1]
    assert "of annotators' value" in next(line for line in text.splitlines() if "method" in line)
    assert "The simulated annotators err (0.2)" in text
    # Means per replication are printed as counts are: with thousands separators, 1 decimal.
    assert re.search(
        r"mean per replication [\d,]+(\.\d)? pooled pairs, .* [\d,]+(\.\d)? simulated LLM "
        r"calls \(none made\)",
        text,
    )
    # The mean error with its standard error over the 20 replications.
    assert f"{ppi['mean_error']:+.4f} ({ppi['mean_error_se']:.4f})" in row
    # Two systems: tau is 1 or -1, so its interval is a point or the whole range.
    assert (
        "(two systems: tau is 1 or -1, its interval one of them when the pair is settled, else "
        "the whole range: read the pair difference)"
    ) in text


def test_a_run_that_ranks_few_of_the_truths_queries_is_refused_naming_the_fix(study, import_run):
    # r3 was made over another split: it ranks q1 alone, so q2-q6 would score 0 for it
    # whatever the labels, and the study would measure that.
    dataset, truth = study
    import_run(dataset, "r3", [f"q1 Q0 d{r + 1} {r + 1} {10 - r} r3" for r in range(10)])
    with pytest.raises(CommandError, match=r"run 'r3' ranks no document for 5 of the truth"):
        call_command(
            "simulate_study", "study", "--truth", str(truth), "--runs", "r1,r3",
            "--replications", "1",
        )  # fmt: skip


def test_the_json_states_the_audit_design_and_share_and_the_audited_labels_apart(study):
    _dataset, truth = study
    neyman = run_study(truth, "--audit-design", "neyman", "--audit-share", "0.4")
    assert (neyman["audit_design"], neyman["audit_share"]) == ("neyman", 0.4)
    # The human labels are the escalated pairs' and the audits', each mean kept as it was.
    assert neyman["escalated"] > 0 and neyman["audited_labels"] > 0
    assert neyman["audited_labels"] == pytest.approx(
        neyman["human_labels"] - neyman["escalated"], abs=0.011
    )
    assert set(neyman["methods"]) == {"ppi", "llm_only", "human_only"}
    assert {"coverage", "mean_width"} <= set(neyman["methods"]["ppi"])
    # Debaters that never err nor hold a stance agree on every pair: nothing escalates, and a
    # full audit labels every pooled pair.
    full = run_study(
        truth, "--sensitivity", "1", "--specificity", "1", "--persistence", "0",
        "--audit-share", "1",
    )  # fmt: skip
    assert (full["audit_design"], full["audit_share"], full["escalated"]) == ("uniform", 1.0, 0)
    assert full["audited_labels"] == full["human_labels"] == full["pooled_pairs"] > 0


def test_the_table_states_the_audit_design_and_share_it_ran_with(study):
    _dataset, truth = study
    out = io.StringIO()
    call_command(
        "simulate_study", "study", "--truth", str(truth), "--runs", "r1,r2",
        "--replications", "30", "--audit-design", "neyman", "--audit-share", "0.4", stdout=out,
    )  # fmt: skip
    first, second = out.getvalue().splitlines()[:2]
    payload = run_study(truth, "--audit-design", "neyman", "--audit-share", "0.4")

    def mean(value: float) -> str:  # as the table prints a mean per replication
        return f"{value:,.0f}" if value == int(value) else f"{value:,.1f}"

    assert (
        f"{mean(payload['human_labels'])} human labels ({mean(payload['escalated'])} "
        f"escalated, {mean(payload['audited_labels'])} audited), "
    ) in first
    assert second == (
        f"audit: neyman design at a share of 0.4 of agreed labels: Neyman allocation (a pilot "
        f"at {0.4 * NEYMAN_PILOT * 100:.3g}% of agreed labels first; the rest of the share once "
        "the pilot is judged, where it found the debate wrong most often)"
    )


def test_a_strategy_and_budget_judge_part_of_the_depth_pool_and_say_how_much(study):
    # The fixture's depth-10 pool: two runs' top 10 of 6 queries, less the judged pairs.
    _dataset, truth = study
    whole = run_study(truth)
    assert (whole["strategy"], whole["budget"]) == ("depth", None)
    assert whole["pooled_pairs"] == whole["depth_pool_pairs"]
    budgeted = run_study(truth, "--strategy", "bandit", "--budget", "20")
    assert (budgeted["strategy"], budgeted["budget"]) == ("bandit", 20)
    assert (budgeted["pooled_pairs"], budgeted["depth_pool_pairs"]) == (
        20,
        whole["depth_pool_pairs"],
    )
    assert budgeted["llm_calls"] < whole["llm_calls"]
    out = io.StringIO()
    call_command(
        "simulate_study", "study", "--truth", str(truth), "--runs", "r1,r2",
        "--replications", "2", "--strategy", "mtc", "--budget", "0.5", stdout=out,
    )  # fmt: skip
    # Each replication hides other relevant pairs, so its depth pool differs: the means of
    # the same two replications, and half of each pool judged.
    two = run_study(truth, "--replications", "2", "--strategy", "mtc", "--budget", "0.5")
    assert two["pooled_pairs"] < two["depth_pool_pairs"] and two["pooled_pairs"] > 0
    assert (
        f"pool: mtc order, budget 0.5: {two['pooled_pairs']:g} of the depth pool's "
        f"{two['depth_pool_pairs']:g} unjudged pairs judged per replication; the rest stay holes"
    ) in out.getvalue()


@pytest.mark.parametrize("budget", ["0", "1.0", "x"])
def test_an_unfit_budget_is_a_usage_error_before_any_replication(study, budget, capsys):
    _dataset, truth = study
    with pytest.raises(CommandError, match="--budget"):
        call_command("simulate_study", "study", "--truth", str(truth), "--budget", budget, "--json")


def test_the_json_and_the_table_say_the_llm_only_figure_is_no_valid_interval(study):
    # llm_only's coverage swings from setting to setting (it takes the machine labels as
    # right): both outputs say what it is beside the figure, the JSON under "notes".
    _dataset, truth = study
    notes = run_study(truth)["notes"]
    assert any(n.startswith("llm_only is not a valid interval") for n in notes)
    out = io.StringIO()
    call_command(
        "simulate_study", "study", "--truth", str(truth), "--runs", "r1,r2",
        "--replications", "3", stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    assert "llm_only is not a valid interval on the human-completed value" in out.getvalue()
