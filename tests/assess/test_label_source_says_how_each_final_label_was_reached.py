"""Every export with provenance says where each final label came from: consensus, one human,
several humans unanimous or by majority, an adjudication; the benchmark datasheet counts the
human labels that way and names the annotators a refinement left out."""

import pytest

from assess.refined.datasheet import datasheet_render
from assess.refined.export_formats import LABEL_SOURCES, label_source
from tests.assess.test_benchmark_datasheet_says_how_the_labels_were_made import sheet


@pytest.mark.parametrize(
    ("source", "labels", "expected"),
    [
        ("consensus", [], "consensus"),
        ("human", [1], "single-human"),
        ("human", [0, 0, 0], "humans-unanimous"),
        ("human", [1, 1, 0], "humans-majority"),
        ("human", [2, 1, 2], "humans-majority"),
        ("adjudicated", [1, 0], "adjudicated"),
        ("unresolved", [1, 0], "unresolved"),
    ],
)
def test_a_labels_source_follows_its_judgments(source, labels, expected):
    assert label_source(source, labels) == expected
    assert expected in LABEL_SOURCES


def test_an_unknown_source_is_refused():
    with pytest.raises(ValueError, match="unknown label source 'llm'"):
        label_source("llm", [])


def test_the_datasheet_counts_human_labels_by_agreement_and_names_who_was_left_out():
    text = datasheet_render(
        sheet=sheet(
            human_sources={"single-human": 5, "humans-unanimous": 2, "humans-majority": 1},
            excluded_annotators=(
                {"annotator": "ann2", "gold_correct": 1, "gold_answers": 4, "floor": 0.5},
            ),
        )
    )
    assert (
        "- Human labels by how they were reached:\n"
        "  - `humans-majority`: 1\n"
        "  - `humans-unanimous`: 2\n"
        "  - `single-human`: 5\n"
        "- Judgments of `ann2` left out: 1 of 4 known-answer pairs right, under the floor of "
        "50%\n"
    ) in text
