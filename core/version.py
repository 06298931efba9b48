"""Which DREAM Assess wrote a file: the package version in ``pyproject.toml`` and, when the
code runs from a git checkout, the commit it was checked out at. Read once per process (the
code cannot change under a running process) and never raises: a file a reviewer cites must
still be written when the version cannot be read, so what is missing reads "unknown".
"""

from __future__ import annotations

import functools
import os
import subprocess
import tomllib
from pathlib import Path

# The checkout's top folder: core/ sits directly under it, beside pyproject.toml and .git.
ROOT = Path(__file__).resolve().parent.parent
# A `git rev-parse` that takes longer than this gives "unknown" rather than hold up an export.
GIT_TIMEOUT_SECONDS = 5


def package_version(root: Path = ROOT) -> str:
    """``project.version`` of ``root``/pyproject.toml (e.g. "0.1.0"), "unknown" when the file
    or the key is missing or unreadable."""
    try:
        with open(root / "pyproject.toml", "rb") as f:
            version = tomllib.load(f)["project"]["version"]
    except (OSError, KeyError, TypeError, tomllib.TOMLDecodeError):
        return "unknown"
    return str(version) if version else "unknown"


def git_commit(root: Path = ROOT) -> str:
    """The commit ``root`` is checked out at, as ``git describe --always --dirty
    --abbrev=7`` names it (its short hash, ``-dirty`` after it when tracked files differ
    from it, so that a modified checkout never cites a clean commit), "unknown" when
    ``root`` holds no ``.git`` (a directory, or a worktree's file), git is missing, fails or
    takes over :data:`GIT_TIMEOUT_SECONDS`."""
    if not (root / ".git").exists():
        return "unknown"
    try:
        # Fixed arguments and no shell: nothing from outside reaches the command line.
        done = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=7"],
            cwd=root,
            # The checkout's own repository, whatever GIT_DIR the process was given.
            env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else "unknown"


def software_text(root: Path = ROOT) -> str:
    """``DREAM Assess 0.1.0 (commit 1a2b3c4)``; either part "unknown" when it cannot be
    read (:func:`package_version`, :func:`git_commit`)."""
    return f"DREAM Assess {package_version(root)} (commit {git_commit(root)})"


@functools.cache
def software() -> str:
    """:func:`software_text` of this checkout, read once per process."""
    return software_text()
