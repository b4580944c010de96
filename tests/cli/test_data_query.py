"""vybe data query reads the record; anything that would write is refused and changes nothing."""

from __future__ import annotations

import _thread
import json
import threading
import time

import pytest

from vybe.context.recorder import record_user
from vybe.store import open_store
from vybe.store.record import SqliteRecord

# These call the action with a file's path; tests/postgres/test_data_query.py has the
# server's forms.
ON_THE_FILE = pytest.mark.sqlite_only("calls the action with the SQLite file's path")


@pytest.fixture
def recorded(vybe):
    store = open_store(vybe.location)
    record = SqliteRecord(store)
    for text in ("first request", "second request", "third request"):
        record_user(record, "s1", text)
    store.close()
    return vybe


def test_query_returns_rows_of_the_record(recorded):
    data = recorded.ok(
        "data",
        "query",
        "--sql",
        "SELECT context_seq, content_text FROM messages WHERE session_id='s1' ORDER BY context_seq",
    )
    assert [r["content_text"] for r in data["rows"]] == [
        "first request",
        "second request",
        "third request",
    ]
    assert data["count"] == 3 and not data["truncated"]


def test_limit_cuts_the_rows_and_says_so(recorded):
    data = recorded.ok("data", "query", "--sql", "SELECT * FROM messages", "--limit", "2")
    assert data["count"] == 2 and data["truncated"]


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM messages",
        "UPDATE messages SET content_text = 'x'",
        "INSERT INTO sessions (id, created_at) VALUES ('x', 'y')",
        "DROP TABLE messages",
        "CREATE TABLE evil (x)",
    ],
)
def test_writes_are_refused_and_change_nothing(recorded, sql):
    result = recorded("data", "query", "--sql", sql)
    assert result.code == 1 and result.error_code == "READ_ONLY_VIOLATION"
    data = recorded.ok("data", "query", "--sql", "SELECT count(*) AS n FROM messages")
    assert data["rows"] == [{"n": 3}]


def test_bad_sql_is_invalid_input(recorded):
    result = recorded("data", "query", "--sql", "SELEC nonsense")
    assert result.error_code == "INVALID_INPUT"


def test_query_works_on_a_fresh_store(vybe):
    vybe.ok("init")
    data = vybe.ok("data", "query", "--sql", "SELECT count(*) AS n FROM checkpoints")
    assert data["rows"] == [{"n": 0}]


@pytest.mark.sqlite_only("SQLite's ATTACH and VACUUM INTO write files")
@pytest.mark.parametrize("sql", ["ATTACH DATABASE '{f}' AS e", "VACUUM INTO '{f}'"])
def test_a_query_cannot_create_a_file(recorded, sql, tmp_path):
    target = tmp_path / "made.db"
    result = recorded("data", "query", "--sql", sql.format(f=target))
    assert result.error_code == "READ_ONLY_VIOLATION"
    assert not target.exists()


@pytest.mark.sqlite_only("SQLite's blob literals and 1e999")
def test_blobs_and_infinities_come_back_as_json_text(recorded):
    data = recorded.ok("data", "query", "--sql", "SELECT x'00ff' AS blob, 1e999 AS big")
    assert data["rows"] == [{"blob": "00ff", "big": "inf"}]


@pytest.mark.sqlite_only("the path of a SQLite file")
def test_a_database_path_with_uri_characters_is_opened_as_is(vybe, tmp_path):
    folder = tmp_path / "we?ird#dir"
    folder.mkdir()
    vybe.db_path = folder / "x.db"
    vybe.env["VYBE_DB_PATH"] = str(vybe.db_path)
    vybe.task("t")
    data = vybe.ok("data", "query", "--sql", "SELECT count(*) AS n FROM tasks")
    assert data["rows"] == [{"n": 1}]
    assert not (tmp_path / "we").exists()


FOREVER = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n"


@ON_THE_FILE
def test_a_query_past_its_time_limit_is_stopped_with_a_stable_code(recorded):
    from vybe.actions import data as data_query
    from vybe.errors import VybeError

    started = time.monotonic()
    with pytest.raises(VybeError) as raised:
        data_query.query(str(recorded.db_path), FOREVER, 10, seconds=0.2)
    assert raised.value.code == "QUERY_TIMEOUT"
    assert time.monotonic() - started < 2


