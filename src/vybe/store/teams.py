"""Teams on a shared PostgreSQL server: the roles, the memberships, and the group role that
gives a member the table privileges row-level security then narrows (migration 0020).

``vybe_member`` is a NOLOGIN role with SELECT, INSERT, UPDATE and DELETE on vybe's tables
(SELECT only on the team tables and the migrations' list) and the use of its sequences;
every role granted a team is made a member of it. Which rows it reaches is the policies'
business: each row's team has a readers' and a writers' role on the server (migration
0027), and a member is granted the one its membership needs. This module records who is in
which team and grants those roles, in one transaction. Only the store's owner (the role
owning the tables, or a superuser) changes that. A SQLite file has one user and one
implicit team: there is nothing to grant there.
"""

from __future__ import annotations

import re

from vybe.errors import InvalidInput, NotFound, VybeError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")

MEMBER = "vybe_member"
DEFAULT = "default"
# A team's or a role's name: what PostgreSQL takes unquoted, so a name means one thing in
# psql, in a policy and on a command line. A team's is shorter: its roles' names
# (vybe_<tag>_w_<team>) must fit PostgreSQL's 63.
PLAIN = re.compile(r"[a-z_][a-z0-9_]*")
LONGEST = {"role": 63, "team": 49}
# Rights that would put a role beside or above the policies.
POWERS = ("rolsuper", "rolbypassrls", "rolcreaterole")
# Made under the migrations' lock, in their transaction; idempotent, run after each one.
ARRANGE = f"""
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{MEMBER}') THEN
        CREATE ROLE {MEMBER} NOLOGIN;
    END IF;
END $$;
GRANT USAGE ON SCHEMA public TO {MEMBER};
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {MEMBER};
REVOKE INSERT, UPDATE, DELETE ON teams, team_members, schema_migrations FROM {MEMBER};
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {MEMBER};
"""


def arrange(raw: Any) -> bool:
    """Make (or bring up to date) the member role's privileges, in the caller's
    transaction; False, with nothing changed, where the connecting role may not."""
    from psycopg import errors as pg_errors

    if raw.execute("SELECT to_regclass('public.team_members')").fetchone()[0] is None:
        return True  # a store brought up only to a migration before the teams
    raw.execute("SAVEPOINT vybe_member")
    try:
        raw.execute(ARRANGE)
    except pg_errors.InsufficientPrivilege:
        raw.execute("ROLLBACK TO SAVEPOINT vybe_member")
        return False
    raw.execute("RELEASE SAVEPOINT vybe_member")
    return True


def checked_name(kind: str, name: str) -> str:
    """``name`` if it is a plain PostgreSQL name (``kind`` role or team), else INVALID_INPUT."""
    longest = LONGEST[kind]
    if not (PLAIN.fullmatch(name or "") and len(name) <= longest):
        raise InvalidInput(
            f"the {kind} name {name!r} is not a plain name",
            context={"field": kind, "value": name},
            suggested_action="use lower-case letters, digits and _"
            f" (at most {longest}), not a digit first",
        )
    return name


def need_owner(raw: Any) -> str:
    """The store's owner; NOT_STORE_OWNER unless the connected role is it (or a
    superuser)."""
    owner, me = raw.execute(
        "SELECT pg_get_userbyid(relowner), current_user FROM pg_class"
        " WHERE oid = 'public.teams'::regclass"
    ).fetchone()
    if not raw.execute("SELECT vybe_sees_all()").fetchone()[0]:
        raise VybeError(
            f"only the store's owner ({owner}) manages teams; connected as {me}",
            code="NOT_STORE_OWNER",
            context={"owner": owner, "role": me},
            suggested_action=f"run vybe admin as {owner} (PGUSER, or the user in --db-url)",
        )
    return str(owner)


def need_team(raw: Any, team: str) -> None:
    if raw.execute("SELECT 1 FROM teams WHERE name = %s", (team,)).fetchone() is None:
        raise NotFound(
            f"no team named {team}",
            code="TEAM_NOT_FOUND",
            context={"team": team},
            suggested_action=f"create it first: vybe admin team create {team}",
        )


def create_team(raw: Any, team: str, now: str) -> bool:
    """Record ``team``; False when it was there already."""
    found = raw.execute(
        "INSERT INTO teams (name, created_at) VALUES (%s, %s) ON CONFLICT DO NOTHING",
        (team, now),
    )
    created: bool = found.rowcount == 1
    return created


def role_rights(raw: Any, role: str) -> dict[str, Any] | None:
    """The role's rights that matter here, or None when there is no such role."""
    row = raw.execute(
        "SELECT r.rolsuper, r.rolbypassrls, r.rolcreaterole, r.rolcanlogin,"
        " pg_has_role(r.oid, c.relowner, 'MEMBER')"
        " FROM pg_roles r, pg_class c"
        " WHERE r.rolname = %s AND c.oid = 'public.teams'::regclass",
        (role,),
    ).fetchone()
    if row is None:
        return None
    return {**dict(zip(POWERS, row[:3], strict=True)), "login": row[3], "owner": row[4]}


