"""What a debate job will cost before it starts: LLM calls, prompt and completion tokens, and
money at the configured prices (:mod:`debates.prices`). Pure: no database; the job form's
estimate (:mod:`debates.estimate_views`) feeds it from a sample of the pool's texts
(:func:`debates.estimate_selectors.job_estimate_inputs`).

The estimate is deliberately simple, and every number in it is documented here:

- **Calls per pair** (:func:`calls_per_pair`): 2 for R = 1 (both agents speak once). For
  R >= 2, ``2 + 2 * (R - 1) * LATER_ROUND_SHARE``: every pair has round 1, and each later round
  is assumed to be reached by :data:`LATER_ROUND_SHARE` (30%) of the pairs. An assumption:
  docs/METHOD.md gives the paper's range (2-4 calls per pair at R = 2) and its escalation
  share (3.5% of pairs, all of which ran both rounds), not the share that agreed in round 1,
  so no measured average is available. Re-asks (a reply cut at its budget, or unreadable) are
  not counted.
- **Prompt tokens per call** (:func:`prompt_tokens_per_call`): a round-1 prompt, built for
  real by :func:`round_one_tokens` (the prompt's fixed text and the pair's query, answers,
  title and chunk), averaged over the sampled pairs and both agents; a later-round call adds
  the previous round's two turns: their fixed headers (built for real,
  :func:`history_fixed_tokens`) and about two replies' worth of completion tokens. Counted
  with :func:`debates.llm.openai_backend.estimate_tokens`, an upper bound (on SmolLM2's
  tokenizer a real count is 54% of it on average, at most 94%; hosted models' tokenizers need
  fewer tokens still), so the prompt side is an overestimate. Prefix caching is not predicted:
  cached prompt tokens, cheaper where ``cached_prompt`` is priced, are counted at full price.
- **Completion tokens per call** (:func:`completion_tokens_per_call`):
  :data:`COMPLETION_TOKENS_PER_CALL` (150), or the job's token budget when smaller. The demo's
  measured 97 a call (SmolLM2-135M, 3,683 completion tokens over 38 calls,
  docs/demo-and-pipeline.md) is a floor; a reply filling the reply schema's bounds (argument
  400 characters, 3 evidence sentences of 250) is about 300. A reasoning model's thinking is
  completion tokens too and can be thousands a call: the estimate is low for those.
- **Pairs too long for the context** (:func:`pair_round_one_tokens`): a call's prompt may take
  the agents' context less the turn's budget (:func:`prompt_limit`). A document longer than
  that is cut to fit when the job runs, so its prompt counts at most the limit; a pair whose
  prompt cannot fit even with an empty document (a query, title or answers that long) makes no
  call and ends escalated as "too_long". A text of more than :data:`CHARS_PER_TOKEN_MAX`
  characters a token of the limit cannot fit (prose takes 3-6 characters a token on every
  tokenizer measured): it is ruled out by its length, never tokenised, and of a document only
  that many characters are read. So an estimate tokenises at most about
  ``SAMPLE_PAIRS * limit * CHARS_PER_TOKEN_MAX`` characters, whatever the pool holds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from debates import prompts
from debates.engine import PairText, TurnRecord, debate_builder
from debates.llm.openai_backend import estimate_tokens
from debates.prices import Price
from debates.turns import MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS

#: Completion tokens assumed per call (see the module docstring for the source).
COMPLETION_TOKENS_PER_CALL = 150
#: Share of pairs assumed to reach each round after the first (an assumption, see above).
LATER_ROUND_SHARE = 0.3
#: The most pairs of a pool whose texts are read for an estimate.
SAMPLE_PAIRS = 200
#: Characters a token takes at most in the "cannot fit" bound (twice the 6 of the sparsest
#: prose measured): a text longer than this many characters a token of the room cannot fit.
CHARS_PER_TOKEN_MAX = 12
#: What a prompt of two messages takes besides their text (as :mod:`debates.turns` counts).
PROMPT_OVERHEAD_TOKENS = 2 * MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS


@dataclass(frozen=True, slots=True)
class SamplePair:
    """The texts of one pooled pair an agent sees: query, reference answers, title, chunk."""

    query: str
    title: str
    chunk: str
    answers: tuple[str, ...] = ()
    #: How the pair is named in a sentence ("q1 / d7"); "" when unknown.
    name: str = ""
    #: The query or title is longer than the selector read (so the pair cannot fit).
    too_long: bool = False


# An earlier turn with no argument and no evidence: what a later round's prompt adds around
# the turns' own text.
_EMPTY_TURN = TurnRecord(
    round=1,
    agent="A",
    stance="relevant",
    label=1,
    argument="",
    evidence=(),
    raw="",
    model="",
    prompt_tokens=0,
    completion_tokens=0,
    latency_ms=0.0,
    attempts=1,
    parse_error=None,
)


@dataclass(frozen=True, slots=True)
class JobCostEstimate:
    """A job's estimated cost: ``pairs``, LLM ``calls``, ``prompt_tokens`` and
    ``completion_tokens`` (all whole numbers), ``money`` at the normal prices and
    ``batch_money`` at the batch prices (as ``money`` when no batch price is set); both None
    when a price is unknown. ``batch_priced``: a batch price was set for some agent."""

    pairs: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    money: float | None
    batch_money: float | None
    batch_priced: bool = False


def calls_per_pair(rounds: int) -> float:
    """Average LLM calls per pair of a job of R = ``rounds`` (1..5): 2 for R = 1, else
    ``2 + 2 * (R - 1) * LATER_ROUND_SHARE`` (2.6 for R = 2, 3.2 for R = 3). Raises ValueError
    for R < 1."""
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    return 2 + 2 * (rounds - 1) * LATER_ROUND_SHARE


def completion_tokens_per_call(max_tokens: int) -> int:
    """Completion tokens per call: :data:`COMPLETION_TOKENS_PER_CALL`, or ``max_tokens`` (a
    turn's first budget) when smaller."""
    return min(COMPLETION_TOKENS_PER_CALL, max_tokens)


def _prompt_tokens(
    pair: SamplePair,
    *,
    agent: str,
    round: int,
    version: str,
    max_grade: int | None,
    turn: TurnRecord | None = None,
) -> int:
    """``estimate_tokens`` of ``agent``'s messages in ``round``, built by the engine's own
    builder (:func:`debates.engine.debate_builder`), ``turn`` standing for both turns of
    the previous round."""
    text = PairText(
        query_id="", query=pair.query, doc_id="", title=pair.title, chunk="", answers=pair.answers
    )
    build = debate_builder(
        pair=text,
        agent=agent,
        stance=prompts.AGENT_STANCES[agent],
        round=round,
        previous={"A": turn, "B": turn} if turn is not None else {},
        max_grade=max_grade,
        version=version,
    )
    return sum(estimate_tokens(m["content"]) for m in build(pair.chunk))


def round_one_tokens(pair: SamplePair, *, version: str, max_grade: int | None = None) -> float:
    """Estimated prompt tokens of a round-1 call on ``pair``: the real messages of agent A's
    and agent B's call (prompt ``version``; grades 0..``max_grade`` when graded), counted with
    ``estimate_tokens``, averaged over the two agents."""
    counts = [
        _prompt_tokens(pair, agent=a, round=1, version=version, max_grade=max_grade)
        for a in prompts.AGENT_STANCES
    ]
    return sum(counts) / len(counts)


def prompt_limit(*, context_window: int, max_tokens: int) -> int:
    """Tokens a turn's prompt text may take in a context of ``context_window`` tokens: the
    context less the first budget (``max_tokens``, at most half the context, as
    :func:`debates.turns.turn_ask` takes it) and :data:`PROMPT_OVERHEAD_TOKENS`."""
    budget = max(1, min(max_tokens, context_window // 2))
    return context_window - budget - PROMPT_OVERHEAD_TOKENS


def chars_cannot_fit(chars: int, limit: int) -> bool:
    """Whether a text of ``chars`` characters certainly cannot fit ``limit`` tokens: more than
    :data:`CHARS_PER_TOKEN_MAX` characters for each token."""
    return chars > limit * CHARS_PER_TOKEN_MAX


def pair_round_one_tokens(
    pair: SamplePair, *, version: str, limit: int, max_grade: int | None = None
) -> float | None:
    """Estimated prompt tokens of a round-1 call on ``pair`` as the job will send it, or
    None when the pair cannot fit ``limit`` tokens (:func:`prompt_limit`) even with an empty
    chunk. The chunk is cut to fit when the job runs, so each agent's count is at most
    ``limit``; averaged over the two agents as :func:`round_one_tokens`.

    Nothing ruled out by its length is tokenised: a pair marked ``too_long``, or whose query,
    title and answers together pass :func:`chars_cannot_fit`, is None at once. ``pair.chunk``
    should hold at most ``limit * CHARS_PER_TOKEN_MAX`` characters (the rest could not be
    sent anyway; :func:`debates.estimate_selectors.job_pairs_sample` reads no more)."""
    fixed_chars = len(pair.query) + len(pair.title) + sum(len(a) for a in pair.answers)
    if pair.too_long or chars_cannot_fit(fixed_chars, limit):
        return None
    empty = replace(pair, chunk="")
    counts = []
    for agent in prompts.AGENT_STANCES:
        fixed = _prompt_tokens(empty, agent=agent, round=1, version=version, max_grade=max_grade)
        if fixed > limit:
            return None
        whole = _prompt_tokens(pair, agent=agent, round=1, version=version, max_grade=max_grade)
        counts.append(min(whole, limit))
    return sum(counts) / len(counts)


def history_fixed_tokens(*, version: str, max_grade: int | None = None) -> float:
    """Estimated prompt tokens a round-2 call adds to a round-1 call besides the two turns'
    own argument and evidence: the turn headers, blocks and instruction (real messages built
    with empty turns, averaged over both agents)."""
    empty = SamplePair(query="", title="", chunk="")
    extra = []
    for agent in prompts.AGENT_STANCES:
        one = _prompt_tokens(empty, agent=agent, round=1, version=version, max_grade=max_grade)
        two = _prompt_tokens(
            empty, agent=agent, round=2, version=version, max_grade=max_grade, turn=_EMPTY_TURN
        )
        extra.append(two - one)
    return sum(extra) / len(extra)


def prompt_tokens_per_call(
    *, round_one: float, history_fixed: float, completion: int, rounds: int
) -> float:
    """Average prompt tokens per call of a job of R = ``rounds``: ``round_one`` (a round-1
    call's prompt) plus, on the share of calls in later rounds (:func:`calls_per_pair`), the
    previous round's turns: ``history_fixed`` plus two replies of ``completion`` tokens."""
    later_share = (calls_per_pair(rounds) - 2) / calls_per_pair(rounds)
    return round_one + later_share * (history_fixed + 2 * completion)


def _money(
    prices: tuple[Price | None, Price | None], prompt: float, completion: float, *, batch: bool
) -> float | None:
    # Both agents speak in every round: each makes half the calls.
    if prices[0] is None or prices[1] is None:
        return None
    return sum(p.of(prompt / 2, completion / 2, batch=batch) for p in (prices[0], prices[1]))


def job_cost_estimate(
    *,
    pairs: int,
    prompt_tokens_per_call: float,
    completion_tokens_per_call: float,
    calls_per_pair: float,
    price: Price | None | tuple[Price | None, Price | None],
) -> JobCostEstimate:
    """The estimated cost of debating ``pairs`` pairs.

    ``calls = round(pairs * calls_per_pair)``; prompt and completion tokens are the calls
    times the tokens per call, rounded; money is those tokens at ``price`` (one price for both
    agents, or agent A's and agent B's, each paying for half the calls; money per 1,000
    tokens, no cached tokens assumed) with :meth:`Price.of`, and at its batch prices for
    ``batch_money``. Money is None when a price is None. Raises ValueError for a negative
    count.
    """
    if min(pairs, prompt_tokens_per_call, completion_tokens_per_call, calls_per_pair) < 0:
        raise ValueError("an estimate needs counts >= 0")
    calls = round(pairs * calls_per_pair)
    prompt = round(pairs * calls_per_pair * prompt_tokens_per_call)
    completion = round(pairs * calls_per_pair * completion_tokens_per_call)
    both = price if isinstance(price, tuple) else (price, price)
    return JobCostEstimate(
        pairs=pairs,
        calls=calls,
        prompt_tokens=prompt,
        completion_tokens=completion,
        money=_money(both, prompt, completion, batch=False),
        batch_money=_money(both, prompt, completion, batch=True),
        batch_priced=any(p is not None and p.has_batch_prices for p in both),
    )


def format_tokens(count: int) -> str:
    """A token count for a sentence: ``"12,345"`` below 100,000, else millions with two
    significant decimals (``"0.15 M"``, ``"1.2 M"``, ``"34.5 M"``)."""
    if count < 100_000:
        return f"{count:,}"
    if count < 1_000_000:
        return f"{count / 1e6:.2f} M"
    return f"{count / 1e6:,.1f} M"


def format_money(value: float) -> str:
    """Money for a sentence: no decimals from 100, 2 from 1, else 4 (``"1,234"``,
    ``"3.40"``, ``"0.0012"``)."""
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.4f}"


def too_long_warning(count: int, names: tuple[str, ...] | list[str], *, context: int) -> str:
    """The sentence a job's page, its API body and a launch give for ``count`` pairs too long
    for a ``context``-token context (``names``: some of them, "query id / doc id"); "" for
    none."""
    if not count:
        return ""
    listed = ", ".join(names) + (", ..." if count > len(names) else "")
    pairs = "1 pair" if count == 1 else f"{count:,} pairs"
    return (
        f"{pairs} cannot fit the agents' context ({context:,} tokens) even with an empty "
        f"document ({listed}): they make no LLM call and end escalated as too long for the "
        "context, for a human to judge"
    )
