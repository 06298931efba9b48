"""Prompt-prefix reuse within a debate: the v1 prompt layout (``dream-v1``, the anchor) against
the shared-prefix layout (``dream-v2``), on the same debates in the same run.

A prefix cache (vLLM and SGLang automatic prefix caching, OpenAI's cached input) serves the
tokens of a prompt that repeat the start of a prompt it has already seen. For each layout the
real engine (:func:`debates.engine.debate_pair`) runs 200 SciFact debates with scripted agents
and every call's messages are kept; each call is rendered to one string as a chat template
would, with the fixed rendering ``<|system|>\\n{system}\\n<|user|>\\n{user}\\n<|assistant|>\\n``
(each message ``<|role|>\\n{content}\\n`` in order, then the generation prompt), and tokenised
with the bundled all-MiniLM-L6-v2 word-piece tokenizer (offline; an uncased BERT vocabulary,
a stand-in for a chat model's own tokenizer). A call's repeated tokens are its longest common
token prefix with any earlier call of the same debate (calls in speaking order A1, B1, A2,
B2); the repeated share is their sum over total prompt tokens.

Pairs: the first 200 judged SciFact test pairs (``qrels/test.tsv.gz``, all grade 1) in
(query id, document id) code-point order, title and abstract as the chunk. R = 2; the pairs
at even positions agree in round 1 (both agents say relevant: 2 calls), those at odd
positions disagree in round 1 and go to round 2 (4 calls). Replies are fixed JSON of about 60
words: a 40-odd-word argument and one evidence sentence quoted from the chunk (A: its first
sentence, B: its last, at most 250 characters). Targets with dream-v2: a repeated share of at
least 60% for round-2 debates and 45% for round-1-only ones. Deterministic: no timing, no
model, no database, no network.

    .venv/bin/python bench/prefix_bench.py [--pairs 200]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
os.environ["HF_HUB_OFFLINE"] = "1"  # the tokenizer ships in site-packages: never the Hub

from _common import jsonl_gz  # noqa: E402

from debates import prompts  # noqa: E402
from debates.engine import DebateConfig, PairText, debate_pair  # noqa: E402
from debates.llm.base import ChatMessage, GenerationParams, LLMResult  # noqa: E402

SCIFACT = REPO / "data" / "scifact"
LAYOUTS = (prompts.PROMPT_VERSION_V1, prompts.PROMPT_VERSION_V2)
TARGETS = {"round 2": 0.60, "round 1 only": 0.45}

# About 40 words each; with the quoted evidence sentence a reply is about 60 words.
ARGUMENTS = {
    ("A", 1): "The chunk reports a study that bears directly on the claim in the query. Its "
    "results measure the very effect the query names, in the population it names, so the "
    "chunk holds evidence that answers the query rather than merely sharing its topic.",
    ("B", 1, True): "I concede: the study in the chunk measures the effect the query names "
    "and reports a result for it, in the population it names. That is evidence that answers "
    "the query, not only shared words, so the chunk is relevant.",
    ("B", 1, False): "The chunk is on the topic of the query but does not test its claim. The "
    "study measures a related outcome in a different setting, so nothing in it confirms or "
    "refutes the query; shared words and a common subject are not evidence that answers it.",
    ("A", 2): "The other judge says the study measures a different outcome, but the quoted "
    "sentence reports the very outcome of the query. The chunk answers the claim directly, "
    "so my label stays relevant after reading both turns of round one.",
    ("B", 2): "Judge A reads the quoted sentence as the query's outcome, yet the study's "
    "population and endpoint differ from the claim. The chunk stays on the topic without "
    "answering it, so after reading both turns my label stays irrelevant.",
}


def judged_pairs(count: int) -> list[PairText]:
    """The first ``count`` judged SciFact test pairs in (query id, doc id) code-point order."""
    docs = {d["_id"]: d for d in jsonl_gz(SCIFACT / "corpus.jsonl.gz")}
    queries = {q["_id"]: q["text"] for q in jsonl_gz(SCIFACT / "queries.jsonl.gz")}
    with gzip.open(SCIFACT / "qrels" / "test.tsv.gz", "rt", encoding="utf-8") as handle:
        rows = [line.rstrip("\n").split("\t") for line in handle][1:]  # a header line first
    keys = sorted({(q, d) for q, d, grade in rows if int(grade) > 0})[:count]
    return [
        PairText(
            query_id=q,
            query=queries[q],
            doc_id=d,
            title=docs[d].get("title", ""),
            chunk=docs[d]["text"],
        )
        for q, d in keys
    ]


def _quote(chunk: str, last: bool) -> str:
    """The chunk's first (or last) sentence, word for word, at most 250 characters."""
    sentences = [s.strip() for s in chunk.replace("\n", " ").split(". ") if s.strip()]
    sentence = sentences[-1 if last else 0]
    sentence = sentence if sentence.endswith(".") else sentence + "."
    if len(sentence) > prompts.EVIDENCE_MAX_CHARS:
        sentence = sentence[: prompts.EVIDENCE_MAX_CHARS].rsplit(" ", 1)[0]
    return sentence


