"""Human review: the review queue and its claims, judgments and undo, adjudication,
agreement among annotators and audits, and term highlighting on the judging page.
May import corpora, debates and ``assess.models``; no other assess package.
"""
