"""Paths a user types on a command line, read from where the user typed them.

``./dream`` changes to the repository before it runs ``manage.py``, so a relative path would
otherwise be read from the repository, not from the folder the command was typed in. It
exports that folder first as :data:`CALLER_DIR_ENV`; :func:`caller_path` reads a relative path
from it (from the process's own directory when it is not set, e.g. ``python manage.py`` or
``call_command``). Every management command that takes a file or folder of the user's passes
it through :func:`caller_path` (as its argparse ``type``). The paths come out absolute, so
settings that restrict which files may be read (``DREAM_SIMULATION_DIRS``) check the very
file the user named, and a path stored with a job (a truth file, a model file) stays right
whatever directory a worker runs in.
"""

from __future__ import annotations

import os
import re
from pathlib import PurePath

#: The environment variable ``./dream`` sets to the directory it was started from.
CALLER_DIR_ENV = "DREAM_CALLER_DIR"
#: The name commands take for "standard output" instead of a file: never a path.
STDOUT = "-"


def caller_dir() -> str:
    """The directory the user typed the command in: :data:`CALLER_DIR_ENV` when it names an
    absolute path, else the process's current directory."""
    given = os.environ.get(CALLER_DIR_ENV, "")
    return given if os.path.isabs(given) else os.getcwd()


def caller_path(value: str) -> str:
    """``value``, a path typed on a command line, as an absolute path: ``~`` expanded, a
    relative path joined to :func:`caller_dir`, ``..`` and ``.`` steps removed (symlinks are
    kept: a link's name may be the readable one). ``-`` (standard output) and the empty string
    (no path) come back unchanged. Opens nothing; never raises for a missing file (the command
    that reads it says so, naming the absolute path)."""
    if value in (STDOUT, ""):
        return value
    path = os.path.expanduser(value)
    return os.path.normpath(os.path.join(caller_dir(), path))


def source_shown(source: str) -> str:
    """A stored ``source`` (a dataset's) as a user sees it, on every page, API answer and
    export: as given (a citation, "uploaded corpus.jsonl, ..."), but a path on the server
    (an ``import_beir`` folder) only by its last part, ``"imported from arguana"``: the
    server's folders are nobody's business."""
    text = source.strip()
    if not (text.startswith(("/", "~", "./", "../")) or re.match(r"\A[A-Za-z]:[\\/]", text)):
        return source
    name = PurePath(text.replace("\\", "/")).name
    return f"imported from {name}" if name else "imported from a folder on the server"
