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


def test_raw_sql_as_team_b_sees_none_of_team_a_rows(teams):
    a, b = teams
    _write_team_a(a)
    tables = [
        r[0]
        for r in a.owner.sql(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
            # forgetting: empty at rest, its row lives only inside a forget's transaction
            " AND tablename NOT IN ('schema_migrations', 'forgetting')"
        )
    ]
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
            raw.execute(
                "INSERT INTO tasks (id, title, status, priority, created_at, updated_at,"
                " version, team) VALUES ('t', 'x', 'pending', 0, '', '', 1, %s)",
                (TEAM_A,),
            )


def test_team_b_sees_neither_who_started_team_a_sessions_nor_where(teams):
    """A session's agent and project (0025) are its row's: the team policies hide them, from
    raw SQL and from `vybe ui`'s sessions page and its filters alike."""
    from vybe.actions import viewer
    from vybe.store import open_store

    a, b = teams
    agent = f"{SECRET}-agent"
    a.ok("session", "say", "--session-id", "sess-a", "--text", "words", agent=agent)
    assert a.owner.sql("SELECT agent_name FROM sessions") == [(agent,)]
    with psycopg.connect(b.url, autocommit=True) as raw:
        assert raw.execute("SELECT agent_name, project_id FROM sessions").fetchall() == []
    for member, sees in ((a, [agent]), (b, [])):
        store = open_store(member.url)
        try:
            page = viewer.sessions(store, None, {})
            chosen = viewer.sessions(store, None, {"agent": agent})
        finally:
            store.close()
        assert page["agents"] == sees and len(page["projects"]) == len(sees)
        assert [s["agent_name"] for s in chosen["sessions"]] == sees


# --- the cross-team matrix ---------------------------------------------------------------
# Every declared operation that reads or writes the record, aimed by team B's role at team
# A's rows: its parameters (the same on the command line and as an MCP tool's arguments;
# {task}, {project}, {session} are team A's ids). Each shape must be refused or come back
# without team A's data, and leave every team A row as it was.
MATRIX: dict[str, list[dict]] = {
    "artifacts add": [{"task_id": "{task}", "path": "x.txt"}],
    "artifacts list": [{"task_id": "{task}"}],
    "brief": [{}, {"task_id": "{task}"}],
    "events": [{"all": True}, {"task_id": "{task}"}, {"kind": "progress", "all": True}],
    "focus": [{}],
    "forget": [{"session": "{session}"}, {"before": "2999-01-01"}],
    "maintain": [{"retention": "0d"}],
    "memory delete": [{"key": "plan"}],
    "memory gc": [{}],
    "memory get": [{"key": "plan"}],
    "memory list": [{}, {"include_superseded": True}],
    "memory pin": [{"key": "plan"}],
    "memory set": [{"key": "plan", "value": "bob's plan"}],
    "project create": [{"name": "bob's", "project_id": "{project}"}],
    "project delete": [{"project_id": "{project}", "force": True}],
    "project focus": [{"project_id": "{project}"}],
    "project get": [{"project_id": "{project}"}],
    "project list": [{}],
    "push": [{"document": '{"task_id": "{task}", "event": {"kind": "progress", "message": "x"}}'}],
    "resume": [{}, {"focus_task_id": "{task}"}, {"peek": True}],
    "search": [
        {"query": "secret"},
        {"query": "ALPHA", "mode": "literal"},
        {"query": "words", "session_id": "{session}"},
    ],
    "session checkpoint": [{"session_id": "{session}", "scripted": True}],
    "session context": [{"session_id": "{session}"}],
    "session list": [{}],
    "session receipts": [{"session_id": "{session}"}],
    "session replay": [{"session_id": "{session}", "scripted": True}],
    "session say": [{"session_id": "{session}", "text": "bob's words"}],
    "session show": [{"session_id": "{session}"}],
    "status": [{}],
    "task assign": [
        {"task_id": "{task}", "to": "bob"},
        {"task_id": "{task}", "to": "bob", "to_team": TEAM_B},
    ],
    "task begin": [{"task_id": "{task}"}],
    "task block": [{"task_id": "{task}", "reason": "x"}],
    "task claim": [{"task_id": "{task}"}, {"next": True}],
    "task create": [{"title": "bob's", "project_id": "{project}"}],
    "task depend": [{"task_id": "{task}", "on": "{task}"}],
    "task done": [{"task_id": "{task}", "force": True}],
    "task get": [{"task_id": "{task}"}],
    "task heartbeat": [{"task_id": "{task}"}],
    "task list": [{}, {"status": "in_progress"}],
    "task note": [{"task_id": "{task}", "message": "x"}],
    "task set-status": [{"task_id": "{task}", "status": "completed", "force": True}],
    "task undepend": [{"task_id": "{task}", "on": "{task}"}],
}
# Shapes of `vybe data query` (CLI only): every table, joins, sub-queries, the team tables.
QUERIES = [
    "SELECT * FROM {table}",
    "SELECT t.title, e.message FROM tasks t JOIN events e ON e.task_id = t.id",
    "SELECT (SELECT string_agg(content_text, ' ') FROM messages) AS words",
    "WITH m AS (SELECT value FROM memory) SELECT * FROM m",
    "SELECT count(*) AS n FROM tasks WHERE title LIKE 'ALPHA%'",
    "SELECT vybe_teams(false) AS mine, vybe_sees_all() AS all",
]
# What needs no cross-team case, and why.
EXEMPT = {
    "admin grant": "the owner's only (test_admin_*)",
    "admin list": "the owner's or a member's own teams (test_admin_*)",
    "admin revoke": "the owner's only (test_admin_*)",
    "admin team create": "the owner's only (test_admin_*)",
    "chat": "a model's loop over the tools above",
    "data query": "QUERIES, below",
    "doctor": "reads no rows of the record",
    "hook export": "reads the agents' settings, not the record",
    "hook install": "writes the agents' settings, not the record",
    "hook run": "runs the session commands above on its payload",
    "hook uninstall": "writes the agents' settings, not the record",
    "init": "creates the config folder; the migrations are the owner's",
    "mcp": "the MCP tools, with the matrix's arguments: test_every_mcp_tool_*",
    "proxy": "a model proxy; what it records is session say's",
    "schema": "reads no rows",
    "session import": "writes the importer's own team's rows from a local file, as session say",
    "setup": "writes the agents' settings, not the record",
    "statusline": "reads what status reads",
    "store copy": "the owner's, from a file to a server",
    "ui": "a local HTTP viewer serving until stopped; its pages read as the caller's role",
    "upgrade": "the owner's (STORE_NEEDS_UPGRADE for a member)",
}


