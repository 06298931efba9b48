"""Uploaded files made safe to import: archives unpacked without escaping their folder, a
BEIR folder found inside, and error messages that name the file as the uploader knows it.
No database.

An uploaded archive is untrusted. :func:`archive_extract` unpacks a ``.zip``, ``.tar.gz`` /
``.tgz`` or ``.tar`` into a fresh folder and refuses, before writing anything, members with
absolute paths or ``..`` (zip slip), links, devices, more than :data:`MAX_MEMBERS` members or
more than ``max_bytes`` unpacked in all (a zip bomb is refused by the sizes its directory
declares and again while writing, since a declared size can lie).

The files an import then reads are held to the same ``max_bytes`` (:func:`upload_read_check`,
before anything is imported): a ``.gz`` inside an archive, or uploaded on its own, counts as
the bytes it decompresses to, so a few hundred bytes of gzip cannot import gigabytes; and no
line of them may be longer than :data:`MAX_LINE_BYTES`, since a reader holds a whole line in
memory. Files an operator imports with a command are not checked.
"""

from __future__ import annotations

import gzip
import io
import shutil
import tarfile
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from .formats import FormatError, beir_file_find, beir_qrels_files

MAX_MEMBERS = 10_000
_CHUNK = 1 << 20
BEIR_FILES = ("corpus.jsonl", "corpus.jsonl.gz")
# The longest line of an uploaded file a reader may meet (bytes, newline excluded): a whole
# line is held in memory while it is parsed. A BEIR document is a few kilobytes.
MAX_LINE_BYTES = 64 * 1024**2


class UploadError(ValueError):
    """An upload that cannot be used; the message names the file as uploaded."""


def _member_path(name: str, archive: str) -> PurePosixPath:
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        raise UploadError(f"{archive}: member {name!r} would be written outside the folder")
    return path


def _copy_limited(source, target: Path, budget: list[int], archive: str) -> None:
    with target.open("wb") as out:
        while chunk := source.read(_CHUNK):
            budget[0] -= len(chunk)
            if budget[0] < 0:
                raise UploadError(f"{archive}: unpacks to more than the limit")
            out.write(chunk)


def _zip_extract(path: Path, dest: Path, name: str, max_bytes: int) -> None:
    with zipfile.ZipFile(path) as archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise UploadError(f"{name}: more than {MAX_MEMBERS:,} files")
        if sum(m.file_size for m in members) > max_bytes:
            raise UploadError(f"{name}: unpacks to more than {max_bytes:,} bytes")
        for member in members:
            # A symbolic link is stored with the S_IFLNK bits in the high external attributes.
            if (member.external_attr >> 16) & 0o170000 == 0o120000:
                raise UploadError(f"{name}: member {member.filename!r} is a link")
            _member_path(member.filename, name)
        budget = [max_bytes]
        for member in members:
            target = dest / _member_path(member.filename, name)
            if member.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as source:
                _copy_limited(source, target, budget, name)


def _tar_extract(path: Path, dest: Path, name: str, max_bytes: int) -> None:
    with tarfile.open(path) as archive:
        members: list[tarfile.TarInfo] = []
        total = 0
        for member in archive:
            if len(members) >= MAX_MEMBERS:
                raise UploadError(f"{name}: more than {MAX_MEMBERS:,} files")
            if not (member.isfile() or member.isdir()):
                raise UploadError(f"{name}: member {member.name!r} is a link or a device")
            _member_path(member.name, name)
            total += member.size
            if total > max_bytes:
                raise UploadError(f"{name}: unpacks to more than {max_bytes:,} bytes")
            members.append(member)
        budget = [max_bytes]
        for member in members:
            target = dest / _member_path(member.name, name)
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            source = archive.extractfile(member)
            if source is None:  # not a regular file after all
                raise UploadError(f"{name}: member {member.name!r} is not a file")
            with source:
                _copy_limited(source, target, budget, name)


def archive_extract(*, path: Path, dest: Path, name: str, max_bytes: int) -> Path:
    """Unpack the archive at ``path`` (uploaded as ``name``) into the new folder ``dest``;
    returns ``dest``. Raises :class:`UploadError` for an archive that is not a zip or tar,
    is corrupt, or breaks a rule of the module docstring; ``dest`` is then removed."""
    dest.mkdir(parents=True)
    try:
        if zipfile.is_zipfile(path):
            _zip_extract(path, dest, name, max_bytes)
        elif tarfile.is_tarfile(path):
            _tar_extract(path, dest, name, max_bytes)
        else:
            raise UploadError(f"{name}: not a .zip or .tar.gz archive")
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        shutil.rmtree(dest, ignore_errors=True)
        raise UploadError(f"{name}: cannot unpack ({type(exc).__name__}: {exc})") from None
    except UploadError:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    return dest


