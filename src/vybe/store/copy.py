"""Moving a SQLite store onto a PostgreSQL server: every row with its own ids (events,
messages, checkpoints, the idempotency ledger in its written order), then every sequence
set past the largest id, so the server hands out no id the file had used. Each row keeps
its team, and the teams and their members come along first (each member given its team's
role on the server).

Every row goes through the privacy filter on its way (the columns vybe.store.scrubbed
names), so what was recorded before a rule existed, or before redaction did, lands on the
server as vybe would write it today. A row whose key the server already holds is left
alone, so a second copy moves nothing twice; the whole copy is one transaction on the
server: all of it lands or none.
"""

from __future__ import annotations

from typing import Any

from vybe import privacy
from vybe.store.base import Store
from vybe.store.scrubbed import JSON, SCRUBBED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.store.postgres import PgStore

# In the order references allow: a row's parent before the row.
TABLES = (
    ("teams", "name"),
    ("team_members", "role, team"),
    ("projects", "id"),
    ("tasks", "id"),
    ("task_dependencies", "task_id, depends_on_task_id"),
    ("events", "id"),
    ("artifacts", "id"),
    ("agent_state", "team, agent_name"),
    ("idempotency", "rowid"),
    ("memory", "id"),
    ("sessions", "id"),
    ("messages", "id"),
    ("checkpoints", "id"),
    ("checkpoint_attempts", "id"),
    ("compaction_receipts", "id"),
    ("handoff_context", "event_id"),
)
# Each numbering the server keeps, and the column it numbers.
SEQUENCES = (
    ("events_id_seq", "events", "id"),
    ("messages_id_seq", "messages", "id"),
    ("checkpoints_id_seq", "checkpoints", "id"),
    ("checkpoint_attempts_id_seq", "checkpoint_attempts", "id"),
    ("idempotency_rowid_seq", "idempotency", "rowid"),
    ("compaction_receipts_id_seq", "compaction_receipts", "id"),
)
BATCH = 2000


def _columns(source: Store, table: str) -> list[str]:
    names = [r[1] for r in source.conn.execute(f"PRAGMA table_info({table})")]
    return [*names, "rowid"] if table == "idempotency" else names


def _scrubbed(table: str, columns: list[str], row: Any) -> tuple[Any, ...]:
    """``row`` with each column the store scrubs on writing scrubbed as that write does (a
    memory's value as the value of its key)."""
    values = list(row)
    for name in SCRUBBED.get(table, ()):
        at = columns.index(name)
        value = values[at]
        if not isinstance(value, str):
            continue
        if (table, name) in JSON:
            values[at] = privacy.scrub_json(value)
        elif (table, name) == ("memory", "value"):
            values[at] = privacy.scrub_named(privacy.scrub(values[columns.index("key")]), value)
        else:
            values[at] = privacy.scrub(value)
    return tuple(values)


def _copy_table(source: Store, conn: object, table: str, order: str) -> dict[str, int]:
    columns = _columns(source, table)
    listed = ", ".join(columns)
    insert = (
        f"INSERT INTO {table} ({listed}) VALUES ({', '.join('?' * len(columns))})"
        " ON CONFLICT DO NOTHING"
    )
    rows = source.conn.execute(f"SELECT {listed} FROM {table} ORDER BY {order}")
    seen = copied = 0
    while batch := rows.fetchmany(BATCH):
        seen += len(batch)
        if table in SCRUBBED:
            batch = [_scrubbed(table, columns, row) for row in batch]
        copied += conn.executemany(insert, batch).rowcount  # type: ignore[attr-defined]
    return {"rows": seen, "copied": copied, "already_there": seen - copied}


def to_server(source: Store, target: PgStore) -> dict[str, dict[str, int]]:
    """Copy every table of ``source`` into ``target``; per table, what was moved."""

    def run(conn: object) -> dict[str, dict[str, int]]:
        moved = {table: _copy_table(source, conn, table, order) for table, order in TABLES}
        if moved["team_members"]["copied"]:
            conn.execute("SELECT vybe_team_grants()")  # type: ignore[attr-defined]
        for sequence, table, column in SEQUENCES:
            conn.execute(  # type: ignore[attr-defined]
                f"SELECT setval('{sequence}', GREATEST((SELECT MAX({column}) FROM {table}), 1),"
                f" (SELECT MAX({column}) FROM {table}) IS NOT NULL)"
            )
        return moved

    with source.snapshot():
        return target.transact(run)