def _filled(value: object, ids: dict[str, str]) -> object:
    if isinstance(value, str) and ids:
        return (
            value.replace("{task}", ids["task"])
            .replace("{project}", ids["project"])
            .replace("{session}", ids["session"])
        )
    return value


def _argv(name: str, params: dict, ids: dict[str, str]) -> list[str]:
    argv = name.split()
    for key, value in params.items():
        flag = "--" + key.replace("_", "-")
        argv += [flag] if value is True else [flag, str(_filled(value, ids))]
    return argv


def team_rows(owner: PgVybe, team: str = TEAM_A) -> dict[str, list]:
    """Every row of ``team`` in every table, read as the owner."""
    tables = [
        r[0]
        for r in owner.sql(
            "SELECT table_name FROM information_schema.columns"
            " WHERE table_schema = 'public' AND column_name = 'team' ORDER BY 1"
        )
    ]
    return {t: owner.sql(f"SELECT * FROM {t} WHERE team = ? ORDER BY 1", (team,)) for t in tables}


def _leaks(text: str, ids: dict[str, str]) -> list[str]:
    return [marker for marker in (SECRET, TEAM_A) if marker in text]


def test_team_a_finds_by_search_what_team_b_is_refused(teams):
    a, b = teams
    _write_team_a(a)
    for shape in ({"query": "secret"}, {"query": "ALPHA", "mode": "literal"}):
        argv = _argv("search", shape, {})
        assert a.ok(*argv, agent="alice")["count"] > 0
        assert b.ok(*argv, agent="alice")["count"] == 0


def test_the_matrix_covers_every_declared_operation():
    from vybe.cli.commands import every

    declared = set(every().operations)
    assert declared == set(MATRIX) | set(EXEMPT), declared ^ (set(MATRIX) | set(EXEMPT))


@pytest.fixture
def aimed(teams):
    a, b = teams
    ids = _write_team_a(a)
    return a, b, ids, team_rows(a.owner)


@pytest.mark.parametrize(
    ("name", "shape"), [(n, i) for n, shapes in MATRIX.items() for i in range(len(shapes))]
)
def test_team_b_gets_nothing_of_team_a_by_any_command(aimed, name, shape):
    a, b, ids, before = aimed
    result = b(*_argv(name, MATRIX[name][shape], ids), agent="alice")
    text = json.dumps(result.envelope) + result.stderr
    assert not _leaks(text, ids), (name, result.envelope)
    assert team_rows(a.owner) == before, name


@pytest.mark.parametrize("query", QUERIES)
def test_team_b_gets_nothing_of_team_a_by_data_query(aimed, query):
    a, b, ids, before = aimed
    tables = [
        r
        for (r,) in a.owner.sql(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
        )
    ]
    for table in tables if "{table}" in query else [None]:
        result = b(
            "data", "query", "--sql", query.replace("{table}", table or ""), "--limit", "1000"
        )
        text = json.dumps(result.envelope)
        assert not _leaks(text, ids) and TEAM_A not in text, (table, result.envelope)
        mine = a("data", "query", "--sql", query.replace("{table}", table or ""), "--limit", "1000")
        assert mine.code == result.code, (table, mine.envelope)
    assert team_rows(a.owner) == before


def test_data_query_keeps_the_callers_visibility_and_the_owner_sees_every_team(teams):
    a, b = teams
    _write_team_a(a)
    b.ok("task", "create", "--title", "bob's own", agent="bob")
    sql = "SELECT team, title FROM tasks ORDER BY team"
    assert a.ok("data", "query", "--sql", sql)["rows"] == [
        {"team": TEAM_A, "title": f"{SECRET} task"}
    ]
    assert b.ok("data", "query", "--sql", sql)["rows"] == [{"team": TEAM_B, "title": "bob's own"}]
    assert [r["team"] for r in a.owner.ok("data", "query", "--sql", sql)["rows"]] == [
        TEAM_A,
        TEAM_B,
    ]


# --- vybe admin ----------------------------------------------------------------------------


def test_admin_list_shows_the_owner_every_team_and_a_member_its_own(teams):
    a, b = teams
    everyone = a.owner.ok("admin", "list")["teams"]
    assert {t["team"] for t in everyone} == {TEAM_A, TEAM_B}
    mine = b.ok("admin", "list")["teams"]
    readers, writers = _team_roles(a.owner, TEAM_B)
    assert mine == [
        {
            "team": TEAM_B,
            "created_at": mine[0]["created_at"],
            "members": [{"role": AGENT_B, "read_only": False}],
            "roles": {"read": readers, "write": writers},
        }
    ]


