"""`./dream demo`, as a newcomer runs it: in a throwaway copy of the repository with no
virtual environment, no database and no broker (the embedded defaults: SQLite, in-process
tasks, the embedded LLM), on a small query limit. It must create its own virtual
environment, print the re-benchmark table, write refined qrels that parse, and serve the
login page. Then, in Chromium against that server, the demo annotator judges every
escalated pair (the embedded model often escalates none) and the audits of agreed labels
(the demo audits a quarter of them), the demo admin finds the audit's estimate on
the job page and refines again, and the demo researcher downloads TREC qrels with original +
consensus + human rows.

Slow: the fresh virtual environment installs from pip's cache (minutes), and the dense run
encodes the 5,183 bundled SciFact documents on CPU.
"""

import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

from assess.review.agreement import wilson_interval
from corpora.formats import parse_trec_qrels
from tests.fixtures.annot import DEMO_ACCOUNT
from tests.fixtures.browser import browser_login, judge_everything

DEMO_TIMEOUT = 40 * 60
SERVING = "Serving the web UI on"
# What a newcomer's shell holds: the tools and the proxy/pip settings that reach the package
# registries, and none of the developer's project settings (DATABASE_URL, CELERY_BROKER_URL,
# PYTHONUNBUFFERED, DREAM_*...).
INHERITED = ("HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TERM", "TMPDIR", "SHELL")
INHERITED_PREFIXES = (
    "PIP_",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT",
    "REQUESTS_CA_BUNDLE",
)


def _copy_repository(dest: Path) -> None:
    """The files a clone would have: tracked and new files, not .venv, var/ or caches."""
    src = Path(settings.BASE_DIR)
    if (src / ".git").exists():
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=src,
            check=True,
            capture_output=True,
        ).stdout.decode()
        for name in filter(None, listed.split("\0")):
            if (src / name).is_file():
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src / name, dest / name)
    else:
        shutil.copytree(
            src,
            dest,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns(".venv", "var", "__pycache__", "test-artifacts"),
        )


