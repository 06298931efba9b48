"""The grading rubric of graded debates: one name and one definition per grade 0..G.

Pure text, no database. This is the ONE place the rubric lives; prompts, reply parsing and
the manual take it from here. The graded prompt version is stored with every graded job and
turn, as :data:`debates.prompts.PROMPT_VERSION` is for binary ones: every graded version
(:data:`GRADED_PROMPT_VERSIONS`) shows this rubric, so a word changed here changes them all
and needs new versions, never an edit of a stored one's text.

Source: the grades are our paraphrase of UMBRELA's four levels (Upadhyay et al., "UMBRELA:
UMbrela is the (Open-Source Reproduction of the) Bing RELevance Assessor", 2024; the TREC
2024 RAG track assessor): nothing to do with the query; related but not answering it; some
answer, unclear or buried among other material; dedicated to the query with the exact
answer. They are adapted to a benchmark's top grade G:

- G = 1 is the binary scale (not relevant / relevant);
- G = 2 (NFCorpus, TREC-COVID) keeps the ends and merges the two middle levels into
  "partially relevant";
- G = 3 (TREC Deep Learning) is UMBRELA's scale;
- G = 4 (Cranfield) splits UMBRELA's top level into a substantial and a complete answer.

Grades above 4 have no rubric (no benchmark we import uses them).
"""

from __future__ import annotations

GRADED_PROMPT_VERSION_V1 = "dream-graded-v1"
# The shared-prefix layout of debates.prompts (same rubric, texts laid out for prefix caches).
GRADED_PROMPT_VERSION_V2 = "dream-graded-v2"
# What a new graded job gets; stored jobs keep the version they were created with.
GRADED_PROMPT_VERSION = GRADED_PROMPT_VERSION_V2
GRADED_PROMPT_VERSIONS = (GRADED_PROMPT_VERSION_V1, GRADED_PROMPT_VERSION_V2)

MIN_GRADE = 1
MAX_GRADE = 4

_NOT_RELEVANT = "the chunk has nothing to do with the query, or only shares a few words with it"
_RELATED = "the chunk is on the query's subject but does not answer it"
_PARTIAL = (
    "the chunk holds some answer to the query, but the answer is incomplete, unclear, or "
    "hidden among unrelated material"
)
_DEDICATED = "the chunk is dedicated to the query and holds its exact, complete answer"

# (name, definition) per grade, lowest first. Names are distinct across each scale and are
# the only words a graded reply may give instead of the number.
_SCALES: dict[int, tuple[tuple[str, str], ...]] = {
    1: (
        ("not relevant", "the chunk holds no evidence that answers the query"),
        ("relevant", "the chunk holds evidence that answers the query"),
    ),
    2: (
        ("not relevant", _NOT_RELEVANT),
        (
            "partially relevant",
            "the chunk is on the query's subject but helps answer it only in part: the "
            "answer is partial, indirect or unclear, or the chunk gives related background",
        ),
        ("highly relevant", "the chunk is dedicated to the query and answers it directly"),
    ),
    3: (
        ("not relevant", _NOT_RELEVANT),
        ("related", _RELATED),
        ("partial answer", _PARTIAL),
        ("exact answer", _DEDICATED),
    ),
    4: (
        ("not relevant", _NOT_RELEVANT),
        ("related", _RELATED),
        ("partial answer", _PARTIAL),
        (
            "substantial answer",
            "the chunk answers most of the query clearly, but not completely or not as its "
            "main subject",
        ),
        ("complete answer", _DEDICATED),
    ),
}


def check_max_grade(max_grade: object) -> int:
    """``max_grade`` if it is an integer G in 1..4 (booleans excluded); ValueError otherwise."""
    if (
        isinstance(max_grade, bool)
        or not isinstance(max_grade, int)
        or not MIN_GRADE <= max_grade <= MAX_GRADE
    ):
        raise ValueError(
            f"the top grade G must be an integer in {MIN_GRADE}..{MAX_GRADE} (graded debates "
            f"have a rubric for those scales only), got {max_grade!r}"
        )
    return max_grade


def grade_names(max_grade: int) -> tuple[str, ...]:
    """The name of each grade 0..G, lowest first, e.g. G = 2: ("not relevant", "partially
    relevant", "highly relevant"). Raises ValueError for G outside 1..4."""
    return tuple(name for name, _ in _SCALES[check_max_grade(max_grade)])


def rubric(max_grade: int) -> tuple[str, ...]:
    """One line per grade 0..G, lowest first: ``"<grade> (<name>): <definition>."``.

    The text the graded prompts show the agents. Raises ValueError for G outside 1..4.
    """
    return tuple(
        f"{grade} ({name}): {definition}."
        for grade, (name, definition) in enumerate(_SCALES[check_max_grade(max_grade)])
    )