def roles(owner: PgVybe) -> list[tuple]:
    """The server's roles, their rights and who is a member of whom: what a refused `vybe
    admin` must leave as it was (the store's rows are `refused`'s own check)."""
    return owner.sql(
        "SELECT r.rolname, r.rolsuper, r.rolbypassrls, r.rolcreaterole, r.rolcanlogin,"
        " array(SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid"
        " WHERE m.member = r.oid ORDER BY 1) FROM pg_roles r ORDER BY 1"
    )


@pytest.mark.parametrize(
    ("code", "argv"),
    [
        ("TEAM_NOT_FOUND", ("admin", "grant", AGENT_B, "--team", "no_such_team")),
        ("TEAM_NOT_FOUND", ("admin", "revoke", AGENT_B, "--team", "no_such_team")),
        ("NOT_A_MEMBER", ("admin", "revoke", "nobody_here", "--team", TEAM_A)),
        ("NOT_A_MEMBER", ("admin", "revoke", AGENT_B, "--team", TEAM_A)),
        ("INVALID_INPUT", ("admin", "grant", "Robert'); DROP", "--team", TEAM_A)),
        ("INVALID_INPUT", ("admin", "team", "create", "Team A")),
        ("INVALID_INPUT", ("admin", "team", "create", "t" * 50)),  # its roles' names: > 63
        ("ROLE_TOO_POWERFUL", ("admin", "grant", "postgres", "--team", TEAM_A)),
    ],
)
def test_admin_refuses_bad_input_and_changes_nothing(teams, code, argv):
    a, _ = teams
    before = roles(a.owner)
    a.owner.refused(code, *argv)
    assert roles(a.owner) == before


@pytest.mark.parametrize(
    ("rights", "named"),
    [
        ("BYPASSRLS", ["rolbypassrls"]),
        ("CREATEROLE", ["rolcreaterole"]),
        ("SUPERUSER", ["rolsuper", "owner"]),
        ("IN ROLE postgres", ["owner"]),
    ],
)
def test_admin_refuses_a_role_with_rights_no_team_can_narrow(teams, pg_server, rights, named):
    a, _ = teams
    pg_server.admin("DROP ROLE IF EXISTS auditor")
    pg_server.admin(f"CREATE ROLE auditor LOGIN {rights}")
    try:
        before = roles(a.owner)
        result = a.owner.refused("ROLE_TOO_POWERFUL", "admin", "grant", "auditor", "--team", TEAM_A)
        assert result.envelope["error_context"]["rights"] == named
        assert roles(a.owner) == before
    finally:
        pg_server.admin("DROP ROLE auditor")


@pytest.mark.parametrize(
    "argv",
    [
        ("admin", "team", "create", "team_c"),
        ("admin", "grant", AGENT_B, "--team", TEAM_A),
        ("admin", "revoke", AGENT_A, "--team", TEAM_A),
    ],
)
def test_a_member_may_not_manage_teams(teams, argv):
    _, b = teams
    before = roles(b.owner)
    result = b.refused("NOT_STORE_OWNER", *argv)
    assert result.envelope["error_context"]["role"] == AGENT_B
    assert roles(b.owner) == before


def test_teams_need_a_server_and_a_file_stays_as_it_was(tmp_path):
    from tests.conftest import Vybe

    local = Vybe(tmp_path / "file")
    local.ok("init")
    local.refused("TEAMS_NEED_SERVER", "admin", "team", "create", "team_a")
    assert local.ok("admin", "list")["teams"][0]["team"] == "default"


def test_a_revoked_role_sees_nothing_more_and_writes_nowhere(teams):
    a, _ = teams
    _write_team_a(a)
    a.owner.ok("admin", "revoke", AGENT_A, "--team", TEAM_A)
    a.refused("NOT_A_MEMBER", "task", "list", agent="alice")
    a.refused("NOT_A_MEMBER", "task", "create", "--title", "after", agent="alice")
    with (
        psycopg.connect(a.url, autocommit=True) as raw,
        pytest.raises(psycopg.errors.InsufficientPrivilege),
    ):
        raw.execute("SELECT * FROM tasks")


def test_a_read_only_member_reads_its_team_and_writes_nothing(teams, tmp_path):
    a, _ = teams
    ids = _write_team_a(a)
    a.owner.ok("admin", "grant", "auditor", "--team", TEAM_A, "--read-only")
    auditor = Member(tmp_path / "auditor", a.owner.url, "auditor", a.owner)
    try:
        assert auditor.ok("task", "get", ids["task"], agent="eve")["task"]["title"].startswith(
            SECRET
        )
        auditor.refused("READ_ONLY_VIOLATION", "task", "create", "--title", "x", agent="eve")
        auditor.refused(
            "READ_ONLY_VIOLATION", "task", "note", ids["task"], "--message", "x", agent="eve"
        )
    finally:
        auditor.close()
        a.owner.ok("admin", "revoke", "auditor", "--team", TEAM_A)


