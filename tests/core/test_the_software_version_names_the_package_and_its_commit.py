"""A file a reviewer cites names the DREAM Assess that wrote it: pyproject.toml's version
and, in a git checkout, the commit (``git describe --always --dirty``: a modified checkout
says so); whatever cannot be read is "unknown", and nothing raises."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from core.version import ROOT, git_commit, package_version, software, software_text


def test_a_folder_without_git_gives_the_version_and_an_unknown_commit(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "2.3.4"\n')
    assert software_text(tmp_path) == "DREAM Assess 2.3.4 (commit unknown)"


def test_a_missing_or_broken_pyproject_gives_unknown(tmp_path):
    assert package_version(tmp_path) == "unknown"
    (tmp_path / "pyproject.toml").write_text("[project\nversion = ")
    assert package_version(tmp_path) == "unknown"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert software_text(tmp_path) == "DREAM Assess unknown (commit unknown)"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_git_checkout_gives_its_short_commit(tmp_path):
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(tmp_path)]
    subprocess.run([*git, "init", "-q"], check=True)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0.9"\n')
    subprocess.run([*git, "add", "pyproject.toml"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    head = subprocess.run(
        [*git, "rev-parse", "--short", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    assert len(head) >= 7 and git_commit(tmp_path) == head
    assert software_text(tmp_path) == f"DREAM Assess 0.9 (commit {head})"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "1.0"\n')
    assert software_text(tmp_path) == f"DREAM Assess 1.0 (commit {head}-dirty)"


def test_a_broken_git_folder_gives_an_unknown_commit(tmp_path):
    (tmp_path / ".git").write_text("gitdir: /nowhere\n")
    assert git_commit(tmp_path) == "unknown"


def test_this_checkout_names_pyprojects_version():
    declared = re.search(r'^version = "([^"]+)"$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert declared is not None and package_version(ROOT) == declared.group(1)
    assert software().startswith(f"DREAM Assess {declared.group(1)} (commit ")