def _newcomer_env() -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k in INHERITED or k.startswith(INHERITED_PREFIXES)
    }
    # PATH without any virtual environment of this test run (the newcomer has none).
    ours = {str(Path(settings.BASE_DIR) / ".venv" / "bin"), str(Path(sys.executable).parent)}
    env["PATH"] = os.pathsep.join(
        p for p in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep) if p not in ours
    )
    return env


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(log: Path, proc: subprocess.Popen, text: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        printed = log.read_text(errors="replace")
        if text in printed:
            return printed
        if proc.poll() is not None:
            pytest.fail(f"./dream demo exited with {proc.returncode}:\n{printed[-4000:]}")
        time.sleep(2)
    pytest.fail(f"no {text!r} after {timeout:.0f} s:\n{log.read_text(errors='replace')[-4000:]}")


def _get(url: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                assert response.status == 200
                return response.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


@pytest.fixture(name="demo")
def demo_fixture(tmp_path_factory):
    """``./dream demo --queries 1 --rounds 1`` running in a fresh copy (the demo's pool depth,
    10, so that its audit share draws pairs): yields
    ``(base_url, printed text, copy folder)`` once the server is up; stops it afterwards."""
    repo = tmp_path_factory.mktemp("fresh") / "dream-assess"
    repo.mkdir()
    _copy_repository(repo)
    assert not (repo / ".venv").exists() and not (repo / "var").exists()
    port = _free_port()
    log = repo.parent / "demo.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                "./dream",
                "demo",
                "--queries=1",
                "--rounds=1",
                f"--addr=127.0.0.1:{port}",
            ],
            cwd=repo,
            env=_newcomer_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        printed = _wait_for(log, proc, SERVING, DEMO_TIMEOUT)
        yield f"http://127.0.0.1:{port}", printed, repo
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        # The copy's .venv weighs gigabytes; demo.log (beside the copy) stays for reading.
        shutil.rmtree(repo, ignore_errors=True)


def _download_trec(page, base_url: str, name: str, dest: Path) -> list:
    page.goto(f"{base_url}/datasets/scifact/refined/{name}/")
    page.click("#export-trec button[type=submit]")
    link = page.wait_for_selector("#export-trec a[download]", timeout=120_000)
    with page.expect_download() as download:
        link.click()
    download.value.save_as(dest)
    return list(parse_trec_qrels(dest))


@pytest.mark.slow
def test_the_demo_runs_from_a_fresh_copy_and_serves_what_it_refined(demo, browser_page, tmp_path):
    base_url, printed, repo = demo
    assert "creating virtual environment" in printed
    assert (repo / ".venv" / "bin" / "python").exists()
    assert (repo / "var" / "dream.sqlite3").exists()  # the embedded default database
    assert "Leaderboard on the original qrels" in printed
    assert "Leaderboard on the refined qrels" in printed

    debates = re.search(
        r"debates: (\d+) pairs: (\d+) agreed, (\d+) escalated to humans, (\d+) failed", printed
    )
    assert debates, printed[-4000:]
    pairs, agreed, escalated, failed = map(int, debates.groups())
    assert pairs == agreed + escalated + failed > 0
    summary = re.search(
        r"refined qrels: (\d+) rows = (\d+) original \+ (\d+) new labels; (\d+) pairs? pending"
        r" .*→ (\S+)",
        printed,
    )
    assert summary, printed[-4000:]
    rows, original, new, pending = map(int, summary.groups()[:4])
    assert (original, new, pending) == (339, agreed, escalated + failed)
    refined_file = Path(summary.group(5))
    assert refined_file.is_relative_to(repo) and refined_file.exists()
    assert len(list(parse_trec_qrels(refined_file))) == rows == original + agreed

    login = _get(f"{base_url}/login/")
    assert 'id="id_username"' in login and 'name="password"' in login

    accounts = {role: (user, password) for role, user, password in DEMO_ACCOUNT.findall(printed)}
    assert set(accounts) == {"admin", "annotator", "researcher"}
    # The queue: the escalated pairs (often none with the embedded model) and the audits, a
    # reproducible sample of a quarter of the agreed pairs (the demo's audit share).
    with sqlite3.connect(repo / "var" / "dream.sqlite3") as db:
        kinds = dict(db.execute("SELECT kind, COUNT(*) FROM assess_reviewitem GROUP BY kind"))
    assert kinds.get("escalated", 0) == escalated
    audits = kinds.get("audit", 0)
    assert audits > 0, printed[-4000:]
    told = re.search(
        r"For humans: (\d+) escalated pairs? and (\d+) audits? of agreed labels \(audit share "
        r"25%\).*?job (\d+)'s page \(/jobs/\d+/",
        printed,
        re.S,
    )
    assert told, printed[-4000:]
    assert (int(told.group(1)), int(told.group(2))) == (escalated, audits)
    job_id = int(told.group(3))
    page = browser_page
    browser_login(page, base_url, "/judge/", *accounts["annotator"])
    judged = judge_everything(page)
    # Known-answer pairs came among the audits (the demo's gold share, a quarter), each on
    # the annotator's own item, made when it was served.
    with sqlite3.connect(repo / "var" / "dream.sqlite3") as db:
        (golds,) = db.execute(
            "SELECT COUNT(*) FROM assess_reviewitem WHERE kind = 'gold'"
        ).fetchone()
        answers = db.execute(
            "SELECT g.label, j.label FROM assess_judgment j "
            "JOIN assess_reviewitem r ON r.id = j.item_id "
            "JOIN assess_goldpair g ON g.id = r.gold_id WHERE j.undone_at IS NULL"
        ).fetchall()
    assert golds > 0 and len(answers) == golds
    assert judged == sum(kinds.values()) + golds

    # The annotators page shows the demo annotator's accuracy with its 95% interval.
    page.context.clear_cookies()
    browser_login(page, base_url, "/review/annotators/", *accounts["admin"])
    right = sum((given >= 1) == (known >= 1) for known, given in answers)
    accuracy = wilson_interval(right, len(answers))
    assert page.inner_text(f"#annotator-{accounts['annotator'][0]} .gold-accuracy") == (
        f"{round(accuracy.estimate * 100)}% ({right} of {len(answers)}; 95% CI "
        f"{round(accuracy.low * 100)}–{round(accuracy.high * 100)}%)"
    )

    # The job page now shows the audit's estimate with its 95% Wilson interval.
    page.context.clear_cookies()
    browser_login(page, base_url, f"/jobs/{job_id}/", *accounts["admin"])
    estimate = re.search(
        r"Estimated error rate of consensus labels: ([\d.]+) \((\d+) of (\d+) audited pairs\), "
        r"95% confidence interval ([\d.]+)–([\d.]+) \(Wilson\)",
        page.inner_text("#job-audit"),
    )
    assert estimate, page.inner_text("#job-audit")
    wrong, n = int(estimate.group(2)), int(estimate.group(3))
    assert n == audits
    wilson = wilson_interval(wrong, n)
    assert [float(estimate.group(i)) for i in (1, 4, 5)] == [
        round(wilson.estimate, 3),
        round(wilson.low, 3),
        round(wilson.high, 3),
    ]

    page.goto(f"{base_url}/datasets/scifact/refined/")
    name = page.input_value("#id_name")
    if failed:
        page.check("#id_allow_partial")  # failed debates stay pending
    page.click("#refine-submit")
    # Refining runs in the background: the form answers at once with the operation's page,
    # which polls until the link to the new set (the timeout only limits a hang).
    page.wait_for_url("**/datasets/scifact/refined/new/*/")
    page.click("#refined-set", timeout=120_000)
    page.wait_for_url(f"**/datasets/scifact/refined/{name}/")

    page.context.clear_cookies()
    browser_login(page, base_url, f"/datasets/scifact/refined/{name}/", *accounts["researcher"])
    downloaded = _download_trec(page, base_url, name, tmp_path / "refined.trec")
    assert len(downloaded) == original + agreed + escalated