def test_a_member_of_two_teams_names_the_one_it_writes_to(teams, tmp_path):
    a, _ = teams
    for team in (TEAM_A, TEAM_B):
        a.owner.ok("admin", "grant", "team_ab_agent", "--team", team)
    both = Member(tmp_path / "both", a.owner.url, "team_ab_agent", a.owner)
    try:
        both.refused("TEAM_AMBIGUOUS", "task", "create", "--title", "where?", agent="carol")
        both.env["VYBE_TEAM"] = TEAM_B
        made = both.ok("task", "create", "--title", "in b", agent="carol")["task"]["id"]
        assert a.owner.sql("SELECT team FROM tasks WHERE id = ?", (made,)) == [(TEAM_B,)]
        both.env["VYBE_TEAM"] = "team_c"
        both.refused("READ_ONLY_VIOLATION", "task", "create", "--title", "x", agent="carol")
        both.env["VYBE_TEAM"] = "bad name"
        both.refused("INVALID_INPUT", "task", "list", agent="carol")
    finally:
        both.close()


def test_a_member_finds_migrations_pending_and_leaves_them_to_the_owner(teams):
    _, b = teams
    b.owner.sql("DELETE FROM schema_migrations WHERE name = '0020_teams.sql'")
    try:
        result = b.refused("STORE_NEEDS_UPGRADE", "task", "list", agent="bob")
        assert result.envelope["error_context"]["owner"] == "postgres"
    finally:
        b.owner.sql(
            "INSERT INTO schema_migrations (name, applied_at) VALUES ('0020_teams.sql', 'x')"
        )


def test_doctor_says_how_the_server_is_reached_and_whether_the_url_holds_a_password(vybe):
    checks = {c["name"]: c for c in vybe.ok("doctor")["checks"]}
    assert checks["transport"]["ok"] and "127.0.0.1" in checks["transport"]["detail"]
    assert checks["credentials"]["ok"]
    with_password = vybe.url.replace("postgres@", "postgres:hunter2@", 1)
    found = {c["name"]: c for c in vybe.ok("doctor", "--db-url", with_password)["checks"]}
    assert not found["credentials"]["ok"] and "PGPASSFILE" in found["credentials"]["detail"]
    assert "hunter2" not in json.dumps(found)


def test_a_members_own_temporary_tables_cannot_stand_in_for_the_memberships(teams):
    a, b = teams
    _write_team_a(a)
    with psycopg.connect(b.url) as raw:
        raw.execute(
            "CREATE TEMP TABLE team_members (role TEXT, team TEXT, read_only INT, created_at TEXT)"
        )
        raw.execute("INSERT INTO pg_temp.team_members VALUES (current_user, %s, 0, '')", (TEAM_A,))
        raw.execute("SET LOCAL search_path = pg_temp, public, pg_catalog")
        assert raw.execute("SELECT count(*) FROM public.tasks").fetchone()[0] == 0
        assert raw.execute("SELECT public.vybe_teams(false)").fetchone()[0] == [TEAM_B]


def _calls_as_team_b(url: str, *statements: str) -> tuple[object, dict[str, int]]:
    """What the last of ``statements`` answers, run in one transaction as team B's role, and
    the calls of vybe's functions they made: counted before and after in that transaction
    (behind a pooler, the server's connection may hold calls of earlier transactions not
    yet reported)."""
    count = "SELECT funcname, calls FROM pg_stat_xact_user_functions"
    with psycopg.connect(url) as raw:  # the suite's superuser, acting as team B's role
        raw.execute("SET LOCAL track_functions = 'all'")
        before = dict(raw.execute(count).fetchall())
        raw.execute(f"SET LOCAL ROLE {AGENT_B}")
        for statement in statements:
            answer = raw.execute(statement).fetchone()[0]
        raw.execute("RESET ROLE")
        after = dict(raw.execute(count).fetchall())
    return answer, {f: n - before.get(f, 0) for f, n in after.items() if n > before.get(f, 0)}


def test_a_members_read_calls_none_of_vybes_functions_whatever_other_teams_hold(teams):
    """Each row is checked against its team's role in the server's cached memberships: no
    call, no query, no sub-plan (the policies asked for the member's teams once a policy and
    statement, some 13 times a commit, and a member's commit cost 1.06-1.21x the owner's)."""
    a, b = teams
    b.ok("task", "create", "--title", "bob's", agent="bob")
    assert _calls_as_team_b(a.owner.url, "SELECT count(*) FROM tasks") == (1, {})
    _write_team_a(a)
    assert _calls_as_team_b(a.owner.url, "SELECT count(*) FROM tasks") == (1, {})


def test_a_members_writes_name_their_team_once_a_transaction(teams):
    """A new row's team is the writer's one writable team (vybe_team()): found by one
    lookup, then kept for the rest of the transaction, as VYBE_TEAM would set it."""
    a, _ = teams
    insert = (
        "INSERT INTO projects (id, name, created_at) VALUES ('{}', 'bob''s', 'x') RETURNING team"
    )
    team, calls = _calls_as_team_b(a.owner.url, insert.format("p1"), insert.format("p2"))
    assert (team, calls) == (TEAM_B, {"vybe_team": 2, "vybe_memberships": 1})


def _team_roles(owner: PgVybe, team: str) -> tuple[str, str]:
    return tuple(
        owner.sql(f"SELECT vybe_team_role('{team}', false), vybe_team_role('{team}', true)")[0]
    )


