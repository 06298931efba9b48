"""After the trial's refine, every escalated pair had people's answer, and the command said
"No disagreements are open: every escalated pair has been settled by humans." while the
Disagreements page listed 28 open audit disagreements (a person against the agents'
consensus) and the job page "16 disagreements to adjudicate". The count is of escalated
pairs no human settled; the sentence for none says that, and where the others are."""

from assess.refined.refine import open_disagreements_sentence


def test_the_sentence_for_none_names_escalated_pairs_and_not_every_disagreement():
    assert open_disagreements_sentence(0) == (
        "No escalated pair is still open: humans settled every one. Pairs whose human "
        "answers disagree with each other or with the consensus stay on the Disagreements "
        "page until an admin adjudicates them; meanwhile the human label stands."
    )
