"""The review queue's claim as one SQL statement per database vendor (:data:`CLAIM_SQL`),
run by :func:`assess.review.services.review_item_claim`. Kept apart from the services so
the statement and the reasons for each of its clauses read as one piece."""

from __future__ import annotations

from .same_pair import JUDGED_ELSEWHERE_SQL

# The whole claim is this one statement: the inner SELECT picks the next free item and locks
# it, skipping rows another claim has locked, and the UPDATE leases it. Highest impact on the
# benchmark first (see assess.review.budget), then oldest, whatever its kind:
# escalated pairs first would starve the audits for as long as escalations keep coming. An
# item whose budget_rank is beyond its job's human_budget waits (NULL budget: no limit). This
# order needs a partial index on (impact DESC, created, id) over the items still needing
# judgments, or PostgreSQL sorts every open item on each claim; review_open_by_impact is it.
# A new claim starts the pair's active time from 0 (the heartbeats of an earlier holder are
# theirs); the held item returned again (services._held_item: a reload) keeps what was reported.
# A debate's pair that is also a gold pair the annotator was given on that job is not theirs:
# one annotator never meets one query and chunk twice in a job (the gold side of this rule is
# assess.review.gold_queue.gold_met_as_real). The draw takes no pool pair, so this only
# matters for a pool extended after the draw or gold drawn before that rule. The NOT EXISTS
# costs index lookups only.
CLAIM_TEMPLATE = """
    UPDATE assess_reviewitem
       SET leased_to_id = %s, lease_expires_at = %s, claimed_at = %s,
           lease_active_seconds = 0
     WHERE id = (
        SELECT r.id FROM assess_reviewitem r
         WHERE r.debate_id IS NOT NULL
           AND r.judgments_done < r.judgments_needed
           AND (r.lease_expires_at IS NULL OR r.lease_expires_at < %s)
           AND NOT EXISTS (SELECT 1 FROM assess_judgment j
                            WHERE j.item_id = r.id AND j.annotator_id = %s
                              AND (j.undone_at IS NULL OR j.returned)){judged_elsewhere}
           AND NOT EXISTS (SELECT 1 FROM debates_debate d
                             JOIN corpora_pair p ON p.id = d.pair_id
                             JOIN assess_goldpair gp ON gp.job_id = d.job_id
                                  AND gp.query_id = p.query_id
                                  AND gp.document_id = p.document_id
                             JOIN assess_reviewitem g ON g.gold_id = gp.id
                                  AND g.assigned_to_id = %s
                            WHERE d.id = r.debate_id)
           AND NOT EXISTS (SELECT 1 FROM assess_adjudication a WHERE a.item_id = r.id)
           AND {skipped}
           AND (r.budget_rank IS NULL OR r.budget_rank <= COALESCE(
                (SELECT jb.human_budget FROM debates_debate d
                   JOIN debates_debatejob jb ON jb.id = d.job_id
                  WHERE d.id = r.debate_id), r.budget_rank))
         ORDER BY r.impact DESC, r.created, r.id
         LIMIT 1{lock})
    RETURNING id
"""
CLAIM_SQL = {
    "postgresql": CLAIM_TEMPLATE.format(
        skipped="NOT (r.id = ANY(%s))",
        lock="\n         FOR UPDATE SKIP LOCKED",
        judged_elsewhere=JUDGED_ELSEWHERE_SQL,
    ),
    # SQLite (the quickstart) has one writer at a time, so the statement is atomic as it is.
    "sqlite": CLAIM_TEMPLATE.format(
        skipped="r.id NOT IN (SELECT value FROM json_each(%s))",
        lock="",
        judged_elsewhere=JUDGED_ELSEWHERE_SQL,
    ),
}