def test_each_team_is_a_readers_and_a_writers_role_that_the_policies_check(teams, pg_server):
    """A member is granted its team's writers' role (a read-only one the readers'), and that
    role is all the policies ask about: a role given it in raw SQL, with no vybe and no
    record in team_members, reads team A's rows; revoked, it reads none."""
    a, _ = teams
    _write_team_a(a)
    readers, writers = _team_roles(a.owner, TEAM_A)
    assert readers.endswith("_r_team_a") and writers.endswith("_w_team_a")
    granted = a.owner.sql(
        "SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid"
        f" WHERE m.member = '{AGENT_A}'::regrole ORDER BY 1"
    )
    assert [r[0] for r in granted] == sorted([writers, "vybe_member"])
    # A role the suite's pooler knows, kept (a pooled connection outlives a role made anew).
    pg_server.admin(
        "DO $$ BEGIN IF to_regrole('auditor') IS NULL THEN CREATE ROLE auditor LOGIN; END IF;"
        " END $$; GRANT vybe_member TO auditor"
    )
    try:
        with psycopg.connect(as_role(a.owner.url, "auditor"), autocommit=True) as raw:
            count = "SELECT count(*) FROM tasks"
            assert raw.execute(count).fetchone()[0] == 0
            pg_server.admin(f"GRANT {readers} TO auditor")
            assert raw.execute(count).fetchone()[0] == 1
            assert raw.execute("UPDATE tasks SET title = 'mine'").rowcount == 0  # read only
            pg_server.admin(f"REVOKE {readers} FROM auditor")
            assert raw.execute(count).fetchone()[0] == 0
    finally:
        pg_server.admin(f"REVOKE {readers}, vybe_member FROM auditor")


def test_a_read_only_grant_gives_the_readers_role_and_a_revoke_takes_both(teams):
    a, _ = teams
    readers, writers = _team_roles(a.owner, TEAM_A)
    granted = (
        "SELECT array(SELECT g.rolname::text FROM pg_auth_members m"
        " JOIN pg_roles g ON g.oid = m.roleid"
        f" WHERE m.member = '{AGENT_A}'::regrole AND g.rolname LIKE 'vybe\\_%\\_team_a')"
    )
    assert a.owner.sql(granted)[0][0] == [writers]
    a.owner.ok("admin", "grant", AGENT_A, "--team", TEAM_A, "--read-only")
    assert a.owner.sql(granted)[0][0] == [readers]
    a.owner.ok("admin", "revoke", AGENT_A, "--team", TEAM_A)
    assert a.owner.sql(granted)[0][0] == []


def test_two_stores_on_one_server_keep_their_teams_of_one_name_apart(teams, pg_server, tmp_path):
    """Roles are the whole server's: each store's team roles carry a tag of its own, so team
    A's member in one store is no one in another store's team A."""
    a, _ = teams
    pg_server.admin("DROP DATABASE IF EXISTS vybe_other WITH (FORCE)")
    pg_server.admin("CREATE DATABASE vybe_other")
    other = PgVybe(tmp_path / "other", pg_server.url("vybe_other"))
    try:
        other.ok("admin", "team", "create", TEAM_A)
        other.ok("admin", "grant", AGENT_B, "--team", TEAM_A)
        assert _team_roles(other, TEAM_A) != _team_roles(a.owner, TEAM_A)
        theirs = Member(tmp_path / "a-other", other.url, AGENT_A, other)
        granted = Member(tmp_path / "b-other", other.url, AGENT_B, other)
        granted.ok("task", "create", "--title", f"{SECRET} elsewhere", agent="bob")
        assert granted.ok("task", "list", agent="bob")["count"] == 1
        assert theirs.ok("task", "list", agent="alice")["count"] == 0
        theirs.refused("READ_ONLY_VIOLATION", "task", "create", "--title", "x", agent="alice")
        theirs.close()
        granted.close()
    finally:
        other.close()
        pg_server.admin("DROP DATABASE vybe_other WITH (FORCE)")


def test_a_member_learns_its_own_teams_and_never_another_roles(teams):
    with psycopg.connect(teams[1].url, autocommit=True) as raw:
        mine = raw.execute("SELECT vybe_memberships(%s, false)", (AGENT_B,)).fetchone()[0]
        theirs = raw.execute("SELECT vybe_memberships(%s, false)", (AGENT_A,)).fetchone()[0]
        owners = raw.execute("SELECT vybe_memberships('postgres', true)").fetchone()[0]
    assert (mine, theirs, owners) == ([TEAM_B], [], [])


def test_a_kept_connection_serves_only_the_role_and_team_it_was_made_for(teams, monkeypatch):
    """The local service keeps its stores (keep_server_stores) and swaps each caller's
    environment in: a caller whose libpq user or team differs gets a connection of its own."""
    import vybe.store as stores

    a, _ = teams
    monkeypatch.setattr(stores, "_kept", {})
    url = a.owner.url.replace("postgresql://postgres@", "postgresql://", 1)
    monkeypatch.setenv("PGUSER", AGENT_A)
    first = stores.open_store(url)
    assert stores.open_store(url) is first
    monkeypatch.setenv("PGUSER", AGENT_B)
    second = stores.open_store(url)
    monkeypatch.setenv("VYBE_TEAM", TEAM_B)
    third = stores.open_store(url)
    users = [
        s.read_one(lambda c: c.execute("SELECT current_user").fetchone()[0])
        for s in (first, second)
    ]
    assert users == [AGENT_A, AGENT_B] and third is not second
    for store in (first, second, third):
        store.kept = False
        store.close()


