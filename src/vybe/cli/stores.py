"""vybe store copy: move the SQLite store onto a PostgreSQL server."""

from __future__ import annotations

from vybe.operations.model import CLI_ONLY, Operation, Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.cli.main import Invocation
    from vybe.jsonio import JSONObject

GROUPS = {"store": "Move the store."}


def copy(inv: Invocation, v: JSONObject) -> JSONObject:
    from vybe import config
    from vybe.config import is_url, redact
    from vybe.errors import InvalidInput
    from vybe.store import SqliteStore, copy, require_driver

    target_url = config.as_url(v["to"])
    if not is_url(target_url):
        raise InvalidInput("--to must name a PostgreSQL server", context={"field": "to"})
    require_driver()
    from vybe.store.postgres import PgStore

    settings = inv.settings
    source = SqliteStore(settings.db_path, settings.busy_timeout_ms, create=False)
    try:
        target = PgStore(target_url, settings.busy_timeout_ms)
        try:
            tables = copy.to_server(source, target)
        finally:
            target.close()
    finally:
        source.close()
    return {
        "from": settings.db_path,
        "to": redact(target_url),
        "tables": tables,
        "copied": sum(t["copied"] for t in tables.values()),
        "already_there": sum(t["already_there"] for t in tables.values()),
    }


OPERATIONS = (
    Operation(
        "store copy",
        "Copy the SQLite store (--db-path) onto a PostgreSQL server, ids and request ids"
        " included; run again, it copies only what is new.",
        copy,
        params=(Param("to", help="the server: postgresql://user@host:port/db", required=True),),
        writes=True,
        idempotent=True,
        surfaces=CLI_ONLY,
        result={"tables": "object", "copied": "integer", "already_there": "integer"},
        examples=("vybe store copy --to postgresql://vybe@db.internal/vybe",),
    ),
)
ALIASES = ()
