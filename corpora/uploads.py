"""Uploaded files made safe to import: archives unpacked without escaping their folder, a
BEIR folder found inside, and error messages that name the file as the uploader knows it.
No database.

An uploaded archive is untrusted. :func:`archive_extract` unpacks a ``.zip``, ``.tar.gz`` /
``.tgz`` or ``.tar`` into a fresh folder and refuses, before writing anything, members with
absolute paths or ``..`` (zip slip), links, devices, more than :data:`MAX_MEMBERS` members or
more than ``max_bytes`` unpacked in all (a zip bomb is refused by the sizes its directory
declares and again while writing, since a declared size can lie).
"""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

from .formats import FormatError

MAX_MEMBERS = 10_000
_CHUNK = 1 << 20
BEIR_FILES = ("corpus.jsonl", "corpus.jsonl.gz")


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