def test_every_mcp_tool_gives_team_b_nothing_of_team_a(aimed, tmp_path):
    """The MCP server as team B's agent would run it (the SDK's client over stdio): every
    tool of the matrix's operations, with the same arguments."""
    from tests.integrations.test_mcp_server import Served
    from vybe.cli.commands import every
    from vybe.operations.model import MCP

    a, b, ids, before = aimed
    tools = {op.tool: n for n, op in every().operations.items() if MCP in op.surfaces}
    assert set(tools.values()) <= set(MATRIX), set(tools.values()) - set(MATRIX)
    answered = set()
    with (tmp_path / "mcp-stderr.txt").open("w") as errlog:
        served = Served(b, errlog)
        try:
            for tool, name in sorted(tools.items()):
                for shape in MATRIX[name]:
                    arguments = {k: _filled(v, ids) for k, v in shape.items()}

                    async def call(session, tool=tool, arguments=arguments):
                        return await session.call_tool(tool, arguments)

                    result = served.run(call)
                    text = json.dumps([c.model_dump() for c in result.content])
                    assert not _leaks(text, ids), (tool, text)
                    assert team_rows(a.owner) == before, tool
                    if not result.is_error:
                        answered.add(tool)
        finally:
            served.close()
    assert {"task_list", "search", "memory_list", "events", "resume_brief"} <= answered


# --- hand-offs between teams ---------------------------------------------------------------


@pytest.fixture
def handing(teams):
    """Team A's claimed task, with a note and a session's words; team B's agent bob, known
    in team B (it resumed there)."""
    a, b = teams
    ids = _write_team_a(a)
    a.ok("session", "say", "--session-id", "sess-a", "--text", "hand this on", agent="alice")
    b.ok("resume", agent="bob")
    return a, b, ids


def test_a_hand_off_to_an_agent_of_another_team_is_refused_without_to_team(handing):
    a, _, ids = handing
    result = a.refused("HANDOFF_CROSSES_TEAMS", "task", "assign", ids["task"], "--to", "bob")
    assert TEAM_B not in json.dumps(result.envelope)
    a.refused("TEAM_NOT_FOUND", "task", "assign", ids["task"], "--to", "bob", "--to-team", "team_c")
    a.refused("INVALID_INPUT", "task", "assign", ids["task"], "--to", "bob", "--to-team", "B!")
    assert a.ok("task", "get", ids["task"], agent="alice")["task"]["team"] == TEAM_A


def test_a_hand_off_with_to_team_carries_only_that_task_and_its_context(handing):
    a, b, ids = handing
    other = a.ok("task", "create", "--title", f"{SECRET} other", agent="alice")["task"]["id"]
    a.ok("task", "depend", ids["task"], "--on", other, agent="alice")
    handed = a.ok(
        "task",
        "assign",
        ids["task"],
        "--to",
        "bob",
        "--to-team",
        TEAM_B,
        "--session-id",
        "sess-a",
        agent="alice",
    )
    assert handed["team"] == TEAM_B and handed["context"]["user_words"] >= 1
    owner = a.owner
    assert owner.sql("SELECT team, project_id FROM tasks WHERE id = ?", (ids["task"],)) == [
        (TEAM_B, None)
    ]
    assert owner.sql("SELECT kind, team FROM events WHERE task_id = ? ORDER BY id", (ids["task"],))[
        -1
    ] == ("task_assigned", TEAM_B)
    assert {r[0] for r in owner.sql("SELECT team FROM events WHERE kind = 'task_note'")} <= {TEAM_A}
    assert owner.sql("SELECT team FROM handoff_context") == [(TEAM_B,)]
    assert owner.sql("SELECT team FROM tasks WHERE id = ?", (other,)) == [(TEAM_A,)]
    assert owner.sql("SELECT count(*) FROM task_dependencies") == [(0,)]
    a.refused("NOT_FOUND", "task", "get", ids["task"], agent="alice")
    brief = json.dumps(b.ok("resume", agent="bob"))
    assert ids["task"] in brief and "hand this on" in brief
    assert f"{SECRET} note" not in brief and f"{SECRET} other" not in brief
    assert f"{SECRET} project" not in brief


def test_only_the_writer_of_a_hand_off_just_made_moves_a_task_to_another_team(handing):
    """In raw SQL, vybe_hand_over (SECURITY DEFINER) moves nothing on an old hand-off, its
    own or team A's, nor on a hand-off event team B made itself for team A's task."""
    a, b, ids = handing
    a.ok("task", "assign", ids["task"], "--to", "alice", agent="alice")
    (handed,) = a.owner.sql(
        "SELECT id FROM events WHERE kind = 'task_assigned' AND task_id = ?", (ids["task"],)
    )
    before = team_rows(a.owner)
    for url in (a.url, b.url):
        with psycopg.connect(url) as raw:
            moved = raw.execute(
                "SELECT vybe_hand_over(%s, %s, %s)", (ids["task"], handed[0], TEAM_B)
            ).fetchone()
            assert moved == (False,)
    with psycopg.connect(b.url) as raw:
        (own,) = raw.execute(
            "INSERT INTO events (kind, agent_name, task_id, created_at)"
            " VALUES ('task_assigned', 'bob', %s, '') RETURNING id",
            (ids["task"],),
        ).fetchone()
        assert raw.execute(
            "SELECT vybe_hand_over(%s, %s, %s)", (ids["task"], own, TEAM_B)
        ).fetchone() == (False,)
        raw.rollback()
    assert team_rows(a.owner) == before


