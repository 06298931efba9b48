"""The re-benchmark page's "Per-query changes" heading counts the queries that changed, not
its rows (one per system and query): one query changed for two systems is "1 query changed,
2 (system, query) rows", never "2 changed"."""

from assess.evaluation.tables import Table, per_query_changes_count

HEADER = ("system", "query", "Δ nDCG@10", "Hole@10")


def _table(*rows: tuple[str, ...]) -> Table:
    return Table(title="Per-query changes (refined − original)", header=HEADER, rows=list(rows))


def test_one_query_changed_for_two_systems_is_one_query_in_two_rows():
    table = _table(("alpha", "q1", "+0.3869", "0.1000"), ("beta", "q1", "+0.5000", "0.1000"))
    assert per_query_changes_count(table) == "1 query changed, 2 (system, query) rows"


def test_two_queries_of_one_system_say_only_the_queries():
    table = _table(("alpha", "q1", "+0.3869", "0.1000"), ("alpha", "q2", "-0.1000", "0.0000"))
    assert per_query_changes_count(table) == "2 queries changed"


def test_two_queries_in_three_rows():
    table = _table(
        ("alpha", "q1", "+0.3869", "0.1000"),
        ("beta", "q1", "+0.5000", "0.1000"),
        ("beta", "q2", "-0.1000", "0.0000"),
    )
    assert per_query_changes_count(table) == "2 queries changed, 3 (system, query) rows"


def test_no_row_is_no_query_changed():
    assert per_query_changes_count(_table()) == "0 queries changed"