def beir_folder_find(root: Path) -> Path:
    """The folder under ``root`` holding ``corpus.jsonl[.gz]``: ``root`` itself, or the one
    folder in it that does (an archive of ``scifact/`` holds everything in ``scifact/``).
    Raises :class:`FormatError` naming what is missing."""
    candidates = [root] + sorted(p for p in root.iterdir() if p.is_dir())
    found = [p for p in candidates if any((p / f).is_file() for f in BEIR_FILES)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise FormatError(
            "the upload", None, "no corpus.jsonl or corpus.jsonl.gz at its top or in one folder"
        )
    raise FormatError("the upload", None, "several folders hold a corpus; upload one benchmark")


def error_relative(message: str, root: Path) -> str:
    """``message`` with the upload folder's absolute path taken out, so a ``file:line:``
    error names the file as it is inside the upload (``scifact/qrels/test.tsv:3: ...``;
    separate BEIR files by their BEIR names, ``qrels/test.tsv:3: ...``)."""
    base = str(root).rstrip("/")
    for folder in ("unpacked/", "beir/", "qrels/", "run/", ""):
        message = message.replace(f"{base}/{folder}", "")
    return message.replace(base, "the upload")


def beir_files_read(folder: Path) -> list[Path]:
    """The files of the BEIR ``folder`` an import reads (those present), each once, as the
    import picks them (:func:`corpora.formats.beir_file_find`,
    :func:`~corpora.formats.beir_qrels_files`): ``corpus.jsonl`` and ``queries.jsonl``, each
    plain when both it and its ``.gz`` are there, then one file per qrels split (by path). A
    file the import leaves unread is not counted against the upload's limit."""
    found = [beir_file_find(folder, stem) for stem in ("corpus", "queries")]
    return [p for p in found if p is not None] + sorted(beir_qrels_files(folder).values())


def _long_line(
    handle: io.BufferedIOBase, budget: list[int], limit: str, max_line: int
) -> int | None:
    """The 1-based number of the first line of ``handle`` longer than ``max_line`` bytes
    (newline excluded), or None. Reads pieces of at most ``max_line`` bytes (``read1``: what
    a damaged gzip stream gave before its damage is counted too), taking them off
    ``budget[0]``; past it raises :class:`UploadError` saying ``limit``. A piece is never
    longer than ``max_line``, so only a line running across pieces (up to a piece's first
    newline, or after its last) can be too long."""
    line, run = 1, 0  # the line being read and its bytes so far
    while piece := handle.read1(min(_CHUNK, max_line)):
        budget[0] -= len(piece)
        if budget[0] < 0:
            raise UploadError(limit)
        ends = piece.count(b"\n")
        if ends and run + piece.find(b"\n") > max_line:
            return line
        if ends:
            line += ends
            run = len(piece) - piece.rfind(b"\n") - 1
        else:
            run += len(piece)
        if run > max_line:
            return line
    return None


def upload_read_check(*, paths: Iterable[Path], max_bytes: int, max_line: int | None = None) -> int:
    """Check, before an import reads them, the uploaded files at ``paths``: in all at most
    ``max_bytes`` bytes (``DREAM_UPLOAD_MAX_UNPACKED_BYTES``) once every ``.gz`` among them is
    decompressed, and no line longer than ``max_line`` bytes (None: :data:`MAX_LINE_BYTES`
    as it is when called). Reads each file once, a piece at
    a time (memory bounded by ``max_line``, at most 1 MiB); writes nothing. Returns the bytes
    read. Raises :class:`UploadError` naming the file, e.g. ``.../corpus.jsonl.gz: unpacks to
    more than the upload's limit of 100,000 bytes`` or ``.../corpus.jsonl:3: a line longer
    than 67,108,864 bytes``. A file that cannot be read or decompressed is left to the import,
    whose error names the line."""
    max_line = max_line or MAX_LINE_BYTES
    budget = [max_bytes]
    for path in paths:
        opener = gzip.open if path.name.endswith(".gz") else open
        limit = f"{path}: unpacks to more than the upload's limit of {max_bytes:,} bytes"
        try:
            with opener(path, "rb") as handle:
                long_line = _long_line(handle, budget, limit, max_line)
        except (OSError, EOFError, zlib.error):
            continue  # a damaged file: the import names the line it cannot read
        if long_line is not None:
            raise UploadError(f"{path}:{long_line}: a line longer than {max_line:,} bytes")
    return max_bytes - budget[0]