def test_a_hand_off_to_another_team_carries_no_planted_secret_nor_private_span(handing):
    """The context a hand-off builds from the record, its note and its stored reply, moved to
    team B, hold neither; a pg_dump of the server holds neither."""
    from tests.privacy.planted import needles, planted
    from tests.privacy.test_planted_secrets import PRIVATE, words

    a, b, ids = handing
    secrets = planted()
    a.ok("session", "say", "--session-id", "sess-a", "--text", words(secrets[::2]), agent="alice")
    handed = a.ok(
        "task", "assign", ids["task"], "--to", "bob", "--to-team", TEAM_B,
        "--session-id", "sess-a", "--note", words(secrets[1::2]), "--request-id", "hand-1",
        agent="alice",
    )  # fmt: skip
    again = a.ok(
        "task", "assign", ids["task"], "--to", "bob", "--to-team", TEAM_B,
        "--session-id", "sess-a", "--note", words(secrets[1::2]), "--request-id", "hand-1",
        agent="alice",
    )  # fmt: skip
    assert handed["team"] == TEAM_B and handed["context"]["user_words"] >= 2
    brief = json.dumps(b.ok("resume", agent="bob"))
    assert "please look at these" in brief and "[REDACTED:" in brief
    found = a.owner.pg_dump()
    assert b"please look at these" in found
    for shape, secret, _ in secrets:
        for needle in needles(secret):
            assert needle.encode() not in found, shape
            assert json.dumps(needle)[1:-1] not in brief + json.dumps(again), shape
    assert PRIVATE.encode() not in found and PRIVATE not in brief + json.dumps(again)


# --- upgrading a store made before teams ---------------------------------------------------