def scripted_replies(pair: PairText, agrees: bool) -> dict[tuple[str, int], str]:
    """The reply of each (agent, round): A argues relevant; B agrees in round 1 (``agrees``)
    or disagrees, and both keep their label in round 2."""
    a = {"evidence": [_quote(pair.chunk, last=False)]}
    b = {"evidence": [_quote(pair.chunk, last=True)]}
    replies = {
        ("A", 1): {"label": 1, "argument": ARGUMENTS[("A", 1)], **a},
        ("B", 1): {"label": int(agrees), "argument": ARGUMENTS[("B", 1, agrees)], **b},
        ("A", 2): {"label": 1, "argument": ARGUMENTS[("A", 2)], **a},
        ("B", 2): {"label": 0, "argument": ARGUMENTS[("B", 2)], **b},
    }
    return {key: json.dumps(value) for key, value in replies.items()}


class ScriptedAgent:
    """An LLM client that answers from ``replies`` by (agent, round) and appends every call's
    messages to the shared ``log``. Its context is large enough that no chunk is ever cut."""

    model = "scripted"
    context_window = 1_000_000

    def __init__(self, agent: str, replies: dict, log: list[list[ChatMessage]]) -> None:
        self.agent, self.replies, self.log, self.round = agent, replies, log, 0

    def count_tokens(self, text: str) -> int:
        return len(text) // 4 + 1  # only to check the (huge) context window

    def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
        self.log.append([dict(m) for m in messages])  # type: ignore[misc]
        self.round += 1
        text = self.replies[(self.agent, self.round)]
        return LLMResult(text, self.model, 0, 0, 0.0, "stop")


def debate_calls(pair: PairText, agrees: bool, version: str) -> list[list[ChatMessage]]:
    """The messages of every call of ``pair``'s debate under prompt ``version``, in order."""
    replies = scripted_replies(pair, agrees)
    log: list[list[ChatMessage]] = []
    agent_a, agent_b = ScriptedAgent("A", replies, log), ScriptedAgent("B", replies, log)
    outcome = debate_pair(pair, agent_a, agent_b, DebateConfig(rounds=2, prompt_version=version))
    assert outcome.consensus_round == (1 if agrees else None), outcome
    return log


def render(messages: Sequence[ChatMessage]) -> str:
    """One call as a chat template would lay it out (the fixed rendering of the docstring)."""
    return "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in messages) + "<|assistant|>\n"


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def measure(tokenizer, pairs: list[PairText], version: str) -> dict[str, list[int]]:
    """Per group ("round 2", "round 1 only"): [debates, calls, prompt tokens, repeated]."""
    totals = {group: [0, 0, 0, 0] for group in TARGETS}
    for index, pair in enumerate(pairs):
        agrees = index % 2 == 0
        calls = [
            tokenizer(render(m), add_special_tokens=False)["input_ids"]
            for m in debate_calls(pair, agrees, version)
        ]
        repeated = sum(
            max((common_prefix(call, earlier) for earlier in calls[:i]), default=0)
            for i, call in enumerate(calls)
        )
        group = totals["round 1 only" if agrees else "round 2"]
        group[0] += 1
        group[1] += len(calls)
        group[2] += sum(len(call) for call in calls)
        group[3] += repeated
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=200)
    args = parser.parse_args()

    from transformers.utils import logging as hf_logging

    from corpora.retrieval import load_tokenizer

    hf_logging.set_verbosity_error()  # the 512-token model limit does not apply to counting
    tokenizer = load_tokenizer()
    pairs = judged_pairs(args.pairs)
    print(
        f"{len(pairs)} judged SciFact test pairs, R = 2 ({(len(pairs) + 1) // 2} agree in "
        f"round 1, {len(pairs) // 2} go to round 2); all-MiniLM-L6-v2 word pieces; rendering "
        "<|system|>\\n...\\n<|user|>\\n...\\n<|assistant|>\\n"
    )
    print(
        f"{'layout':<10} {'debates':<14} {'pairs':>5} {'calls':>5} {'tokens/pair':>11} "
        f"{'repeated':>8} {'not repeated/pair':>17}"
    )
    shares: dict[tuple[str, str], float] = {}
    per_pair: dict[tuple[str, str], float] = {}
    for version in LAYOUTS:
        for group, (debates, calls, tokens, repeated) in measure(tokenizer, pairs, version).items():
            shares[version, group] = repeated / tokens
            per_pair[version, group] = tokens / debates
            print(
                f"{version:<10} {group:<14} {debates:>5} {calls:>5} {tokens / debates:>11,.0f} "
                f"{repeated / tokens:>8.1%} {(tokens - repeated) / debates:>17,.0f}"
            )
    old, new = LAYOUTS
    for group, target in TARGETS.items():
        share = shares[new, group]
        print(
            f"{group}: repeated share {new} {share:.1%} / {old} {shares[old, group]:.1%} = "
            f"{share / shares[old, group]:.2f}x; tokens/pair {new}/{old} = "
            f"{per_pair[new, group] / per_pair[old, group]:.3f}; target >= {target:.0%}: "
            f"{'met' if share >= target else 'NOT met'}"
        )


if __name__ == "__main__":
    main()
