"""Reading and writing benchmark files: BEIR JSONL/TSV, TREC qrels, reference answers.

Pure functions, no database. Every reader streams its file line by line (plain or ``.gz``),
strips a UTF-8 byte-order mark, and reads every line before it raises: one
:class:`FormatError` names the file and each line it cannot read with the reason
(:func:`parse_lines`). Formats follow BEIR (Thakur et al., 2021,
``beir.datasets.data_loader``) and trec_eval's qrels layout ``qid iter docid rel``.

Ids are opaque strings: ``#`` inside an id (MS MARCO style) is part of the id, and ids may not
contain whitespace (as in trec_eval). Anything PostgreSQL cannot store is a FormatError here,
never a database error later: NUL characters and lone surrogates (``"\\ud800"`` escapes) in
any id, text, metadata or answer, and JSON's non-standard ``NaN``/``Infinity``.
"""

from __future__ import annotations

import gzip
import io
import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from core.fixes import OptionFix

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

RELEVANCE_MIN = -127
RELEVANCE_MAX = 127


def relevance_level_check(
    value: object, *, what: str = "the relevance level", top: int = RELEVANCE_MAX, source: str = ""
) -> int:
    """``value`` if it is a whole number from 1 to ``top`` (booleans excluded), the one rule
    for a relevance level (the lowest grade a binary measure counts relevant) and for the
    grade a binary "relevant" label is written as (``what="the relevant grade"``). ``top``
    is :data:`RELEVANCE_MAX` (the highest grade a qrels row can hold) unless the qrels' own
    top grade is known, which ``source`` then names ("the top grade of qrels 'test'").
    Raises ValueError worded, wherever it is refused (page, command, API), as "the relevance
    level must be a whole number from 1 to 127, got 0"."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
        rule = "must be 1" if top == 1 else f"must be a whole number from 1 to {top}"
        raise ValueError(f"{what} {rule}{f' ({source})' if source else ''}, got {value!r}")
    return value


ID_MAX_LENGTH = 200
DUPLICATE_POLICIES = ("keep-max", "keep-last")
# What an import does with a qrels or run row naming an id absent from the dataset: reject the
# whole file (default) or skip the row, counting and listing it (file:line and id).
UNKNOWN_ID_POLICIES = ("reject", "drop")
BEIR_QRELS_HEADER = "query-id\tcorpus-id\tscore\n"
_BOM = b"\xef\xbb\xbf"
# How many offending ids or lines an error message spells out before summarising the rest.
MAX_LISTED = 50


def beir_file_find(folder: Path, stem: str) -> Path | None:
    """The file an import of the BEIR ``folder`` reads for ``stem`` ("corpus", "queries"):
    ``STEM.jsonl`` when it is a file, else ``STEM.jsonl.gz``; None when neither is. The import
    and an upload's size check both ask this, so a folder holding both files is counted as it
    is read: the plain file only."""
    for candidate in (folder / f"{stem}.jsonl", folder / f"{stem}.jsonl.gz"):
        if candidate.is_file():
            return candidate
    return None


def beir_qrels_files(folder: Path) -> dict[str, Path]:
    """{split: file} of the BEIR ``folder``'s ``qrels/SPLIT.tsv`` and ``qrels/SPLIT.tsv.gz``,
    splits in name order; a split with both files is read from ``SPLIT.tsv.gz`` (the later by
    name, as the import has always taken it). {} without a ``qrels`` folder."""
    qrels = folder / "qrels"
    if not qrels.is_dir():
        return {}
    found: dict[str, Path] = {}
    for path in sorted(qrels.iterdir()):
        for suffix in (".tsv.gz", ".tsv"):
            if path.name.endswith(suffix) and path.is_file():
                found[path.name[: -len(suffix)]] = path
                break
    return found


class FormatError(ValueError):
    """A file that cannot be imported. ``str()`` reads ``path:line: reason``.

    ``details`` holds one line per offending record when there are several (duplicates,
    unknown ids, malformed lines), so the whole list reaches the user at once; ``omitted``
    counts those left out of it (said as "... and N more"). ``fix`` is the option that
    would get past it (:class:`core.fixes.OptionFix`), worded after the reason: ``str()`` as
    the command line says it, :meth:`worded` for the API or the browser; ``more_fixes`` the
    options past the other problems of a file refused for several
    (:mod:`corpora.file_problems`), worded after it.
    """

    def __init__(
        self,
        path: str | Path,
        line: int | None,
        reason: str,
        details: Iterable[str] = (),
        *,
        fix: OptionFix | None = None,
        omitted: int = 0,
        more_fixes: Iterable[OptionFix] = (),
    ) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        self.details = list(details)
        self.fix = fix
        self.more_fixes = list(more_fixes)
        self.omitted = omitted  # offending records counted but not in ``details``
        super().__init__(self.worded("cli"))

    def worded(self, interface: str, form: Any = None) -> str:
        """The message with the fix worded for ``interface`` ("cli", "api", "browser" with
        ``form``'s labels, or "plain": without the fix; see :mod:`core.fixes`)."""
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        reason = self.reason
        if self.fix is not None and interface != "plain":
            for fix in (self.fix, *self.more_fixes):
                words = fix.browser_words(form) if interface == "browser" else fix.words(interface)
                reason = f"{reason}; {words}"
        message = f"{where}: {reason}"
        if self.details:
            shown = self.details[:MAX_LISTED]
            message += "\n" + "\n".join(f"  {d}" for d in shown)
            more = len(self.details) - len(shown) + self.omitted
            if more:
                message += f"\n  ... and {more} more"
        return message


class LineErrors:
    """The :class:`FormatError` of each bad line of one file, collected so that one error
    lists them all (:meth:`raise_if_any`): the first :data:`MAX_LISTED` + 1 kept, the rest
    counted. False while empty."""

    def __init__(self, path: str | Path) -> None:
        self.path = path
        self.kept: list[FormatError] = []
        self.count = 0

    def __bool__(self) -> bool:
        return self.count > 0

    def add(self, error: FormatError) -> None:
        self.count += 1
        if len(self.kept) <= MAX_LISTED:
            self.kept.append(error)

    def raise_if_any(self) -> None:
        """Raise nothing when no line was bad; the one error as it was when one line was;
        else one FormatError at the first bad line, with its reason, "(and N more bad
        lines)", and a detail ``line L: reason`` for each other line."""
        if not self.kept:
            return
        first, *rest = self.kept
        if not rest:
            raise first
        more = self.count - 1
        raise FormatError(
            self.path,
            first.line,
            f"{first.reason} (and {more} more bad line{'s' if more > 1 else ''})",
            [f"line {e.line}: {e.reason}" for e in rest],
            omitted=self.count - len(self.kept),
        )


_R = TypeVar("_R")


def _records(
    path: str | Path, read: Callable[[int, str], _R | None], errors: LineErrors
) -> Iterator[_R]:
    """Every record ``read(line_number, text)`` makes of ``path``'s lines; bad lines (and
    where an unreadable file or a broken gzip stream stopped) go to ``errors``."""
    try:
        for number, text in iter_lines(path, errors):
            try:
                record = read(number, text)
            except FormatError as exc:
                errors.add(exc)
                continue
            if record is not None:
                yield record
    except FormatError as exc:  # from iter_lines: the file cannot be read on
        errors.add(exc)


def parse_lines(
    path: str | Path, read: Callable[[int, str], _R | None], empty: str
) -> Iterator[_R]:
    """Stream what ``read(line_number, text)`` makes of each line of ``path`` (None: no
    record, e.g. a blank line). Every line is read; after the first bad line nothing more is
    yielded, and at the end one FormatError names them all (:meth:`LineErrors.raise_if_any`);
    FormatError ``empty`` when no line held a record."""
    errors = LineErrors(path)
    seen_any = False
    for record in _records(path, read, errors):
        seen_any = True
        if not errors:
            yield record
    errors.raise_if_any()
    if not seen_any:
        raise FormatError(path, None, empty)


def parse_all(
    path: str | Path, read: Callable[[int, str], _R | None], empty: str
) -> tuple[list[_R], LineErrors]:
    """Every record of ``path`` (:func:`_records`) and its bad lines, collected, not raised:
    for a file whose rows are checked further (duplicates, unknown ids) before one refusal
    names every problem (:mod:`corpora.file_problems`). Raises FormatError ``empty`` only
    when no line held a record and none was bad."""
    errors = LineErrors(path)
    records = list(_records(path, read, errors))
    if not records and not errors:
        raise FormatError(path, None, empty)
    return records, errors


@dataclass(frozen=True, slots=True)
class DocRecord:
    line: int
    doc_id: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class QueryRecord:
    line: int
    query_id: str
    text: str
    metadata: dict[str, Any]


@dataclass(frozen=True, slots=True)
class QrelRecord:
    line: int
    query_id: str
    doc_id: str
    relevance: int


@dataclass(frozen=True, slots=True)
class AnswerRecord:
    line: int
    query_id: str
    answers: list[str]


def open_binary(path: str | Path) -> io.BufferedIOBase:
    """Open ``path`` for binary reading, decompressing transparently when it ends in ``.gz``."""
    path = Path(path)
    if path.suffix == ".gz":
        return gzip.open(path, "rb")
    return path.open("rb")


def iter_lines(path: str | Path, errors: LineErrors | None = None) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for every line of a UTF-8 file, 1-based, without newline.

    A byte-order mark at the start is dropped (the first record is kept). Invalid UTF-8 or a
    damaged gzip stream raises :class:`FormatError` with the line number (with ``errors``
    given, a line that is not UTF-8 is added to it and skipped instead); a file that cannot
    be opened (missing, a folder, unreadable) one naming the file and why.
    """
    number = 0
    try:
        opened = open_binary(path)
    except OSError as exc:
        raise FormatError(path, None, f"cannot open the file ({exc.strerror})") from None
    with opened as handle:
        try:
            for number, raw in enumerate(handle, start=1):
                if number == 1 and raw.startswith(_BOM):
                    raw = raw[len(_BOM) :]
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    error = FormatError(path, number, f"not valid UTF-8 ({exc.reason})")
                    if errors is None:
                        raise error from None
                    errors.add(error)
                    continue
                yield number, text.rstrip("\r\n")
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise FormatError(path, number + 1, f"cannot read file ({exc})") from None


def _check_storable(text: str, field: str, path: str | Path, line: int) -> str:
    """Reject what PostgreSQL cannot store: NUL (text and jsonb refuse it) and lone UTF-16
    surrogates, which JSON's ``\\ud800`` escapes can produce but UTF-8 cannot encode."""
    if "\x00" in text:
        raise FormatError(path, line, f"'{field}' contains a NUL character")
    if not text.isascii():
        # Encoding is the cheapest full scan in C (faster than a regex over non-ASCII text);
        # the only character UTF-8 cannot encode is a surrogate.
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise FormatError(
                path,
                line,
                f"'{field}' contains a lone surrogate U+{ord(text[exc.start]):04X} "
                "(not valid Unicode)",
            ) from None
    return text


_J = TypeVar("_J")


def _check_json(value: _J, field: str, path: str | Path, line: int) -> _J:
    """Check every string (keys included) inside decoded JSON with :func:`_check_storable`;
    ``field`` grows into a path such as ``metadata.author[0]`` so the reason names the spot."""
    if isinstance(value, str):
        _check_storable(value, field, path, line)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_storable(key, field, path, line)
            _check_json(item, f"{field}.{key}", path, line)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_json(item, f"{field}[{index}]", path, line)
    return value


def check_id(value: object, field: str, path: str | Path, line: int) -> str:
    """``value`` as a stored id (a string or an integer, no whitespace, at most
    :data:`ID_MAX_LENGTH` characters); FormatError naming ``path``, ``line`` and ``field``
    otherwise."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise FormatError(path, line, f"'{field}' must be a string, got {type(value).__name__}")
    text = _check_storable(str(value), field, path, line)
    if not text or text != text.strip() or any(ch.isspace() for ch in text):
        raise FormatError(path, line, f"'{field}' {text!r} is empty or contains whitespace")
    if len(text) > ID_MAX_LENGTH:
        raise FormatError(path, line, f"'{field}' is longer than {ID_MAX_LENGTH} characters")
    return text


def _check_text(value: object, field: str, path: str | Path, line: int) -> str:
    if not isinstance(value, str):
        raise FormatError(path, line, f"'{field}' must be a string, got {type(value).__name__}")
    return _check_storable(value, field, path, line)


def _reject_constant(name: str) -> None:
    # Python's json accepts NaN and Infinity, which are not JSON and which PostgreSQL's jsonb
    # refuses, so they must fail while parsing rather than as a DataError at insert time.
    raise ValueError(f"{name} is not a JSON value")


# One decoder for every line: json.loads(..., parse_constant=...) would build a new one a line.
_JSON_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _json_object(path: str | Path, number: int, text: str) -> dict[str, Any] | None:
    """The JSON object on line ``number`` (None for a blank line); FormatError otherwise."""
    if not text.strip():
        return None
    try:
        obj = _JSON_DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise FormatError(path, number, f"invalid JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError as exc:  # NaN/Infinity, or an integer beyond Python's digit limit
        raise FormatError(path, number, f"invalid JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise FormatError(path, number, "expected a JSON object")
    return obj


_NO_RECORDS = "file is empty (no records)"
_NO_QRELS = "file is empty (no qrels)"


def parse_corpus(path: str | Path) -> Iterator[DocRecord]:
    """Stream a BEIR ``corpus.jsonl[.gz]``: one ``{"_id", "title"?, "text"}`` object a line.

    A missing or null ``title`` is read as ``""``; ``text`` must be a string (may be empty).
    Raises :class:`FormatError` on invalid JSON, a missing ``_id`` or ``text``, an empty file,
    or a NUL or lone surrogate in ``_id``, ``title`` or ``text``, listing every such line
    (:func:`parse_lines`).
    """

    def read(number: int, text: str) -> DocRecord | None:
        obj = _json_object(path, number, text)
        if obj is None:
            return None
        if "_id" not in obj:
            raise FormatError(path, number, "missing '_id'")
        if "text" not in obj:
            raise FormatError(path, number, "missing 'text'")
        title = obj.get("title")
        return DocRecord(
            line=number,
            doc_id=check_id(obj["_id"], "_id", path, number),
            title="" if title is None else _check_text(title, "title", path, number),
            text=_check_text(obj["text"], "text", path, number),
        )

    yield from parse_lines(path, read, _NO_RECORDS)


def parse_queries(path: str | Path) -> Iterator[QueryRecord]:
    """Stream a BEIR ``queries.jsonl[.gz]``: ``{"_id", "text", "metadata"?}`` a line.

    Raises :class:`FormatError` on invalid JSON, a missing ``_id`` or ``text``, an empty file,
    a ``metadata`` that is not an object, or a NUL or lone surrogate anywhere in the record
    (the reason names the spot, e.g. ``'metadata.author[0]'``), listing every such line.
    """

    def read(number: int, text: str) -> QueryRecord | None:
        obj = _json_object(path, number, text)
        if obj is None:
            return None
        if "_id" not in obj:
            raise FormatError(path, number, "missing '_id'")
        if "text" not in obj:
            raise FormatError(path, number, "missing 'text'")
        metadata = obj.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise FormatError(path, number, "'metadata' must be an object")
        return QueryRecord(
            line=number,
            query_id=check_id(obj["_id"], "_id", path, number),
            text=_check_text(obj["text"], "text", path, number),
            metadata=_check_json(metadata, "metadata", path, number),
        )

    yield from parse_lines(path, read, _NO_RECORDS)


def parse_grade(token: str, path: str | Path, line: int) -> int:
    """Read a relevance grade: an integer, or a float with an integral value (``1.0`` → 1).

    Raises :class:`FormatError` for ``0.5``, non-numbers, and grades outside −127..127.
    """
    try:
        value = int(token)
    except ValueError:
        value = None
    if value is None:
        try:
            number = float(token)
        except ValueError:
            raise FormatError(path, line, f"relevance {token!r} is not a number") from None
        if not math.isfinite(number) or number != int(number):
            raise FormatError(path, line, f"relevance {token!r} is not a whole number")
        value = int(number)
    if not RELEVANCE_MIN <= value <= RELEVANCE_MAX:
        raise FormatError(
            path, line, f"relevance {value} is outside {RELEVANCE_MIN}..{RELEVANCE_MAX}"
        )
    return value


# Column names a BEIR qrels header may use, compared case-insensitively with "-" and "_"
# removed: BEIR writes ``query-id corpus-id score``; other tools write ``query_id``, ``qid``,
# ``docid``, ``doc-id``, ``relevance``, ``label`` and the like.
QRELS_HEADER_NAMES = (
    frozenset({"queryid", "qid", "query", "topicid", "topic"}),
    frozenset({"corpusid", "docid", "doc", "documentid", "document", "passageid", "pid"}),
    frozenset({"score", "relevance", "rel", "label", "grade", "judgment", "judgement"}),
)


def is_qrels_header(fields: list[str]) -> bool:
    """True when ``fields`` are three known column names (see ``QRELS_HEADER_NAMES``).

    Only names count: a first line such as ``q1 d1 high`` is a data row with a bad grade, and
    is reported as one instead of being skipped.
    """
    return len(fields) == 3 and all(
        field.lower().replace("-", "").replace("_", "") in names
        for field, names in zip(fields, QRELS_HEADER_NAMES, strict=True)
    )


def parse_beir_qrels(path: str | Path) -> Iterator[QrelRecord]:
    """Stream a BEIR ``qrels/<split>.tsv``: ``query-id corpus-id score`` a line.

    The header is optional and recognised by content: a first line made of known column names
    (:func:`is_qrels_header`), so a headerless file loses no row and a first data row with a
    bad grade is an error, not a header. Fields may be separated by tabs or spaces.
    Raises :class:`FormatError` for a wrong field count, a bad grade or an empty file,
    listing every bad line (:func:`parse_lines`).
    """
    yield from parse_lines(path, _beir_qrels_line(path), _NO_QRELS)


def _beir_qrels_line(path: str | Path) -> Callable[[int, str], QrelRecord | None]:
    """The reader of one line of the BEIR qrels file ``path`` (see :func:`parse_beir_qrels`)."""
    header_possible = [True]  # until the first line with fields

    def read(number: int, text: str) -> QrelRecord | None:
        fields = text.split()
        if not fields:
            return None
        if header_possible:
            header_possible.clear()
            if is_qrels_header(fields):
                return None
        if len(fields) != 3:
            raise FormatError(
                path, number, f"expected 3 fields (query-id corpus-id score), got {len(fields)}"
            )
        return QrelRecord(
            line=number,
            query_id=check_id(fields[0], "query-id", path, number),
            doc_id=check_id(fields[1], "corpus-id", path, number),
            relevance=parse_grade(fields[2], path, number),
        )

    return read


def trec_qrels_header_refuse(path: str | Path) -> None:
    """Refuse a file given as TREC qrels whose first line is a BEIR qrels header
    (:func:`is_qrels_header`, e.g. ``query-id<TAB>corpus-id<TAB>score``): read as TREC, every
    line would be refused for its field count, never saying why. Raises :class:`FormatError`
    naming the file and line, with the fix (the format ``beir``: ``--format beir`` on the
    command line, ``"fmt": "beir"`` over the API, the form's "Format"). Reads one line; a
    file it cannot read is left to the parser to report."""
    lines = iter_lines(path, LineErrors(path))
    try:
        first = next(((n, t.split()) for n, t in lines if t.split()), None)
    except FormatError:
        return
    finally:
        # The generator's file is closed now, not when it is collected.
        lines.close()  # type: ignore[attr-defined]  # iter_lines is a generator
    if first is not None and is_qrels_header(first[1]):
        number, fields = first
        raise FormatError(
            path,
            number,
            f"a BEIR qrels header ({' '.join(fields)}), not TREC qrels (qid iter docid rel): "
            "the file is BEIR TSV",
            fix=OptionFix(
                key="fmt", value="beir", purpose="to read it as BEIR TSV", flag="--format"
            ),
        )


def parse_trec_qrels(path: str | Path) -> Iterator[QrelRecord]:
    """Stream a TREC qrels file: ``qid iter docid rel`` separated by any whitespace.

    The ``iter`` column is ignored, as trec_eval does. Negative grades are kept as they are.
    Raises :class:`FormatError` for a wrong field count, a bad grade or an empty file,
    listing every bad line (:func:`parse_lines`).
    """
    yield from parse_lines(path, _trec_qrels_line(path), _NO_QRELS)


def _trec_qrels_line(path: str | Path) -> Callable[[int, str], QrelRecord | None]:
    """The reader of one line of the TREC qrels file ``path`` (see :func:`parse_trec_qrels`)."""

    def read(number: int, text: str) -> QrelRecord | None:
        fields = text.split()
        if not fields:
            return None
        if len(fields) != 4:
            raise FormatError(
                path, number, f"expected 4 fields (qid iter docid rel), got {len(fields)}"
            )
        return QrelRecord(
            line=number,
            query_id=check_id(fields[0], "qid", path, number),
            doc_id=check_id(fields[2], "docid", path, number),
            relevance=parse_grade(fields[3], path, number),
        )

    return read


def read_qrels(path: str | Path, fmt: str) -> tuple[list[QrelRecord], LineErrors]:
    """Every row of the qrels file ``path`` (``fmt`` "trec" or "beir") that can be read, and
    the lines that cannot (:func:`parse_all`), for an import that checks the rows before it
    refuses once. FormatError for an empty file or one that cannot be opened."""
    line = _trec_qrels_line(path) if fmt == "trec" else _beir_qrels_line(path)
    return parse_all(path, line, _NO_QRELS)


def parse_answers(path: str | Path) -> Iterator[AnswerRecord]:
    """Stream reference answers: ``{"query_id": str, "answers": [str, ...]}`` a line.

    Raises :class:`FormatError` for invalid JSON, a missing field, non-string answers, an
    empty file, or a NUL or lone surrogate in the id or an answer, listing every bad line.
    """

    def read(number: int, text: str) -> AnswerRecord | None:
        obj = _json_object(path, number, text)
        if obj is None:
            return None
        if "query_id" not in obj or "answers" not in obj:
            raise FormatError(path, number, "expected keys 'query_id' and 'answers'")
        answers = obj["answers"]
        if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
            raise FormatError(path, number, "'answers' must be a list of strings")
        return AnswerRecord(
            line=number,
            query_id=check_id(obj["query_id"], "query_id", path, number),
            answers=_check_json(answers, "answers", path, number),
        )

    yield from parse_lines(path, read, _NO_RECORDS)


def resolve_duplicate_qrels(
    records: Iterable[QrelRecord], policy: str | None, path: str | Path
) -> tuple[list[QrelRecord], int, dict[tuple[str, str], list[int]]]:
    """``(records, dropped, lines)``: one record per (query, doc), in first-seen order, and
    the lines of every pair found more than once.

    ``"keep-max"`` keeps the highest grade, ``"keep-last"`` the last row; with ``policy``
    None the duplicates are a problem (:func:`duplicate_qrels_error`), which the caller
    raises with the file's other problems. Raises :class:`FormatError` for an unknown policy.
    """
    if policy not in (None, *DUPLICATE_POLICIES):
        raise FormatError(path, None, f"unknown duplicate policy {policy!r}")
    kept: dict[tuple[str, str], QrelRecord] = {}
    lines: dict[tuple[str, str], list[int]] = {}
    dropped = 0
    for record in records:
        key = (record.query_id, record.doc_id)
        previous = kept.get(key)
        if previous is None:
            kept[key] = record
            continue
        dropped += 1
        lines.setdefault(key, [previous.line]).append(record.line)
        if policy == "keep-last" or (
            policy == "keep-max" and record.relevance > previous.relevance
        ):
            kept[key] = record
    return list(kept.values()), dropped, lines


def duplicates_refusal(
    lines: dict[tuple[str, str], list[int]],
    path: str | Path,
    reason: str,
    fix: OptionFix | None = None,
) -> FormatError:
    """The refusal of a file holding the pairs of ``lines`` (not empty) more than once:
    ``reason`` and every line of each pair, at the first repeat's line."""
    details = [
        f"query {q!r} document {d!r} on lines {', '.join(map(str, ls))}"
        for (q, d), ls in lines.items()
    ]
    return FormatError(path, lines[next(iter(lines))][1], reason, details, fix=fix)


def duplicate_qrels_error(lines: dict[tuple[str, str], list[int]], path: str | Path) -> FormatError:
    """:func:`duplicates_refusal` of qrels (``lines`` from :func:`resolve_duplicate_qrels`),
    naming ``--on-duplicate``."""
    fix = OptionFix("on_duplicate", "keep-max", "or keep-last to resolve them")
    return duplicates_refusal(lines, path, f"{len(lines)} duplicate (query, document) pair(s)", fix)


def format_trec_qrel(query_id: str, doc_id: str, relevance: int) -> str:
    """One canonical TREC qrels line: ``qid 0 docid rel\\n`` with single spaces."""
    return f"{query_id} 0 {doc_id} {relevance}\n"


def format_beir_qrel(query_id: str, doc_id: str, relevance: int) -> str:
    """One BEIR TSV qrels line: ``query-id<TAB>corpus-id<TAB>score\\n``."""
    return f"{query_id}\t{doc_id}\t{relevance}\n"


def write_qrels(rows: Iterable[tuple[str, str, int]], out: SupportsWrite[str], fmt: str) -> int:
    """Write ``(query_id, doc_id, relevance)`` rows as ``trec`` or ``beir``; return row count.

    Rows are written in the order given (callers pass canonical order: query id, then doc id,
    by code point). BEIR output starts with its header. Raises ValueError for another format.
    """
    if fmt == "trec":
        line = format_trec_qrel
    elif fmt == "beir":
        line = format_beir_qrel
        out.write(BEIR_QRELS_HEADER)
    else:
        raise ValueError(f"unknown qrels format {fmt!r} (expected 'trec' or 'beir')")
    count = 0
    for query_id, doc_id, relevance in rows:
        out.write(line(query_id, doc_id, relevance))
        count += 1
    return count
