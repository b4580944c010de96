"""vybe ui: a read-only local web viewer of the record (vybe.ui)."""

from __future__ import annotations

from vybe.cli.proxy import LOOPBACK, listen_address
from vybe.errors import InvalidInput
from vybe.operations.model import CLI_ONLY, Operation, Param

GROUPS: dict[str, str] = {}
DEFAULT_LISTEN = "127.0.0.1:0"


def ui(inv, v: dict) -> dict:
    import webbrowser

    from vybe.jsonio import dumps
    from vybe.store import is_url
    from vybe.store.db import SqliteStore
    from vybe.ui.server import Viewer

    host, port = listen_address(v["listen"])
    if host not in LOOPBACK and not v["beyond_loopback"]:
        raise InvalidInput(
            f"--listen {v['listen']!r} is not a loopback address",
            context={"field": "listen"},
            suggested_action="listen on 127.0.0.1, or pass --beyond-loopback",
        )
    location = inv.settings.location
    if is_url(location):
        raise InvalidInput(
            "vybe ui reads a SQLite store; a PostgreSQL store is not served yet",
            context={"field": "db_url"},
            suggested_action="point vybe ui at a SQLite store (--db-path)",
        )
    server = Viewer(
        (host, port),
        lambda: SqliteStore(location, migrate=False, create=False, read_only=True),
    )
    # The address goes out at once (the command runs until stopped), then in the result.
    print(dumps({"ok": True, "data": {"url": server.url}}), flush=True)
    if not v["no_open"]:
        webbrowser.open(server.url)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return {"url": server.url, "stopped": True}


OPERATIONS = (
    Operation(
        "ui",
        "Serve a read-only local web viewer of sessions, checkpoints and the event log.",
        ui,
        params=(
            Param(
                "listen", help="where it listens, HOST:PORT (port 0: any)", default=DEFAULT_LISTEN
            ),
            Param("no_open", "boolean", "print the address without opening a browser"),
            Param("beyond_loopback", "boolean", "allow an address beyond this machine"),
        ),
        surfaces=CLI_ONLY,
        result={"url": "string"},
        examples=("vybe ui", "vybe ui --listen 127.0.0.1:8790 --no-open"),
    ),
)
ALIASES = ()
