"""One refusal for every problem of an imported run or qrels file. Pure: no database.

An import checks a file for several kinds of problem: lines it cannot read (a field short, a
rank or score or grade that is no number, bytes that are not UTF-8), rows repeated, rows naming
a query or document the dataset lacks. Each check builds the error its kind alone raises
(the wording the tests and the manual give); :class:`FileProblems` gathers the kinds and
raises once, when the whole file has been read:

- one kind: that kind's :class:`~corpora.formats.FormatError`, unchanged;
- several: one FormatError at the first offending line, its reason counting each kind
  (``3 problems: 1 bad line, 1 unknown id, 1 duplicate``) and naming every option that
  would get past one of them, then ``line L: reason`` for every problem in line order
  (the usual cap: :data:`~corpora.formats.MAX_LISTED` spelled out, then ``... and N more``).

A line that cannot be read yields no row, so it is not checked for duplicates or unknown ids:
when such lines come with other kinds, the refusal says that these checks follow once they
are fixed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from core.fixes import OptionFix
from core.text import plural

from .formats import FormatError, LineErrors

#: The refusal's note when unreadable lines come with other problems (their rows are unchecked).
UNCHECKED_NOTE = (
    "lines that cannot be read are checked for duplicates and unknown ids once they are fixed"
)


@dataclass(slots=True)
class Problem:
    """One kind of problem of a file: ``error`` as this kind alone is refused, ``entries``
    ``(line, reason)`` for the list of a refusal of several kinds, ``count`` the problems
    (``omitted`` of them left out of ``entries``), ``counted`` the count in words ("2 bad
    lines"), and ``fix`` the option that gets past it, worded for a refusal of several kinds."""

    error: FormatError
    entries: list[tuple[int, str]]
    count: int
    counted: str
    fix: OptionFix | None = None
    omitted: int = 0


@dataclass(slots=True)
class FileProblems:
    """The problems of the file at ``path``, gathered kind by kind (:meth:`add`,
    :meth:`add_bad_lines`) and raised once (:meth:`raise_if_any`). False while empty."""

    path: str | Path
    kinds: list[Problem] = field(default_factory=list)
    unreadable: bool = False

    def __bool__(self) -> bool:
        return bool(self.kinds)

    def add(self, problem: Problem | None) -> None:
        if problem is not None:
            self.kinds.append(problem)

    def add_bad_lines(self, errors: LineErrors) -> None:
        """The lines :func:`corpora.formats.parse_all` could not read, as one kind."""
        if not errors:
            return
        try:
            errors.raise_if_any()
        except FormatError as exc:
            self.unreadable = True
            self.add(
                Problem(
                    error=exc,
                    entries=[(e.line or 0, e.reason) for e in errors.kept],
                    count=errors.count,
                    counted=plural(errors.count, "bad line"),
                    omitted=errors.count - len(errors.kept),
                )
            )

    def raise_if_any(self) -> None:
        """Raise nothing without problems; the kind's own error with one kind; else one
        FormatError listing every problem by line (see the module note)."""
        if not self.kinds:
            return
        if len(self.kinds) == 1:
            raise self.kinds[0].error
        entries = sorted(entry for kind in self.kinds for entry in kind.entries)
        total = sum(kind.count for kind in self.kinds)
        counts = ", ".join(kind.counted for kind in self.kinds)
        reason = f"{plural(total, 'problem')}: {counts}"
        if self.unreadable:
            reason += f"; {UNCHECKED_NOTE}"
        fixes = [kind.fix for kind in self.kinds if kind.fix is not None]
        raise FormatError(
            self.path,
            entries[0][0] if entries else None,
            reason,
            [f"line {line}: {text}" for line, text in entries],
            fix=fixes[0] if fixes else None,
            more_fixes=fixes[1:],
            omitted=sum(kind.omitted for kind in self.kinds),
        )


def duplicate_entries(lines: dict[tuple[str, str], list[int]]) -> list[tuple[int, str]]:
    """``(line, reason)`` for each (query, document) pair found on ``lines`` (two or more),
    at its second line, the line that repeats it."""
    return [
        (ls[1], f"query {q!r} document {d!r} on lines {', '.join(map(str, ls))}")
        for (q, d), ls in lines.items()
    ]


def unknown_entries(
    records: Iterable, query_pk: dict[str, int], doc_pk: dict[str, int]
) -> list[tuple[int, str]]:
    """``(line, reason)`` for each record (``line``, ``query_id``, ``doc_id``) naming a query
    id absent from ``query_pk`` or else a document id absent from ``doc_pk``."""
    return [
        (r.line, f"unknown query id {r.query_id!r}")
        if r.query_id not in query_pk
        else (r.line, f"unknown document id {r.doc_id!r}")
        for r in records
        if r.query_id not in query_pk or r.doc_id not in doc_pk
    ]
