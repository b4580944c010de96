"""vybe data query on PostgreSQL: the same reads, and nothing that writes or changes the
session gets through (a read-only transaction on a connection whose transactions are all
read-only; statements that are not queries refused before they reach the server)."""

from __future__ import annotations

import json
import time

import pytest

from tests.cli import test_data_query as contract
from vybe.store.postgres import PgStore

recorded = contract.recorded  # the record, written through this store


@pytest.mark.parametrize(
    "sql",
    [
        "WITH gone AS (DELETE FROM messages RETURNING 1) SELECT count(*) FROM gone",
        "SET TRANSACTION READ WRITE",
        "SELECT 1; DELETE FROM messages",
        "COPY (SELECT 1) TO '/tmp/vybe-copied'",
        "DO $$ BEGIN DELETE FROM messages; END $$",
        "  (delete from messages)",
        "SELECT nextval('events_id_seq')",
    ],
)
def test_no_write_gets_through(recorded, sql):
    before = recorded.dump()
    result = recorded("data", "query", "--sql", sql)
    assert result.code == 1
    assert result.error_code in {"READ_ONLY_VIOLATION", "INVALID_INPUT"}, result.envelope
    assert recorded.dump() == before


def test_a_percent_sign_is_sql_not_a_placeholder(recorded):
    data = recorded.ok(
        "data",
        "query",
        "--sql",
        "SELECT count(*) AS n FROM messages WHERE content_text LIKE '%request'",
    )
    assert data["rows"] == [{"n": 3}]


def test_numbers_and_bytes_come_back_as_json(recorded):
    data = recorded.ok("data", "query", "--sql", "SELECT '\\x00ff'::bytea AS b, 1.5::numeric AS n")
    assert data["rows"] == [{"b": "00ff", "n": 1.5}]


def test_a_query_past_its_time_limit_is_stopped_by_the_server(recorded):
    from vybe.actions import data as data_query
    from vybe.errors import VybeError

    started = time.monotonic()
    with pytest.raises(VybeError) as raised:
        data_query.query(recorded.url, "SELECT pg_sleep(30)", 10, seconds=0.2)
    assert raised.value.code == "QUERY_TIMEOUT"
    assert time.monotonic() - started < 2


def test_output_past_the_byte_limit_is_cut_and_flagged_on_the_server(recorded):
    from vybe.actions import data as data_query

    found = data_query.query(
        recorded.url,
        "SELECT i, repeat('x', 1000) AS x FROM generate_series(1, 5000) AS i",
        10_000,
        max_bytes=50_000,
    )
    assert found["truncated"] is True
    assert 40_000 < sum(len(json.dumps(r)) for r in found["rows"]) <= 50_000
    assert found["count"] == len(found["rows"]) < 5000


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT pg_read_file('/etc/hostname')",
        "SELECT pg_read_binary_file('/etc/hostname')",
        "SELECT * FROM pg_ls_dir('.')",
        "SELECT lo_import('/etc/hostname')",
        "SELECT set_config('role', 'postgres', false), pg_read_file('/etc/hostname')",
        "SELECT set_config('session_authorization', 'postgres', false)",
        "SELECT query_to_xml('SELECT pg_read_file(''/etc/hostname'')', true, true, '')",
    ],
)
def test_a_query_cannot_reach_the_servers_files_or_change_its_role(recorded, sql):
    result = recorded.refused("READ_ONLY_VIOLATION", "data", "query", "--sql", sql)
    assert "vybe's tables" in result.envelope["error"]


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("RESET ROLE", "READ_ONLY_VIOLATION"),
        ("SET ROLE postgres", "READ_ONLY_VIOLATION"),
        ("SELECT 1; SELECT pg_read_file('/etc/hostname')", "INVALID_INPUT"),
        ("SELECT 1; RESET ROLE", "INVALID_INPUT"),
    ],
)
def test_statements_beside_the_query_are_refused(recorded, sql, code):
    recorded.refused(code, "data", "query", "--sql", sql)


def test_the_query_runs_as_the_reader_and_still_reads_every_table(recorded):
    data = recorded.ok(
        "data",
        "query",
        "--sql",
        "SELECT current_user AS who, (SELECT count(*) FROM messages) AS messages,"
        " (SELECT count(*) FROM tasks) AS tasks, 1 AS who",
    )
    assert data["rows"] == [{"who": 1, "messages": 3, "tasks": 0}]
    [row] = recorded.ok("data", "query", "--sql", "SELECT current_user AS who")["rows"]
    assert row == {"who": "vybe_reader"}


def test_a_sleep_past_the_bound_is_stopped_as_the_reader(recorded):
    from vybe.actions import data as data_query
    from vybe.errors import VybeError

    with pytest.raises(VybeError) as raised:
        data_query.query(
            recorded.url,
            "SELECT set_config('statement_timeout', '0', false), pg_sleep(30)",
            10,
            seconds=0.2,
        )
    assert raised.value.code == "QUERY_TIMEOUT"


@pytest.fixture
def plain_role_store(pg_server):
    """A store whose role may not create roles (nor has the reader's membership)."""
    pg_server.admin("CREATE ROLE vybe_plain LOGIN")
    pg_server.admin("CREATE DATABASE vybe_plain OWNER vybe_plain")
    url = pg_server.url("vybe_plain").replace("postgres@", "vybe_plain@")
    PgStore(url).close()
    yield url
    pg_server.admin("DROP DATABASE vybe_plain WITH (FORCE)")
    pg_server.admin("DROP ROLE vybe_plain")


def test_without_a_reader_role_a_query_is_refused_not_run_as_the_connecting_role(
    plain_role_store,
):
    from vybe.actions import data as data_query
    from vybe.errors import VybeError

    with pytest.raises(VybeError) as raised:
        data_query.query(plain_role_store, "SELECT count(*) FROM tasks", 10)
    assert raised.value.code == "QUERY_UNAVAILABLE"


def test_a_reader_role_granted_more_than_reading_is_not_used(recorded, pg_server):
    pg_server.admin("GRANT pg_read_server_files TO vybe_reader")
    try:
        recorded.refused("QUERY_UNAVAILABLE", "data", "query", "--sql", "SELECT 1 AS one")
    finally:
        pg_server.admin("REVOKE pg_read_server_files FROM vybe_reader")
    assert recorded.ok("data", "query", "--sql", "SELECT 1 AS one")["rows"] == [{"one": 1}]


def test_a_store_migrated_before_the_reader_gets_it_at_its_first_query(recorded):
    recorded.sql("DROP FUNCTION vybe_read_only(TEXT)")
    assert recorded.ok("data", "query", "--sql", "SELECT 1 AS one")["rows"] == [{"one": 1}]
