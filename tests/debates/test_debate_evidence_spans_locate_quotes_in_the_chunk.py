"""evidence_spans finds each quoted sentence in the chunk, tolerant of case and whitespace."""

from debates.engine import evidence_spans

CHUNK = "Vitamin D helps.  It reduced HIP\nfractures by 30%. Lower doses did not."
# Offsets by hand: "Vitamin D helps." is 0-15, two spaces 16-17, "It reduced HIP" 18-31,
# "\n" 32, "fractures by 30%." 33-49, a space 50, "Lower doses did not." 51-70 ("doses" at 57).


def test_exact_case_and_whitespace_variants_are_found_with_hand_worked_spans():
    spans = evidence_spans(
        CHUNK,
        [
            "Vitamin D helps.",  # exact
            "it reduced hip fractures by 30%.",  # other case, one space for "\n"
            "  lower   doses did NOT. ",  # padded, doubled spaces
        ],
    )

    assert spans == [(0, 16), (18, 50), (51, 71)]
    assert [CHUNK[s:e] for s, e in spans] == [
        "Vitamin D helps.",
        "It reduced HIP\nfractures by 30%.",
        "Lower doses did not.",
    ]


def test_quotes_not_in_the_chunk_and_empty_quotes_are_skipped():
    spans = evidence_spans(CHUNK, ["Vitamin C helps.", "", "   ", "doses did"])

    assert spans == [(57, 66)]
    assert CHUNK[57:66] == "doses did"


def test_quote_marks_and_a_trailing_ellipsis_around_a_quote_are_ignored():
    spans = evidence_spans(CHUNK, ['"Vitamin D helps."', "“Lower doses…”", "It reduced HIP..."])

    assert [CHUNK[s:e] for s, e in spans] == ["Vitamin D helps.", "Lower doses", "It reduced HIP"]


def test_the_first_occurrence_counts_and_spans_keep_evidence_order():
    chunk = "no effect. Yes effect. No effect."

    assert evidence_spans(chunk, ["yes effect", "NO EFFECT"]) == [(11, 21), (0, 9)]


def test_case_folding_that_changes_length_keeps_offsets_right():
    chunk = "Die Straße ist lang. ΣΟΦΙΑ"

    spans = evidence_spans(chunk, ["STRASSE ist", "σοφια"])

    assert [chunk[s:e] for s, e in spans] == ["Straße ist", "ΣΟΦΙΑ"]