@ON_THE_FILE
def test_output_past_the_byte_limit_is_cut_and_flagged(recorded):
    from vybe.actions import data as data_query

    wide = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)"
    found = data_query.query(
        str(recorded.db_path),
        wide + " SELECT i, hex(randomblob(500)) AS x FROM n",
        10_000,
        max_bytes=50_000,
    )
    assert found["truncated"] is True
    assert 40_000 < sum(len(json.dumps(r)) for r in found["rows"]) <= 50_000
    assert found["count"] == len(found["rows"]) < 5000


@pytest.mark.sqlite_only("interrupts SQLite's progress handler on the file's path")
def test_ctrl_c_stops_a_running_query(recorded):
    from vybe.actions import data as data_query

    started = time.monotonic()
    threading.Timer(0.2, _thread.interrupt_main).start()  # Ctrl-C while the query runs
    with pytest.raises(KeyboardInterrupt):
        data_query.query(str(recorded.db_path), FOREVER, 10, seconds=30)
    assert time.monotonic() - started < 3


ON_SQLITE = pytest.mark.sqlite_only("SQLite's value and heap limits; the server bounds its own")
ROWS = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < {n}) "
TOO_LARGE = {
    "a gigabyte zeroblob": "SELECT zeroblob(1000000000)",
    "the length of a 2e9 zeroblob": "SELECT length(zeroblob(2e9))",
    "a string doubled by a recursive CTE": (
        "WITH RECURSIVE r(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM r"
        " WHERE length(s) < 5e8) SELECT max(length(s)) FROM r"
    ),
    "group_concat over a cross join": (
        ROWS.format(n=2000) + "SELECT length(group_concat(a.v || b.n)) FROM"
        " (SELECT hex(zeroblob(5000)) AS v FROM c) a, (SELECT n FROM c LIMIT 10) b"
    ),
    "a sort holding 200 MB": (
        ROWS.format(n=10)
        + "SELECT sum(length(v)) FROM (SELECT zeroblob(30000000) || n AS v FROM c ORDER BY v)"
    ),
}


@ON_SQLITE
@pytest.mark.parametrize("sql", TOO_LARGE.values(), ids=TOO_LARGE.keys())
def test_a_query_that_would_take_gigabytes_is_query_too_large(recorded, sql):
    refused = recorded.refused("QUERY_TOO_LARGE", "data", "query", "--sql", sql)
    assert refused.envelope["error_context"]["value_max_bytes"] == 32 << 20
    assert "Traceback" not in refused.stderr


@ON_SQLITE
def test_the_memory_bound_is_lifted_once_the_query_is_over(recorded):
    import sqlite3

    recorded.refused("QUERY_TOO_LARGE", "data", "query", "--sql", TOO_LARGE["a gigabyte zeroblob"])
    probe = sqlite3.connect(":memory:")
    assert probe.execute("PRAGMA hard_heap_limit").fetchone() == (0,)
    assert probe.execute("SELECT length(zeroblob(40000000))").fetchone() == (40000000,)
    probe.close()


@ON_SQLITE
def test_a_big_but_legal_aggregate_still_answers(recorded):
    sql = (
        ROWS.format(n=100_000)
        + "SELECT count(*) AS n, length(group_concat(printf('%.100c', 'y'))) AS built,"
        " count(DISTINCT n % 977) AS kinds FROM c"
    )
    data = recorded.ok("data", "query", "--sql", sql)
    assert data["rows"] == [{"n": 100_000, "built": 100_000 * 101 - 1, "kinds": 977}]


def test_format_text_prints_a_header_and_one_tab_separated_line_per_row(vybe):
    vybe.task("First\ttitle")
    vybe.task("Second\nline")
    code, text = vybe.text(
        "data", "query", "--sql", "SELECT title, NULL AS none FROM tasks ORDER BY title",
        "--format", "text",
    )  # fmt: skip
    assert code == 0
    assert text.splitlines() == ["title\tnone", "First\\ttitle\t", "Second\\nline\t"]


def test_format_text_of_no_rows_and_of_a_cut_result_says_so(vybe):
    vybe.initialized()
    assert vybe.text("data", "query", "--sql", "SELECT 1 WHERE 1 = 0", "--format", "text")[1] == (
        "(no rows)"
    )
    for n in range(3):
        vybe.task(f"t{n}")
    _, text = vybe.text(
        "data", "query", "--sql", "SELECT title FROM tasks", "--limit", "2", "--format", "text"
    )
    assert text.splitlines()[-1].startswith("(cut at 2 rows")


def test_format_text_keeps_errors_an_envelope(vybe):
    vybe.initialized()
    result = vybe("data", "query", "--sql", "SELEC", "--format", "text")
    assert result.error_code == "INVALID_INPUT"
