"""vybe ui: a read-only local web viewer of the record (vybe.ui)."""

from __future__ import annotations

from vybe.cli.proxy import LOOPBACK, listen_address
from vybe.errors import InvalidInput, require_extra
from vybe.operations.model import CLI_ONLY, Operation, Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from vybe.cli.main import Invocation
    from vybe.jsonio import JSONObject
    from vybe.store import Store

GROUPS: dict[str, str] = {}
DEFAULT_LISTEN = "127.0.0.1:0"


def read_only_opener(location: str) -> Callable[[], Store]:
    """How each request opens the store: a SQLite file read-only (``mode=ro``, so a write
    fails in SQLite itself); a PostgreSQL store whose every read is a READ ONLY transaction
    (the store's snapshot). Either must exist already: the viewer creates nothing."""
    from vybe.store import is_url, open_store
    from vybe.store.db import SqliteStore

    open_store(location, migrate=False, create=False).close()  # absent: refused now
    if is_url(location):
        return lambda: open_store(location, migrate=False, create=False)
    return lambda: SqliteStore(location, migrate=False, create=False, read_only=True)


def ui(inv: Invocation, v: JSONObject) -> JSONObject:
    import webbrowser

    from vybe.jsonio import dumps

    require_extra("jinja2", "ui", "vybe ui")
    from vybe.ui.server import Viewer

    host, port = listen_address(v["listen"])
    if host not in LOOPBACK and not v["beyond_loopback"]:
        raise InvalidInput(
            f"--listen {v['listen']!r} is not a loopback address",
            context={"field": "listen"},
            suggested_action="listen on 127.0.0.1, or pass --beyond-loopback",
        )
    server = Viewer((host, port), read_only_opener(inv.settings.location))
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
        "Serve a read-only local web viewer of sessions, checkpoints, tasks, memory and events.",
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
