"""The DREAM debate engine: two agents of opposite initial stance debate one query–chunk pair.

Method: DREAM (Ban et al., "Completing Missing Annotation: Multi-Agent Debate for Accurate and
Scalable Relevance Assessment for IR Benchmarks", ICLR 2026, arXiv 2602.06526), summarised in
``docs/METHOD.md``. Agent A starts from stance "relevant", agent B from "irrelevant". In round
1 each argues its stance from the chunk; in round j > 1 each reads both turns of round j - 1,
critiques the opponent and gives an updated label. The first round whose two labels agree
ends the debate (consensus); after R rounds without agreement the pair is escalated to a
human. Each turn is asked by :func:`debates.turns.turn_ask`: a reply that cannot be read is
re-asked once, a reply cut at its token budget is re-asked once with twice the budget; a turn
still unread escalates the debate at once ("unparsed", or "truncated" when cut): a parse
failure is never a label, and a reasoning model's reasoning is never read as its answer. A
turn whose prompt cannot fit the agent's context even with an empty chunk (a query, title or
answers longer than the context, or a previous round too long to quote) escalates the debate
as "too_long": a human has to read such a pair, and asking again would meet the same wall.

Graded debates (``DebateConfig(scale="graded", max_grade=G)``, our extension, not in the
paper): each label is a grade 0..G with the rubric of :mod:`debates.rubric`; A argues for the
highest grade the chunk's evidence supports, B starts from grade 0. A round reaches
consensus by the config's rule (:func:`consensus_label`): "exact" needs the same grade,
"binary" only the same side of relevance (both >= 1 or both 0) and keeps the lower grade.
Binary debates (the default) are the paper's method, unchanged.

The prompts are those of the config's prompt version (:mod:`debates.prompts`): the default
``dream-v2`` / ``dream-graded-v2`` lays every call of a debate out so it repeats the longest
possible prefix of the calls before it (for prefix caches); ``dream-v1`` / ``dream-graded-v1``
stay selectable so a stored job is resumed and re-run with the very prompts it began with.

Pure logic: no database. The caller persists each new turn through ``on_turn`` and can resume
an interrupted debate by passing the stored turns back as ``done_turns``. LLM errors
(:class:`~debates.llm.base.TransientLLMError`, :class:`~debates.llm.base.PermanentLLMError`)
propagate unchanged; retrying is the caller's business.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from debates import prompts, rubric
from debates.llm.base import ChatMessage, LLMClient
from debates.parsing import evidence_spans
from debates.turns import (
    SEED,
    PromptTooLongError,
    TurnRecord,
    TurnSettings,
    prompt_token_count,
    turn_ask,
)

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
    "SEED",
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
# (agent, initial stance), in speaking order; the shared-prefix prompts name them the same way.
AGENTS = tuple(prompts.AGENT_STANCES.items())


@dataclass(frozen=True, slots=True)
class PairText:
    """What the agents see of one query–chunk pair. ``answers`` are reference answers."""

    query_id: str
    query: str
    doc_id: str
    title: str
    chunk: str
    answers: tuple[str, ...] = ()


# The paper's defaults: R = 2 rounds at temperature 0 (a job's defaults are these, see
# debates.services.launch.JobOptions and the DebateJob model).
DEFAULT_ROUNDS = 2
DEFAULT_TEMPERATURE = 0.0


def max_tokens_cap_effective(max_tokens: int, cap: int | None) -> int:
    """The most a re-ask of a reply cut at its budget gets (tokens): ``cap`` when a job set
    one, else the default, twice ``max_tokens`` (:mod:`debates.turns` doubles a cut reply's
    budget, up to this cap). Every place that states a job's cap states this value, with
    whether it was the default (``cap is None``)."""
    return cap if cap is not None else 2 * max_tokens


@dataclass(frozen=True, slots=True)
class DebateConfig:
    """Debate settings. ``rounds`` is R (1..5), ``max_tokens`` the completion budget of a
    turn's first call and ``max_tokens_cap`` the most a re-ask of a reply cut at its budget
    may get (None: twice ``max_tokens``; equal to it: a cut reply is not asked again); see
    :mod:`debates.turns`.

    ``scale`` "binary" (labels 1/0, the paper's method) or "graded" (grades 0..``max_grade``,
    G in 1..4; ``max_grade`` must stay 1 when binary). ``consensus`` "exact" or "binary" (see
    :func:`consensus_label`; the two are the same on the binary scale). ``prompt_version`` is
    one of the scale's :data:`prompts.PROMPT_VERSIONS` (``dream-v1`` or ``dream-v2``;
    ``dream-graded-v1`` or ``dream-graded-v2``), "" for this code's default
    (:data:`prompts.PROMPT_VERSION` or :data:`prompts.GRADED_PROMPT_VERSION`, the
    shared-prefix layout); a stored job passes its own, so it is resumed with its prompts.

    Raises ValueError on construction for rounds outside 1..5, a negative temperature, a
    max_tokens below 1, a cap below max_tokens, an unknown scale or consensus rule, a G the
    scale does not allow, or a prompt version the scale does not have (naming those it has).
    Paper defaults: R = 2, temperature 0, binary.

    ``min_agreement_probability`` (0..1; 0, the default, turns it off): a round whose agents
    agree, each with a label probability read from the server's logprobs
    (:attr:`debates.turns.TurnRecord.label_probability`), escalates as "low_confidence" when
    either probability is below it, instead of settling (the agents agree, but at least one
    of them barely: LARA, Takehi et al., SIGIR 2025, sends such pairs to humans). An agent
    without a probability (a server that sends no logprobs) cannot trigger it.
    """

    rounds: int = DEFAULT_ROUNDS
    temperature: float = DEFAULT_TEMPERATURE
    max_tokens: int = 384
    max_tokens_cap: int | None = None
    prompt_version: str = ""
    scale: str = "binary"
    max_grade: int = 1
    consensus: str = "exact"
    min_agreement_probability: float = 0.0

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
        version = prompts.prompt_version_check(self.prompt_version, self.scale)
        object.__setattr__(self, "prompt_version", version)
        if (
            isinstance(self.rounds, bool)
            or not isinstance(self.rounds, int)
            or not 1 <= self.rounds <= MAX_ROUNDS
        ):
            raise ValueError(f"rounds must be an integer in 1..{MAX_ROUNDS}, got {self.rounds!r}")
        if not 0.0 <= self.min_agreement_probability <= 1.0:
            raise ValueError(
                "min_agreement_probability must be between 0 and 1, got "
                f"{self.min_agreement_probability!r}"
            )
        if not self.temperature >= 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature!r}")
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int):
            raise ValueError(f"max_tokens must be an integer, got {self.max_tokens!r}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        cap = self.max_tokens_cap
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int)):
            raise ValueError(f"max_tokens_cap must be an integer, got {cap!r}")
        if cap is not None and cap < self.max_tokens:
            raise ValueError(
                f"max_tokens_cap must be at least max_tokens ({self.max_tokens}), got {cap}"
            )

    @property
    def turn_settings(self) -> TurnSettings:
        """How each turn is asked (:class:`debates.turns.TurnSettings`); the cap filled in."""
        cap = max_tokens_cap_effective(self.max_tokens, self.max_tokens_cap)
        return TurnSettings(
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            max_tokens_cap=cap,
            max_grade=self.graded_max_grade,
        )


@dataclass(frozen=True, slots=True)
class DebateOutcome:
    """The result of :func:`debate_pair`.

    ``status`` "agreed" (``final_label`` and ``consensus_round`` set) or "escalated"
    (``escalation_reason`` "disagreement", "unparsed", "truncated": a reply still cut at
    its budget after the re-ask, or "too_long": a prompt that cannot fit the context even
    with an empty chunk). ``turns`` is the whole history in speaking order, done
    turns included. ``calls``, tokens and ``latency_ms`` count only the LLM calls made by
    this invocation (re-asks included); ``reasoning_tokens`` and ``cached_tokens`` are parts
    of the completion and prompt tokens.
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
    reasoning_tokens: int = 0
    cached_tokens: int = 0