def test_a_server_store_made_before_teams_keeps_every_row_in_team_default(
    pg_server, monkeypatch, tmp_path
):
    """0020 on a server store with rows already in it: every row lands in team default, none
    lost, the owner's commands go on as before, and a new team's member sees none of them."""
    from datetime import timedelta

    from tests.actions.test_search import find, log
    from tests.postgres.database import made_before, old_message
    from vybe.actions import health, tasks
    from vybe.store import open_store

    name = "vybe_before_teams"
    old = made_before(pg_server, monkeypatch, name, "0020_teams.sql")
    url = pg_server.url(name)
    made = old.transact(
        lambda conn: conn.execute(
            "INSERT INTO tasks (id, title, status, priority, created_at, updated_at)"
            " VALUES ('task_old', 'the old task', 'pending', 1, 't', 't') RETURNING id"
        ).fetchone()[0]
    )
    old.transact(
        lambda conn: conn.execute(
            "INSERT INTO memory (id, key, value, scope, scope_id, kind, created_at, updated_at)"
            " VALUES ('mem_old', 'plan', 'the old plan', 'global', '', 'fact', 't', 't')"
        )
    )
    old.transact(
        lambda conn: conn.execute(
            "INSERT INTO agent_state (agent_name, last_active_at) VALUES ('alice', 't')"
        )
    )
    old_message(old, "s-old", "user", "the old words about billing")
    log(old, "progress", "the old billing event", agent="alice")
    before = {
        t: old.read_one(lambda c, t=t: c.execute(f"SELECT count(*) FROM {t}").fetchone()[0])
        for t in ("tasks", "memory", "agent_state", "sessions", "messages", "events")
    }
    old.close()
    try:
        assert health.migrate(url, 5000)["applied"][0] == "0020_teams.sql"
        owner = open_store(url, 5000)
        tables = [
            r[0]
            for r in owner.read_one(
                lambda c: c.execute(
                    "SELECT table_name FROM information_schema.columns"
                    " WHERE table_schema = 'public' AND column_name = 'team'"
                ).fetchall()
            )
        ]
        for table in tables:
            teams_of = owner.read_one(
                lambda c, t=table: c.execute(f"SELECT DISTINCT team FROM {t}").fetchall()
            )
            assert {r[0] for r in teams_of} <= {"default"}, table
        for table, count in before.items():
            after = owner.read_one(
                lambda c, t=table: c.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            )
            assert after == count > 0, table
        assert find(owner, "billing")["count"] == 2
        claimed = tasks.claim(
            owner, "alice", "r1", task_id=made, project_id=None, lease=timedelta(minutes=5)
        )
        assert claimed["task"]["team"] == "default"
        owner.close()
        stranger = PgVybe(tmp_path / "b", as_role(url, AGENT_B))
        admin = PgVybe(tmp_path / "owner", url)
        admin.ok("admin", "team", "create", TEAM_B)
        admin.ok("admin", "grant", AGENT_B, "--team", TEAM_B)
        listed = json.dumps(stranger.ok("task", "list", "--status", "in_progress", agent="bob"))
        assert "the old task" not in listed
        assert stranger.ok("search", "--query", "billing", agent="bob")["count"] == 0
        stranger.close()
        admin.close()
    finally:
        pg_server.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_members_granted_before_team_roles_keep_their_teams_after_the_upgrade(
    pg_server, monkeypatch, tmp_path
):
    """0027 on a store whose teams have members: each recorded membership gets its team's
    role, so a member reads and writes its team as before, and a read-only one only reads."""
    from tests.postgres.database import made_before
    from vybe.actions import health

    name = "vybe_before_team_roles"
    old = made_before(pg_server, monkeypatch, name, "0027_team_roles.sql")
    url = pg_server.url(name)
    for role in (AGENT_A, AGENT_B):
        pg_server.admin(
            f"DO $$ BEGIN IF to_regrole('{role}') IS NULL THEN CREATE ROLE {role} LOGIN;"
            f" END IF; END $$; GRANT vybe_member TO {role}"
        )

    def granted(conn):
        conn.execute("INSERT INTO teams (name, created_at) VALUES (?, 't')", (TEAM_A,))
        for role, read_only in ((AGENT_A, 0), (AGENT_B, 1)):
            conn.execute(
                "INSERT INTO team_members (role, team, read_only, created_at)"
                " VALUES (?, ?, ?, 't')",
                (role, TEAM_A, read_only),
            )
        conn.execute(
            "INSERT INTO tasks (id, title, status, priority, created_at, updated_at, team)"
            " VALUES ('task_old', 'the old task', 'pending', 1, 't', 't', ?)",
            (TEAM_A,),
        )

    old.transact(granted)
    old.close()
    try:
        assert health.migrate(url, 5000)["applied"] == ["0027_team_roles.sql"]
        owner = PgVybe(tmp_path / "owner", url)
        writer = Member(tmp_path / "a", url, AGENT_A, owner)
        reader = Member(tmp_path / "b", url, AGENT_B, owner)
        assert (
            writer.ok("task", "get", "task_old", agent="alice")["task"]["title"] == "the old task"
        )
        writer.ok("task", "create", "--title", "a new one", agent="alice")
        assert reader.ok("task", "list", agent="bob")["count"] == 2
        reader.refused("READ_ONLY_VIOLATION", "task", "create", "--title", "x", agent="bob")
        for member in (writer, reader, owner):
            member.close()
    finally:
        pg_server.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_an_owner_with_createrole_and_no_superuser_runs_teams(pg_server, tmp_path):
    """A managed server's store owner: a LOGIN role with CREATEROLE that owns the database
    and is no superuser. It makes the teams' roles itself, grants them, and its members
    reach their own team's rows only (on PostgreSQL 16, granting a role takes ADMIN on it:
    the owner has it on the roles it made; vybe_member and vybe_reader, made here by the
    suite's superuser first, are granted to it as to the role that made them)."""
    name, owner_role = "vybe_plain_owner", "team_owner"
    pg_server.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    pg_server.admin(
        f"DO $$ BEGIN IF to_regrole('{owner_role}') IS NULL THEN"
        f" CREATE ROLE {owner_role} LOGIN CREATEROLE; END IF; END $$"
    )
    for shared in ("vybe_member", "vybe_reader"):  # as PostgreSQL 16 grants a role's maker
        pg_server.admin(
            f"DO $$ BEGIN IF to_regrole('{shared}') IS NOT NULL THEN EXECUTE"
            f" 'GRANT {shared} TO {owner_role} WITH ADMIN OPTION' || CASE WHEN"
            " current_setting('server_version_num')::int >= 160000"
            " THEN ', INHERIT FALSE, SET FALSE' ELSE '' END; END IF; END $$"
        )
    pg_server.admin(f"CREATE DATABASE {name} OWNER {owner_role}")
    owner = PgVybe(tmp_path / "owner", as_role(pg_server.url(name), owner_role))
    try:
        owner.ok("admin", "team", "create", TEAM_A)
        owner.ok("admin", "team", "create", TEAM_B)
        owner.ok("admin", "grant", AGENT_A, "--team", TEAM_A)
        owner.ok("admin", "grant", AGENT_B, "--team", TEAM_B)
        a = Member(tmp_path / "a", pg_server.url(name), AGENT_A, owner)
        b = Member(tmp_path / "b", pg_server.url(name), AGENT_B, owner)
        _write_team_a(a)
        b.ok("task", "create", "--title", "bob's own", agent="bob")
        sql = "SELECT team, title FROM tasks ORDER BY team"
        assert b.ok("data", "query", "--sql", sql)["rows"] == [
            {"team": TEAM_B, "title": "bob's own"}
        ]
        assert [t["title"] for t in a.ok("task", "list", agent="alice")["tasks"]] == [
            f"{SECRET} task"
        ]
        seen = owner.ok("data", "query", "--sql", sql)["rows"]
        assert [r["team"] for r in seen] == [TEAM_A, TEAM_B]
        for member in (a, b):
            member.close()
    finally:
        owner.close()
        pg_server.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_an_owner_the_server_lets_make_no_roles_is_refused_and_nothing_changes(pg_server, tmp_path):
    """A store owner without CREATEROLE makes teams (rows of its own) but cannot grant one:
    ROLES_REFUSED, the server's roles and the store's rows as they were."""
    name, owner_role = "vybe_no_createrole", "plain_owner"
    pg_server.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    pg_server.admin(
        f"DO $$ BEGIN IF to_regrole('{owner_role}') IS NULL THEN"
        f" CREATE ROLE {owner_role} LOGIN; END IF; END $$"
    )
    pg_server.admin(f"CREATE DATABASE {name} OWNER {owner_role}")
    owner = PgVybe(tmp_path / "owner", as_role(pg_server.url(name), owner_role))
    try:
        owner.ok("admin", "team", "create", TEAM_A)
        before = roles(owner)
        for argv in (
            ("admin", "grant", AGENT_A, "--team", TEAM_A),
            ("admin", "grant", "nobody_yet", "--team", TEAM_A),
        ):
            result = owner.refused("ROLES_REFUSED", *argv)
            assert result.envelope["error_context"] == {"owner": owner_role}
            assert "CREATEROLE" in result.envelope["suggested_action"]
        assert roles(owner) == before
        assert owner.ok("admin", "list")["teams"][-1]["members"] == []
    finally:
        owner.close()
        pg_server.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
