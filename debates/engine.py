"""The DREAM debate engine: two agents of opposite initial stance debate one query–chunk pair.

Method: DREAM (Ban et al., "Completing Missing Annotation: Multi-Agent Debate for Accurate and
Scalable Relevance Assessment for IR Benchmarks", ICLR 2026, arXiv 2602.06526), summarised in
``docs/METHOD.md``. Agent A starts from stance "relevant", agent B from "irrelevant". In round
1 each argues its stance from the chunk; in round j > 1 each reads both turns of round j - 1,
critiques the opponent and gives an updated label. The first round whose two labels agree
ends the debate (consensus); after R rounds without agreement the pair is escalated to a
human. A reply that cannot be read is re-asked once; if it still cannot be read the debate
is escalated at once ("unparsed"): a parse failure is never a label.

Graded debates (``DebateConfig(scale="graded", max_grade=G)``, our extension, not in the
paper): each label is a grade 0..G with the rubric of :mod:`debates.rubric`; A argues for the
highest grade the chunk's evidence supports, B starts from grade 0. A round reaches
consensus by the config's rule (:func:`consensus_label`): "exact" needs the same grade,
"binary" only the same side of relevance (both >= 1 or both 0) and keeps the lower grade.
Binary debates (the default) are the paper's method, unchanged.

Pure logic: no database. The caller persists each new turn through ``on_turn`` and can resume
an interrupted debate by passing the stored turns back as ``done_turns``. LLM errors
(:class:`~debates.llm.base.TransientLLMError`, :class:`~debates.llm.base.PermanentLLMError`)
propagate unchanged; retrying is the caller's business.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from debates import prompts, rubric
from debates.llm.base import (
    ChatMessage,
    ContextTooLongError,
    GenerationParams,
    LLMClient,
    LLMResult,
)
from debates.parsing import ParsedReply, ReplyParseError, evidence_spans, parse_reply

__all__ = [
    "MAX_ROUNDS",
    "DebateConfig",
    "PairRunner",
    "DebateOutcome",
    "PairText",
    "TurnRecord",
    "consensus_label",
    "debate_pair",
    "evidence_spans",
    "judge_single",
    "prompt_token_count",
]

MAX_ROUNDS = 5
# Runs two turn requests at once and returns, for each in order, (turn, None) or (None, error).
PairRunner = Callable[
    [Callable[[], "TurnRecord"], Callable[[], "TurnRecord"]],
    tuple[
        tuple["TurnRecord | None", "BaseException | None"],
        tuple["TurnRecord | None", "BaseException | None"],
    ],
]
SCALES = ("binary", "graded")
CONSENSUS_RULES = ("exact", "binary")
AGENTS = (("A", "relevant"), ("B", "irrelevant"))
# Chat templates wrap every message in role markers (about 4-6 tokens in Llama 3 and ChatML)
# and add a generation prompt; count_tokens sees only the content, so reserve this much more.
MESSAGE_OVERHEAD_TOKENS = 8
REPLY_PRIMING_TOKENS = 8
SEED = 0


@dataclass(frozen=True, slots=True)
class PairText:
    """What the agents see of one query–chunk pair. ``answers`` are reference answers."""

    query_id: str
    query: str
    doc_id: str
    title: str
    chunk: str
    answers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DebateConfig:
    """Debate settings. ``rounds`` is R (1..5), ``max_tokens`` the completion budget per call.

    ``scale`` "binary" (labels 1/0, the paper's method) or "graded" (grades 0..``max_grade``,
    G in 1..4; ``max_grade`` must stay 1 when binary). ``consensus`` "exact" or "binary" (see
    :func:`consensus_label`; the two are the same on the binary scale). ``prompt_version``
    defaults to this code's version for the scale (:data:`prompts.PROMPT_VERSION` or
    :data:`prompts.GRADED_PROMPT_VERSION`).

    Raises ValueError on construction for rounds outside 1..5, a negative temperature, a
    max_tokens below 1, an unknown scale or consensus rule, or a G the scale does not allow.
    Paper defaults: R = 2, temperature 0, binary.
    """

    rounds: int = 2
    temperature: float = 0.0
    max_tokens: int = 384
    prompt_version: str = ""
    scale: str = "binary"
    max_grade: int = 1
    consensus: str = "exact"

    @property
    def graded_max_grade(self) -> int | None:
        """G for a graded debate, None for a binary one (what prompts and parsing take)."""
        return self.max_grade if self.scale == "graded" else None

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise ValueError(f"scale must be one of {SCALES}, got {self.scale!r}")
        if self.consensus not in CONSENSUS_RULES:
            raise ValueError(f"consensus must be one of {CONSENSUS_RULES}, got {self.consensus!r}")
        if self.scale == "graded":
            rubric.check_max_grade(self.max_grade)
        elif self.max_grade != 1:
            raise ValueError(f"a binary debate has top grade 1, got {self.max_grade!r}")
        if not self.prompt_version:
            version = (
                prompts.GRADED_PROMPT_VERSION if self.scale == "graded" else prompts.PROMPT_VERSION
            )
            object.__setattr__(self, "prompt_version", version)
        if (
            isinstance(self.rounds, bool)
            or not isinstance(self.rounds, int)
            or not 1 <= self.rounds <= MAX_ROUNDS
        ):
            raise ValueError(f"rounds must be an integer in 1..{MAX_ROUNDS}, got {self.rounds!r}")
        if not self.temperature >= 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature!r}")
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int):
            raise ValueError(f"max_tokens must be an integer, got {self.max_tokens!r}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One agent's turn in one round (or the single judge's verdict, agent "J").

    ``label`` is 1 (relevant), 0 (irrelevant) (a grade 0..G in a graded debate) or None when
    the reply could not be read even after the re-ask (``parse_error`` then says why). Tokens
    and latency (milliseconds) are summed over the ``attempts`` (1, or 2 with the re-ask);
    ``raw`` is the last reply verbatim and ``raw_attempts`` every attempt's reply verbatim, in
    order (so the unreadable first reply of a re-asked turn is kept too; empty for turns
    stored before it was recorded).
    """

    round: int
    agent: str
    stance: str
    label: int | None
    argument: str
    evidence: tuple[str, ...]
    raw: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    attempts: int
    parse_error: str | None
    chunk_truncated: bool = False  # the chunk was cut to fit this call's context window
    finish_reason: str = ""  # of the last attempt, as the backend reported it
    raw_attempts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DebateOutcome:
    """The result of :func:`debate_pair`.

    ``status`` "agreed" (``final_label`` and ``consensus_round`` set) or "escalated"
    (``escalation_reason`` "disagreement" or "unparsed"). ``turns`` is the whole history in
    speaking order, done turns included. ``calls``, tokens and ``latency_ms`` count only the
    LLM calls made by this invocation (re-asks included).
    """

    status: str
    final_label: int | None
    consensus_round: int | None
    escalation_reason: str | None
    turns: tuple[TurnRecord, ...]
    chunk_truncated: bool
    calls: int
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float