def debate_builder(
    *,
    pair: PairText,
    agent: str,
    stance: str,
    round: int,
    previous: dict[str, TurnRecord],
    max_grade: int | None,
    version: str,
) -> Callable[[str], list[ChatMessage]]:
    """The messages of ``agent``'s turn of ``round`` (``previous``: the turns of round
    ``round - 1`` by agent) as a function of the (possibly cut) chunk text, in the layout of
    prompt ``version`` (see :mod:`debates.prompts`): one system and one user message."""
    aware = bool(pair.answers)
    if version in prompts.SHARED_PREFIX_VERSIONS:
        system = prompts.shared_system_prompt(answer_aware=aware, max_grade=max_grade)

        def user(chunk: str) -> str:
            return prompts.shared_user_prompt(
                agent=agent,
                round=round,
                query=pair.query,
                answers=pair.answers,
                title=pair.title,
                chunk=chunk,
                turn_a=previous.get("A"),
                turn_b=previous.get("B"),
                max_grade=max_grade,
            )
    else:
        system = prompts.debate_system_prompt(
            stance=stance, answer_aware=aware, max_grade=max_grade
        )

        def user(chunk: str) -> str:
            return prompts.debate_user_prompt(
                stance=stance,
                round=round,
                query=pair.query,
                answers=pair.answers,
                title=pair.title,
                chunk=chunk,
                own_previous=previous.get(agent),
                opponent_previous=previous.get("B" if agent == "A" else "A"),
                max_grade=max_grade,
            )

    def build(chunk: str) -> list[ChatMessage]:
        return [{"role": "system", "content": system}, {"role": "user", "content": user(chunk)}]

    return build


