"""The ``simulated`` LLM backend: debaters that answer real debate jobs from a reference qrels
file (the truth) with a set sensitivity, specificity and stance persistence, so a whole job
(pool, debates, review, refined set, intervals) can be run on simulated labels before paying
for LLM calls.

Each call is answered by the debater model of :class:`debates.simulated.SimulatedAssessor`:

- the pair is identified from the prompt: the ``QUERY`` block's text is looked up among the
  dataset's queries (whitespace-normalised), the ``CHUNK`` block (title line and truncation
  marker dropped, whitespace normalised) among the documents of that query in the truth file
  and in the dataset's pools, by prefix (a chunk cut to fit the context is a prefix of the
  document). The pair is relevant when the truth gives it a grade >= 1; a document the truth
  does not list is not relevant (and is keyed by its text's first 200 characters when it is
  in no pool either);
- the agent's stance ("relevant"/"irrelevant") is read from the system prompt (dream-v1) or
  the end of the user message (dream-v2), the round from the user message's last
  ``Round N.``; a prompt without a stance (the single-judge baseline) gets the belief;
- the agent's *belief* is fixed per (seed, query id, doc id, stance) and whether it keeps its
  stance in round j (probability ``persistence ** j``) per (seed, query id, doc id, stance,
  round), each from a SHA-256-seeded RNG: the same labels in every process and run, whatever
  order the pairs are debated in.

The reply is the JSON object the prompts ask for (:data:`debates.prompts.REPLY_FORMAT`), its
argument saying that it is simulated; the model name (``simulated:sens...``) says it in every
turn and label. Binary only: a graded job is refused at launch. Tokens are counted as
whitespace-separated words, like the test doubles.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
from pathlib import Path

from corpora.formats import (
    FormatError,
    LineErrors,
    QrelRecord,
    is_qrels_header,
    iter_lines,
    parse_beir_qrels,
    parse_trec_qrels,
)
from corpora.models import Dataset, Document, Pair, Query
from debates.llm.base import ChatMessage, GenerationParams, LLMResult, PermanentLLMError
from debates.llm.config import AgentConfig
from debates.llm.scripted import word_count
from debates.prompts import TRUNCATION_MARKER
from debates.simulated import SimulatedAssessor

CONTEXT_WINDOW = 1_000_000  # nothing is cut to fit: the whole chunk identifies the pair
_BLOCK = re.compile(r"<<<(QUERY|CHUNK)\n(.*?)\n\1>>>", re.DOTALL)
_STANCE = re.compile(r"Your initial stance: (RELEVANT|IRRELEVANT)")
_ROUND = re.compile(r"^Round (\d+)\.", re.MULTILINE)
_KEY_CHARS = 200  # of an unknown document's text, to key its belief
_SPACES = re.compile(r"\s+")
_ID_BATCH = 10_000  # document ids per query when checking a truth file


def normalised(text: str) -> str:
    """``text`` with runs of whitespace as one space and its ends stripped."""
    return _SPACES.sub(" ", text).strip()


def _truth_records(path: Path) -> list[QrelRecord]:
    """The rows of a TREC or BEIR qrels file, gzipped or not (the format told by the first
    data line's field count or header). Raises PermanentLLMError naming the file (and line)
    it cannot read."""
    try:
        with path.open("rb"):
            pass  # a missing or unreadable file gets its own words, before any line is read
        # The sniff reads lines as the parsers do (gzip, UTF-8 checked with the line number).
        # Lines that are not UTF-8 are skipped here: the parser lists them with the others.
        lines = iter_lines(path, LineErrors(path))
        first = next((text.split() for _, text in lines if text.strip()), [])
        beir = len(first) == 3 or is_qrels_header(first)
        return list((parse_beir_qrels if beir else parse_trec_qrels)(path))
    except OSError as exc:
        raise PermanentLLMError(f"truth {path}: cannot read the file ({exc.strerror})") from None
    except FormatError as exc:
        raise PermanentLLMError(f"truth {exc}") from None


def truth_file_read(path: str | Path) -> dict[str, dict[str, int]]:
    """A TREC (``qid iter docid rel``) or BEIR (``query-id corpus-id score``, header optional)
    qrels file as ``{query_id: {doc_id: grade}}`` (a pair given twice: the last grade).
    Raises PermanentLLMError naming the file and line of a row it cannot read."""
    truth: dict[str, dict[str, int]] = {}
    for record in _truth_records(Path(path)):
        truth.setdefault(record.query_id, {})[record.doc_id] = record.relevance
    return truth


def truth_file_load(*, path: str | Path, dataset: str) -> dict[str, dict[str, int]]:
    """The truth file at ``path`` as :func:`truth_file_read` gives it, every query and document
    id of it checked to be in the dataset whose slug is ``dataset``. Reads; writes nothing.
    Raises ValueError: ``dataset: no dataset 'x'``, ``truth FILE: cannot read ...``, the
    malformed rows, or ``truth FILE:LINE: query 'q9' is not in scifact`` (likewise a
    document, or a pair given twice) for the first such row, then ``(and N more bad lines)``
    and a ``line L: reason`` line for each other one (:class:`corpora.formats.LineErrors`).
    The one reader of truth files: the simulated study reads its ``--truth`` through it too."""
    found = Dataset.objects.filter(slug=dataset).first()
    if found is None:
        raise ValueError(f"dataset: no dataset {dataset!r} for the simulated backend's truth")
    path = Path(path)
    try:
        records = _truth_records(path)
    except PermanentLLMError as exc:
        raise ValueError(str(exc)) from None
    queries = set(Query.objects.filter(dataset=found).values_list("query_id", flat=True))
    wanted = sorted({r.doc_id for r in records})
    docs: set[str] = set()
    for start in range(0, len(wanted), _ID_BATCH):  # bounded IN lists for large truths
        chunk = wanted[start : start + _ID_BATCH]
        rows = Document.objects.filter(dataset=found, doc_id__in=chunk)
        docs.update(rows.values_list("doc_id", flat=True))
    truth: dict[str, dict[str, int]] = {}
    errors = LineErrors(path)
    for record in records:
        judged = truth.setdefault(record.query_id, {})
        if record.query_id not in queries:
            reason = f"query {record.query_id!r} is not in {dataset}"
        elif record.doc_id not in docs:
            reason = f"document {record.doc_id!r} is not in {dataset}"
        elif record.doc_id in judged:
            reason = f"query {record.query_id!r} document {record.doc_id!r} given twice"
        else:
            judged[record.doc_id] = record.relevance
            continue
        errors.add(FormatError(path, record.line, reason))
    try:
        errors.raise_if_any()
    except FormatError as exc:
        raise ValueError(f"truth {exc}") from None
    return truth


def _rng(*parts: object) -> random.Random:
    """A RNG seeded by the SHA-256 of ``parts``: the same in every process (unlike hash())."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _chunk_text(block: str) -> str:
    """The document text a CHUNK block shows: without the truncation marker, normalised (the
    title line, when there is one, is kept: candidates are matched with and without it)."""
    return normalised(block.replace(TRUNCATION_MARKER, ""))


class SimulatedClient:
    """An :class:`~debates.llm.base.LLMClient` answering from a truth file (module docstring).

    ``config`` is a checked simulated :class:`AgentConfig`. The truth and the dataset's query
    texts are read at the first call (PermanentLLMError when the file or the dataset is gone,
    or the file cannot be read); each query's candidate documents at its first call. Safe to
    share between threads.
    """

    def __init__(self, config: AgentConfig) -> None:
        if not config.is_simulated:
            raise ValueError(f"backend: {config.backend!r} is not the simulated backend")
        self.config = config
        self.assessor = SimulatedAssessor(
            sensitivity=float(config.sensitivity or 0.0),
            specificity=float(config.specificity or 0.0),
            persistence=float(config.persistence or 0.0),
        )
        self.seed = int(config.seed or 0)
        self._lock = threading.Lock()
        self._truth: dict[str, dict[str, int]] | None = None
        self._dataset_pk: int | None = None
        self._queries: dict[str, str] = {}  # normalised text: query id
        self._docs: dict[str, list[tuple[str, str, str]]] = {}  # qid: [(doc id, text, titled)]

    @property
    def model(self) -> str:
        return self.config.model

    @property
    def context_window(self) -> int:
        return CONTEXT_WINDOW

    def count_tokens(self, text: str) -> int:
        """Whitespace-separated words of ``text``."""
        return word_count(text)

    def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
        """The simulated agent's reply to a debate prompt. Raises PermanentLLMError for a
        prompt without QUERY and CHUNK blocks or a query the dataset does not have."""
        query_id, doc_id, grade = self.pair_identify(messages)
        stance, round_ = _stance_and_round(messages)
        label = self.label(
            query_id=query_id, doc_id=doc_id, relevant=grade >= 1, stance=stance, round_=round_
        )
        kept = stance is not None and label == (1 if stance == "relevant" else 0)
        argument = (
            f"SIMULATED reply (not a real judgment): a simulated debater "
            f"({self.model}) {'keeps its stance' if kept else 'states its belief'} in "
            f"round {round_}."
        )
        text = json.dumps({"label": label, "argument": argument, "evidence": []})
        return LLMResult(
            text=text,
            model=self.model,
            prompt_tokens=sum(word_count(m["content"]) for m in messages),
            completion_tokens=word_count(text),
            latency_ms=0.0,
            finish_reason="stop",
        )

    def label(
        self, *, query_id: str, doc_id: str, relevant: bool, stance: str | None, round_: int
    ) -> int:
        """The label (0/1) an agent of ``stance`` (None: a single judge) states in round
        ``round_`` about a pair whose truth is ``relevant``: its stance with probability
        ``persistence ** round_``, else its belief (:meth:`SimulatedAssessor.belief`), each
        draw seeded by the seed, the pair, the stance (and the round)."""
        belief = self.assessor.belief(relevant, _rng(self.seed, query_id, doc_id, stance))
        if stance is None:
            return belief
        keep = _rng(self.seed, query_id, doc_id, stance, round_).random()
        if keep < self.assessor.persistence**round_:
            return 1 if stance == "relevant" else 0
        return belief

    def pair_identify(self, messages: list[ChatMessage]) -> tuple[str, str, int]:
        """``(query id, doc id, truth grade)`` of the pair a prompt shows (grade 0 when the
        truth does not list it). Raises PermanentLLMError as :meth:`chat` says."""
        users = [m["content"] for m in messages if m["role"] == "user"]
        blocks = dict(_BLOCK.findall(next((u for u in users if "<<<QUERY" in u), "")))
        if "QUERY" not in blocks or "CHUNK" not in blocks:
            raise PermanentLLMError("simulated backend: no QUERY and CHUNK blocks in the prompt")
        truth = self._truth_load()
        query_id = self._queries.get(normalised(blocks["QUERY"]))
        if query_id is None:
            raise PermanentLLMError(
                f"simulated backend: a query that is not in dataset {self.config.dataset}"
            )
        chunk = _chunk_text(blocks["CHUNK"])
        for doc_id, text, titled in self._candidates(query_id):
            if _matches(chunk, text, titled):
                return query_id, doc_id, truth.get(query_id, {}).get(doc_id, 0)
        return query_id, "text:" + chunk[:_KEY_CHARS], 0

    def _truth_load(self) -> dict[str, dict[str, int]]:
        with self._lock:
            if self._truth is None:
                dataset = Dataset.objects.filter(slug=self.config.dataset).first()
                if dataset is None:
                    raise PermanentLLMError(
                        f"dataset: no dataset {self.config.dataset!r} for the simulated backend"
                    )
                truth = truth_file_read(self.config.truth or "")
                rows = Query.objects.filter(dataset=dataset).values_list("text", "query_id")
                self._queries = {normalised(text): qid for text, qid in rows}
                self._dataset_pk = dataset.pk
                self._truth = truth
            return self._truth

    def _candidates(self, query_id: str) -> list[tuple[str, str, str]]:
        """The documents a chunk of ``query_id`` may be: those the truth lists for it and
        those of its pairs in the dataset's pools, as ``(doc id, text, "title text")``
        normalised; the truth's relevant ones first (they win a chunk two documents share)."""
        with self._lock:
            found = self._docs.get(query_id)
            if found is not None:
                return found
        assert self._truth is not None and self._dataset_pk is not None
        judged = self._truth.get(query_id, {})
        pooled = Pair.objects.filter(
            pool__dataset_id=self._dataset_pk, query__query_id=query_id
        ).values_list("document__doc_id", flat=True)
        ids = set(judged) | set(pooled)
        rows = Document.objects.filter(dataset_id=self._dataset_pk, doc_id__in=ids).values_list(
            "doc_id", "title", "text"
        )
        docs = sorted(
            (
                (doc_id, normalised(text), normalised(f"Title: {title}\n{text}") if title else "")
                for doc_id, title, text in rows
            ),
            key=lambda d: (-(judged.get(d[0], 0) >= 1), d[0]),
        )
        with self._lock:
            self._docs[query_id] = docs
        return docs


def _matches(chunk: str, text: str, titled: str) -> bool:
    """True when the normalised ``chunk`` is the document's text (or "Title: ..." and text)
    or a prefix of it (cut to fit a context); an empty chunk matches nothing."""
    if not chunk:
        return False
    return text.startswith(chunk) or bool(titled) and titled.startswith(chunk)


def _stance_and_round(messages: list[ChatMessage]) -> tuple[str | None, int]:
    """The agent's initial stance ("relevant"/"irrelevant", None for a prompt with none) and
    the round the prompt asks for (1 when it names none), read after the last data block so
    no text of a chunk or a turn can pass for them."""
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    user = next(
        (m["content"] for m in messages if m["role"] == "user" and "<<<" in m["content"]), ""
    )
    tail = user.rsplit(">>>", 1)[-1]
    stances = _STANCE.findall(tail) or _STANCE.findall(system)
    rounds = _ROUND.findall(tail)
    stance = stances[-1].lower() if stances else None
    return stance, int(rounds[-1]) if rounds else 1