def prompt_token_count(client: LLMClient, messages: Sequence[ChatMessage]) -> int:
    """Tokens ``messages`` take as a prompt for ``client``: content plus chat-template overhead."""
    return REPLY_PRIMING_TOKENS + sum(
        client.count_tokens(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in messages
    )


def _fit_chunk(
    client: LLMClient,
    build: Callable[[str], list[ChatMessage]],
    chunk: str,
    max_tokens: int,
) -> tuple[list[ChatMessage], bool]:
    """Messages from ``build(chunk)``, with the chunk cut so prompt + max_tokens fits the context.

    Returns (messages, truncated). Only the chunk is ever shortened; the cut chunk ends with
    TRUNCATION_MARKER. Raises ContextTooLongError when even an empty chunk does not fit.
    """
    limit = client.context_window - max_tokens
    messages = build(chunk)
    if prompt_token_count(client, messages) <= limit:
        return messages, False

    def cut(length: int) -> str:
        head = chunk[:length].rstrip()
        return f"{head} {prompts.TRUNCATION_MARKER}" if head else prompts.TRUNCATION_MARKER

    def fits(length: int) -> list[ChatMessage] | None:
        candidate = build(cut(length))
        return candidate if prompt_token_count(client, candidate) <= limit else None

    best = fits(0)
    if best is None:
        needed = prompt_token_count(client, build(cut(0)))
        raise ContextTooLongError(
            f"prompt needs {needed} tokens even with an empty chunk, but the context window of "
            f"{client.model} ({client.context_window}) minus max_tokens ({max_tokens}) "
            f"leaves {limit}"
        )
    # Binary search for the longest prefix that fits; only verified fits are kept, so a
    # tokenizer that is not monotonic in the prefix length can cost length, never overflow.
    low, high = 0, len(chunk)
    while high - low > 1:
        middle = (low + high) // 2
        candidate = fits(middle)
        if candidate is None:
            high = middle
        else:
            low, best = middle, candidate
    # Prefer ending on a word boundary so the marker does not follow half a word.
    boundary = max(chunk.rfind(" ", 0, low + 1), chunk.rfind("\n", 0, low + 1))
    if 0 < boundary < low and not chunk[low].isspace():
        candidate = fits(boundary)
        if candidate is not None:
            best = candidate
    return best, True


def _call(client: LLMClient, messages: list[ChatMessage], config: DebateConfig) -> LLMResult:
    params = GenerationParams(
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        json_schema=prompts.reply_json_schema(config.graded_max_grade),
        seed=SEED,
    )
    return client.chat(messages, params)


def _fitted_call(
    client: LLMClient,
    build: Callable[[str], list[ChatMessage]],
    chunk: str,
    config: DebateConfig,
) -> tuple[LLMResult, bool]:
    """Fit the chunk (see :func:`_fit_chunk`) and call; returns (result, truncated).

    When the server refuses the prompt as too long and the client's context window shrank
    meanwhile (the server stated a smaller one, see the openai backend), the chunk is fitted
    to the new window and called once more; a refused call has no result and is not counted.
    Otherwise the ContextTooLongError propagates.
    """
    window = client.context_window
    messages, truncated = _fit_chunk(client, build, chunk, config.max_tokens)
    try:
        return _call(client, messages, config), truncated
    except ContextTooLongError:
        if client.context_window >= window:
            raise
    messages, truncated = _fit_chunk(client, build, chunk, config.max_tokens)
    return _call(client, messages, config), truncated


def _turn(
    *,
    client: LLMClient,
    config: DebateConfig,
    chunk: str,
    build: Callable[[str], list[ChatMessage]],
    round: int,
    agent: str,
    stance: str,
) -> TurnRecord:
    """One turn: call, parse, at most one re-ask. LLM errors propagate."""
    grades = config.graded_max_grade
    first, truncated = _fitted_call(client, build, chunk, config)
    results = [first]
    error: str | None = None
    try:
        parsed: ParsedReply | None = parse_reply(
            results[0].text, finish_reason=results[0].finish_reason, max_grade=grades
        )
    except ReplyParseError:
        bad = results[0].text

        def build_reask(text: str) -> list[ChatMessage]:
            return prompts.reask_messages(build(text), bad, grades)

        # The re-ask carries the bad reply too, so it is fitted on its own.
        second, truncated_again = _fitted_call(client, build_reask, chunk, config)
        truncated = truncated or truncated_again
        results.append(second)
        try:
            parsed = parse_reply(
                results[1].text, finish_reason=results[1].finish_reason, max_grade=grades
            )
        except ReplyParseError as exc:
            parsed, error = None, exc.reason
    last = results[-1]
    return TurnRecord(
        round=round,
        agent=agent,
        stance=stance,
        label=parsed.label if parsed else None,
        argument=parsed.argument if parsed else "",
        evidence=parsed.evidence if parsed else (),
        raw=last.text,
        raw_attempts=tuple(r.text for r in results),
        model=last.model,
        prompt_tokens=sum(r.prompt_tokens for r in results),
        completion_tokens=sum(r.completion_tokens for r in results),
        latency_ms=float(sum(r.latency_ms for r in results)),
        attempts=len(results),
        parse_error=error,
        chunk_truncated=truncated,
        finish_reason=last.finish_reason,
    )


def _debate_builder(
    *,
    pair: PairText,
    stance: str,
    round: int,
    own: TurnRecord | None,
    other: TurnRecord | None,
    max_grade: int | None = None,
) -> Callable[[str], list[ChatMessage]]:
    """The messages of one debate turn as a function of the (possibly cut) chunk text."""
    system = prompts.debate_system_prompt(
        stance=stance, answer_aware=bool(pair.answers), max_grade=max_grade
    )

    def build(chunk: str) -> list[ChatMessage]:
        user = prompts.debate_user_prompt(
            stance=stance,
            round=round,
            query=pair.query,
            answers=pair.answers,
            title=pair.title,
            chunk=chunk,
            own_previous=own,
            opponent_previous=other,
            max_grade=max_grade,
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    return build


def _check_version(config: DebateConfig) -> None:
    have = prompts.GRADED_PROMPT_VERSION if config.scale == "graded" else prompts.PROMPT_VERSION
    if config.prompt_version != have:
        raise ValueError(
            f"prompt version {config.prompt_version!r} is not available for {config.scale} "
            f"debates (this code has {have!r})"
        )


def consensus_label(label_a: int, label_b: int, rule: str = "exact") -> int | None:
    """The label a round agrees on, or None when the two labels do not agree.

    ``rule`` "exact": agreement is the same label (grade). "binary": agreement is the same
    side of relevance (both >= 1, or both 0) and the agreed label is the lower of the two
    (the cautious reading of two grades on the same side). On the binary scale both rules
    are the paper's "both labels agree". Raises ValueError for another rule.
    """
    if rule == "exact":
        return label_a if label_a == label_b else None
    if rule == "binary":
        return min(label_a, label_b) if (label_a >= 1) == (label_b >= 1) else None
    raise ValueError(f"consensus must be one of {CONSENSUS_RULES}, got {rule!r}")


def _check_done_turns(
    done: dict[tuple[int, str], TurnRecord], rounds: int, consensus: str = "exact"
) -> None:
    """Raise ValueError unless ``done`` is a prefix an uninterrupted debate could have stored."""
    walked: set[tuple[int, str]] = set()
    for round in range(1, rounds + 1):
        a, b = done.get((round, "A")), done.get((round, "B"))
        # Both turns of a round see only the previous round, so either may be stored without
        # the other (a paired run stores B's reply even when A's was unreadable).
        if a is not None:
            walked.add((round, "A"))
        if b is not None:
            walked.add((round, "B"))
        if (
            a is None
            or b is None
            or a.label is None
            or b.label is None
            or consensus_label(a.label, b.label, consensus) is not None
        ):
            break
    stray = sorted(set(done) - walked)
    if stray:
        raise ValueError(
            f"done_turns hold turns an uninterrupted debate would not have reached: {stray}"
        )


def debate_pair(
    pair: PairText,
    agent_a: LLMClient,
    agent_b: LLMClient,
    config: DebateConfig,
    *,
    done_turns: Sequence[TurnRecord] = (),
    on_turn: Callable[[TurnRecord], None] | None = None,
    pair_runner: PairRunner | None = None,
) -> DebateOutcome:
    """Run (or resume) the DREAM debate on one pair; see the module docstring for the method.

    ``agent_a`` argues the initial stance "relevant", ``agent_b`` "irrelevant" (they may be
    different models). Within a round A speaks before B, and both see only the previous round.
    ``done_turns`` are turns stored by an interrupted run: they are reused as they are and
    never asked again. ``on_turn`` is called with every new turn right after it is complete,
    before the next LLM call. At most 2R calls plus one re-ask per turn.

    With ``pair_runner`` (see :data:`PairRunner`) the two turns of a round, which are
    independent, are asked at once: a debate then takes R call latencies instead of 2R. The
    prompts, labels and outcome (turns in A, B order) are the same; each turn is passed to
    ``on_turn`` as soon as it arrives, from the runner's thread, so B's may come first. The
    one difference: when A's reply is unreadable, B's turn of that round was asked too (and
    is kept). When one of the two calls raises, the other's turn is stored all the same and
    the error propagates after both ended, so a resumed debate asks only the missing one.

    Raises ValueError for a prompt version this code does not have, or for done_turns that
    are not the beginning of a debate (unknown agent, duplicate, round beyond R or after the
    debate ended). Raises ContextTooLongError before calling when a prompt cannot fit even
    with an empty chunk. TransientLLMError / PermanentLLMError propagate unchanged.
    """
    _check_version(config)
    done = _done_turns_by_key(done_turns, config)
    ask = partial(_ask_turn, pair, agent_a, agent_b, config, on_turn)
    tally = _DebateTally()
    previous: dict[str, TurnRecord] = {}
    for round in range(1, config.rounds + 1):
        current = _debate_round(round, previous, done, ask, pair_runner, tally)
        if any(turn.label is None for turn in current.values()):
            return tally.outcome("escalated", None, None, "unparsed")
        label_a, label_b = current["A"].label, current["B"].label
        assert label_a is not None and label_b is not None  # every label was read (above)
        agreed = consensus_label(label_a, label_b, config.consensus)
        if agreed is not None:
            return tally.outcome("agreed", agreed, round, None)
        previous = current
    return tally.outcome("escalated", None, None, "disagreement")


# Asks one agent for its turn: (agent, stance, round, the previous round's turns by agent).
_AskTurn = Callable[[str, str, int, dict[str, TurnRecord]], TurnRecord]


def _done_turns_by_key(
    done_turns: Sequence[TurnRecord], config: DebateConfig
) -> dict[tuple[int, str], TurnRecord]:
    """``done_turns`` by (round, agent). Raises ValueError for an unknown agent, a round
    beyond R, a duplicate, or turns that are not the beginning of a debate (see
    :func:`_check_done_turns`)."""
    done: dict[tuple[int, str], TurnRecord] = {}
    for turn in done_turns:
        key = (turn.round, turn.agent)
        if turn.agent not in ("A", "B") or not 1 <= turn.round <= config.rounds:
            raise ValueError(f"done turn {key} is not a turn of a {config.rounds}-round debate")
        if key in done:
            raise ValueError(f"done turn {key} given twice")
        done[key] = turn
    _check_done_turns(done, config.rounds, config.consensus)
    return done


@dataclass(slots=True)
class _DebateTally:
    """What one :func:`debate_pair` invocation has so far: the whole history in speaking
    order (done turns included), and the turns it asked itself with their LLM calls (re-asks
    included), which are all the outcome's calls, tokens and latency count."""

    history: list[TurnRecord] = field(default_factory=list)
    new_turns: list[TurnRecord] = field(default_factory=list)
    calls: int = 0

    def add(self, turn: TurnRecord, *, new: bool) -> None:
        """Append ``turn`` to the history; ``new``: asked by this invocation, so counted."""
        if new:
            self.calls += turn.attempts
            self.new_turns.append(turn)
        self.history.append(turn)

    def outcome(
        self, status: str, label: int | None, round: int | None, reason: str | None
    ) -> DebateOutcome:
        """The debate's outcome with this tally's turns and counts."""
        return DebateOutcome(
            status=status,
            final_label=label,
            consensus_round=round,
            escalation_reason=reason,
            turns=tuple(self.history),
            chunk_truncated=any(t.chunk_truncated for t in self.history),
            calls=self.calls,
            prompt_tokens=sum(t.prompt_tokens for t in self.new_turns),
            completion_tokens=sum(t.completion_tokens for t in self.new_turns),
            latency_ms=float(sum(t.latency_ms for t in self.new_turns)),
        )


def _ask_turn(
    pair: PairText,
    agent_a: LLMClient,
    agent_b: LLMClient,
    config: DebateConfig,
    on_turn: Callable[[TurnRecord], None] | None,
    agent: str,
    stance: str,
    round: int,
    previous: dict[str, TurnRecord],
) -> TurnRecord:
    """Ask ``agent`` ("A" or "B") for its turn of ``round`` and store it (``on_turn``) the
    moment it arrives: a crash, even mid-round, then loses only the requests in flight."""
    build = _debate_builder(
        pair=pair,
        stance=stance,
        round=round,
        own=previous.get(agent),
        other=previous.get("B" if agent == "A" else "A"),
        max_grade=config.graded_max_grade,
    )
    client = agent_a if agent == "A" else agent_b
    turn = _turn(
        client=client,
        config=config,
        chunk=pair.chunk,
        build=build,
        round=round,
        agent=agent,
        stance=stance,
    )
    if on_turn is not None:
        on_turn(turn)
    return turn


def _ask_both(
    pair_runner: PairRunner, ask: _AskTurn, round: int, previous: dict[str, TurnRecord]
) -> tuple[dict[str, TurnRecord], BaseException | None]:
    """Ask A's and B's turns of ``round`` at once through ``pair_runner``. Returns the turns
    that arrived, by agent, and the first error (None when both arrived)."""
    results = pair_runner(
        *(partial(ask, agent, stance, round, previous) for agent, stance in AGENTS)
    )
    asked: dict[str, TurnRecord] = {}
    for (agent, _), (turn, _) in zip(AGENTS, results, strict=True):
        if turn is not None:
            asked[agent] = turn
    return asked, next((e for _, e in results if e is not None), None)


def _debate_round(
    round: int,
    previous: dict[str, TurnRecord],
    done: dict[tuple[int, str], TurnRecord],
    ask: _AskTurn,
    pair_runner: PairRunner | None,
    tally: _DebateTally,
) -> dict[str, TurnRecord]:
    """One round's turns by agent, each added to ``tally`` in A, B order.

    A done turn is reused; the others are asked, both at once through ``pair_runner`` when
    neither turn of the round is done, else one after the other. Asked one after the other,
    B is not asked after an unreadable A (the round then holds only A). When one paired call
    raised, the other's turn is tallied, then the error is raised."""
    current: dict[str, TurnRecord] = {}
    asked: dict[str, TurnRecord] = {}
    error: BaseException | None = None
    if pair_runner is not None and not any((round, agent) in done for agent, _ in AGENTS):
        asked, error = _ask_both(pair_runner, ask, round, previous)
    for agent, stance in AGENTS:
        turn = done.get((round, agent)) or asked.get(agent)
        if turn is None:
            if error is not None:
                continue  # the round's other turn is counted, then the error raised
            turn = asked[agent] = ask(agent, stance, round, previous)
        tally.add(turn, new=agent in asked)
        current[agent] = turn
        if turn.label is None and agent == "A" and "B" not in asked:
            if (round, "B") not in done:
                break  # asked one after the other, B is not asked after an unreadable A
    if error is not None:
        raise error
    return current


def judge_single(pair: PairText, client: LLMClient, config: DebateConfig) -> TurnRecord:
    """Single-LLM-judge baseline: one neutral call (plus at most one re-ask), no debate.

    The paper's baseline that recalls only ~50% of irrelevant pairs (Ban et al., 2026,
    Table 1); used by evaluate_assessor. Returns a TurnRecord with agent "J", stance
    "neutral", round 1; ``label`` None when the reply could not be read. ``config.rounds`` is
    ignored; a graded config asks for a grade 0..G. Raises like :func:`debate_pair`.
    """
    _check_version(config)
    grades = config.graded_max_grade
    system = prompts.single_judge_system_prompt(answer_aware=bool(pair.answers), max_grade=grades)

    def build(chunk: str) -> list[ChatMessage]:
        user = prompts.single_judge_user_prompt(
            query=pair.query,
            answers=pair.answers,
            title=pair.title,
            chunk=chunk,
            max_grade=grades,
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    return _turn(
        client=client,
        config=config,
        chunk=pair.chunk,
        build=build,
        round=1,
        agent="J",
        stance="neutral",
    )