def _check_version(config: DebateConfig) -> None:
    """Raise ValueError unless this code has ``config``'s prompt version for its scale (a
    config is checked when made; this guards one changed behind its back)."""
    prompts.prompt_version_check(config.prompt_version, config.scale)


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
    before the next LLM call. At most 2R turns of at most three calls each
    (:func:`debates.turns.turn_ask`).

    With ``pair_runner`` (see :data:`PairRunner`) the two turns of a round, which are
    independent, are asked at once: a debate then takes R call latencies instead of 2R. The
    prompts, labels and outcome (turns in A, B order) are the same; each turn is passed to
    ``on_turn`` as soon as it arrives, from the runner's thread, so B's may come first. The
    one difference: when A's reply is unreadable, B's turn of that round was asked too (and
    is kept). When one of the two calls raises, the other's turn is stored all the same and
    the error propagates after both ended, so a resumed debate asks only the missing one.

    Raises ValueError for a prompt version this code does not have, or for done_turns that
    are not the beginning of a debate (unknown agent, duplicate, round beyond R or after the
    debate ended). A prompt that cannot fit even with an empty chunk
    (:class:`debates.turns.PromptTooLongError`, found before its call) ends the debate
    escalated as "too_long", with the turns stored before it. TransientLLMError /
    PermanentLLMError (a server's own ContextTooLongError among them) propagate unchanged.
    """
    _check_version(config)
    done = _done_turns_by_key(done_turns, config)
    ask = partial(_ask_turn, pair, agent_a, agent_b, config, on_turn)
    tally = _DebateTally()
    previous: dict[str, TurnRecord] = {}
    for round in range(1, config.rounds + 1):
        try:
            current = _debate_round(round, previous, done, ask, pair_runner, tally)
        except PromptTooLongError:
            # Counted before any call: the pair's texts (or the history to quote) are longer
            # than the context, and would be on every later attempt too.
            return tally.outcome("escalated", None, None, "too_long")
        unread = [turn for turn in current.values() if turn.label is None]
        if unread:
            reason = "truncated" if any(t.cut_off for t in unread) else "unparsed"
            return tally.outcome("escalated", None, None, reason)
        label_a, label_b = current["A"].label, current["B"].label
        assert label_a is not None and label_b is not None  # every label was read (above)
        agreed = consensus_label(label_a, label_b, config.consensus)
        if agreed is not None and _unsure(current, config.min_agreement_probability):
            return tally.outcome("escalated", None, None, "low_confidence")
        if agreed is not None:
            return tally.outcome("agreed", agreed, round, None)
        previous = current
    return tally.outcome("escalated", None, None, "disagreement")


def _unsure(turns: dict[str, TurnRecord], floor: float) -> bool:
    """Whether an agreeing round is too unsure to settle: some agent's label probability is
    known and below ``floor`` (0: never)."""
    known = [t.label_probability for t in turns.values() if t.label_probability is not None]
    return floor > 0 and any(p < floor for p in known)


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
            reasoning_tokens=sum(t.reasoning_tokens for t in self.new_turns),
            cached_tokens=sum(t.cached_tokens for t in self.new_turns),
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
    """Ask ``agent`` ("A" or "B") for its turn of ``round`` and hand it to ``on_turn`` the
    moment it arrives (the service's writer stores it before the next round's calls: a
    crash then repeats at most the calls of the round it was in)."""
    build = debate_builder(
        pair=pair,
        agent=agent,
        stance=stance,
        round=round,
        previous=previous,
        max_grade=config.graded_max_grade,
        version=config.prompt_version,
    )
    client = agent_a if agent == "A" else agent_b
    # A client that must know which turn its requests belong to (the batch path names each
    # request by debate, round, agent and attempt) is told before the turn's first call.
    turn_begin = getattr(client, "turn_begin", None)
    if turn_begin is not None:
        turn_begin(round)
    turn = turn_ask(
        client=client,
        settings=config.turn_settings,
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


def judge_single(
    pair: PairText, client: LLMClient, config: DebateConfig, *, sample: int = 0
) -> TurnRecord:
    """Single-LLM-judge baseline: one neutral turn (re-asked as a debate turn is, see
    :func:`debates.turns.turn_ask`), no debate.

    The paper's baseline that recalls only ~50% of irrelevant pairs (Ban et al., 2026,
    Table 1); used by evaluate_assessor. Returns a TurnRecord with agent "J", stance
    "neutral", round 1; ``label`` None when the reply could not be read. ``config.rounds`` is
    ignored; a graded config asks for a grade 0..G. ``sample`` k (0, 1, ...) is the k-th of
    several draws for the same pair (:mod:`debates.votes`): its calls carry the seed
    :data:`debates.turns.SEED` + k, so a server that honours seeds draws another reply.
    Raises like :func:`debate_pair`.
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

    settings = config.turn_settings
    if sample:
        settings = replace(settings, seed=settings.seed + sample)
    return turn_ask(
        client=client,
        settings=settings,
        chunk=pair.chunk,
        build=build,
        round=1,
        agent="J",
        stance="neutral",
    )