def grant(raw: Any, role: str, team: str, read_only: bool, now: str) -> dict[str, Any]:
    """Make ``role`` (created, LOGIN without a password, where it does not exist) a member
    of ``team``; a role whose rights would set it beside the policies is refused."""
    from psycopg import sql

    rights = role_rights(raw, role)
    if rights is not None:
        powers = [p for p in (*POWERS, "owner") if rights[p]]
        if powers:
            raise VybeError(
                f"the role {role} already has rights no team can narrow: {', '.join(powers)}",
                code="ROLE_TOO_POWERFUL",
                context={"role": role, "rights": powers},
                suggested_action="grant a team to a role without superuser, BYPASSRLS,"
                " CREATEROLE or the store's ownership",
            )
    else:
        raw.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
    raw.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(MEMBER), sql.Identifier(role)))
    raw.execute(
        "INSERT INTO team_members (role, team, read_only, created_at) VALUES (%s, %s, %s, %s)"
        " ON CONFLICT (role, team) DO UPDATE SET read_only = excluded.read_only",
        (role, team, int(read_only), now),
    )
    raw.execute("SELECT vybe_team_member(%s, %s, %s)", (role, team, read_only))
    return {"role": role, "team": team, "read_only": read_only, "role_created": rights is None}


def revoke(raw: Any, role: str, team: str) -> dict[str, Any]:
    """End ``role``'s membership of ``team`` (and of vybe_member, with its last team); the
    role itself stays, with whatever else it may do."""
    from psycopg import sql

    gone = raw.execute(
        "DELETE FROM team_members WHERE role = %s AND team = %s", (role, team)
    ).rowcount
    if not gone:
        raise NotFound(
            f"the role {role} is not a member of team {team}",
            code="NOT_A_MEMBER",
            context={"role": role, "team": team},
            suggested_action="see the members: vybe admin list",
        )
    raw.execute("SELECT vybe_team_member(%s, %s, NULL)", (role, team))
    left = raw.execute("SELECT count(*) FROM team_members WHERE role = %s", (role,)).fetchone()[0]
    if not left and role_rights(raw, role) is not None:
        raw.execute(
            sql.SQL("REVOKE {} FROM {}").format(sql.Identifier(MEMBER), sql.Identifier(role))
        )
    return {"role": role, "team": team, "revoked": True, "teams_left": int(left)}


def listed(conn: Any) -> list[dict[str, Any]]:
    """Every team the connected role may see, with its members (either store; ``conn``
    the store's own connection, or a raw psycopg one)."""
    teams = {
        r[0]: {"team": r[0], "created_at": r[1], "members": []}
        for r in conn.execute("SELECT name, created_at FROM teams ORDER BY name")
    }
    for role, team, read_only in conn.execute(
        "SELECT role, team, read_only FROM team_members ORDER BY team, role"
    ):
        if team in teams:
            teams[team]["members"].append({"role": role, "read_only": bool(read_only)})
    return list(teams.values())


# --- what `vybe admin` runs: each one transaction, by the owner only ---------------------


def _as_owner(store: Any, fn: Callable[[Any, str], T]) -> T:
    """``fn(raw, now)`` in one write transaction of the server store, refused unless the
    connected role owns it (and ROLES_REFUSED where the server will not let it make or
    grant a role); what it refuses leaves nothing changed."""
    from psycopg import errors as pg_errors

    from vybe import clock

    def run(conn: Any) -> T:
        owner = need_owner(conn.raw)
        try:
            return fn(conn.raw, clock.now_iso())
        except pg_errors.InsufficientPrivilege as exc:
            raise VybeError(
                f"the server refused the store's owner ({owner}) a change of roles:"
                f" {exc.diag.message_primary}",
                code="ROLES_REFUSED",
                context={"owner": owner},
                suggested_action=f"have an administrator give {owner} CREATEROLE (ALTER ROLE"
                f" {owner} CREATEROLE), or ADMIN on the roles it grants",
            ) from None

    done: T = store.transact(run)
    return done


def admin_create(store: Any, team: str) -> dict[str, Any]:
    checked_name("team", team)
    created = _as_owner(store, lambda raw, now: create_team(raw, team, now))
    return {"team": team, "created": created}


def admin_grant(store: Any, role: str, team: str, read_only: bool) -> dict[str, Any]:
    checked_name("role", role)
    checked_name("team", team)

    def run(raw: Any, now: str) -> dict[str, Any]:
        need_team(raw, team)
        return grant(raw, role, team, read_only, now)

    return _as_owner(store, run)


def admin_revoke(store: Any, role: str, team: str) -> dict[str, Any]:
    checked_name("role", role)
    checked_name("team", team)

    def run(raw: Any, now: str) -> dict[str, Any]:
        need_team(raw, team)
        return revoke(raw, role, team)

    return _as_owner(store, run)


def admin_list(store: Any) -> list[dict[str, Any]]:
    """``listed``; on a server, each team with its two roles' names (what psql's \\du lists)."""
    with store.snapshot() as conn:
        found = listed(conn)
        if store.dialect == "postgresql":
            names = {
                r[0]: {"read": r[1], "write": r[2]}
                for r in conn.execute(
                    "SELECT name, vybe_team_role(name, false), vybe_team_role(name, true)"
                    " FROM teams"
                )
            }
            for team in found:
                team["roles"] = names[team["team"]]
        return found
