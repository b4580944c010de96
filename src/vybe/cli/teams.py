"""vybe admin: the teams of a shared PostgreSQL store, run by the store's owner.

A team's rows are kept from every other team's roles by the server's row-level security
(migration 0020, vybe.store.teams); these commands only create teams and record which
roles belong to which. A SQLite file has one user and one team: only `admin list` answers
there."""

from __future__ import annotations

from vybe.operations.model import CLI_ONLY, Operation, Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.cli.main import Invocation
    from vybe.jsonio import JSONObject
    from vybe.store import Store

GROUPS = {"admin": "Teams on a shared server: who sees which rows (the store's owner only)."}

TEAM = Param(
    "team", help="the team's name (lower-case letters, digits, _; at most 49)", required=True
)
ROLE = Param(
    "role",
    help="a PostgreSQL role, created (LOGIN, no password) where it does not exist",
    required=True,
    positional=True,
)


def _server_store(inv: Invocation) -> Store:
    """The server store, or TEAMS_NEED_SERVER before any file is opened or made."""
    from vybe.errors import VybeError

    if inv.settings.db_url is None:
        raise VybeError(
            "teams are a PostgreSQL store's: a SQLite file has one user and one team",
            code="TEAMS_NEED_SERVER",
            suggested_action="point vybe at a shared server with --db-url or VYBE_DB_URL",
        )
    return inv.store


def team_create(inv: Invocation, v: JSONObject) -> JSONObject:
    from vybe.store import teams

    return teams.admin_create(_server_store(inv), v["name"])


def grant(inv: Invocation, v: JSONObject) -> JSONObject:
    from vybe.store import teams

    return teams.admin_grant(_server_store(inv), v["role"], v["team"], bool(v["read_only"]))


def revoke(inv: Invocation, v: JSONObject) -> JSONObject:
    from vybe.store import teams

    return teams.admin_revoke(_server_store(inv), v["role"], v["team"])


def listing(inv: Invocation, v: JSONObject) -> JSONObject:
    from vybe.store import teams

    return {"teams": teams.admin_list(inv.store)}


OPERATIONS = (
    Operation(
        "admin team create",
        "Create a team on a shared PostgreSQL store (idempotent).",
        team_create,
        params=(
            Param(
                "name",
                help="the team's name: lower-case letters, digits and _, at most 49 (its two"
                " roles on the server, vybe_<tag>_r_<name> and vybe_<tag>_w_<name>, must fit"
                " PostgreSQL's 63)",
                required=True,
                positional=True,
            ),
        ),
        writes=True,
        idempotent=True,
        surfaces=CLI_ONLY,
        result={"team": "string", "created": "boolean"},
        examples=("vybe admin team create payments",),
    ),
    Operation(
        "admin grant",
        "Make a PostgreSQL role a member of a team: it is granted the team's writers' role"
        " (--read-only: its readers'), so it sees that team's rows and, unless --read-only,"
        " writes them.",
        grant,
        params=(
            ROLE,
            TEAM,
            Param("read_only", "boolean", "let the role read the team's rows, never write"),
        ),
        writes=True,
        idempotent=True,
        surfaces=CLI_ONLY,
        result={"role": "string", "team": "string", "read_only": "boolean"},
        examples=(
            "vybe admin grant alice --team payments",
            "vybe admin grant auditor --team payments --read-only",
        ),
    ),
    Operation(
        "admin revoke",
        "End a role's membership of a team; the role itself stays.",
        revoke,
        params=(ROLE, TEAM),
        writes=True,
        idempotent=True,
        surfaces=CLI_ONLY,
        result={"role": "string", "team": "string", "revoked": "boolean"},
        examples=("vybe admin revoke alice --team payments",),
    ),
    Operation(
        "admin list",
        "The teams this role may see, with their members (on a server, and each team's two roles).",
        listing,
        surfaces=CLI_ONLY,
        result={"teams": "array"},
        listing="teams",
        examples=("vybe admin list",),
    ),
)
ALIASES = ()
