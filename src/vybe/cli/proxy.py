"""vybe proxy: a model-API proxy that records every session it relays (vybe.proxy)."""

from __future__ import annotations

from vybe.errors import InvalidInput
from vybe.operations.model import CLI_ONLY, Operation, Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.cli.main import Invocation
    from vybe.jsonio import JSONObject

GROUPS: dict[str, str] = {}
LOOPBACK = ("127.0.0.1", "::1", "localhost")
DEFAULT_LISTEN = "127.0.0.1:8788"
SETTLE = 10.0  # seconds a stopping proxy waits for the replies in flight to reach the record


def listen_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as a socket address; INVALID_INPUT otherwise."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise InvalidInput(
            f"--listen {text!r} is not HOST:PORT",
            context={"field": "listen"},
            suggested_action=f"give an address such as {DEFAULT_LISTEN}",
        )
    return host, int(port)


def proxy(inv: Invocation, v: JSONObject) -> JSONObject:
    import signal

    from vybe import config
    from vybe.proxy.recorder import CLIENTS, Recorder
    from vybe.proxy.relay import Options, ProxyServer, note
    from vybe.proxy.rewrite import Rewriter
    from vybe.proxy.writer import Writer
    from vybe.store import open_store
    from vybe.store.record import Origin, SqliteRecord

    try:
        options = Options(v["upstream"], v["token"], v["max_body_mb"] * 1024 * 1024)
    except ValueError as error:
        raise InvalidInput(
            f"--upstream: {error}",
            context={"field": "upstream"},
            suggested_action="give the model API's base URL, e.g. https://api.anthropic.com",
        ) from None
    host, port = listen_address(v["listen"])
    settings = inv.settings

    def origin(session_id: str) -> Origin:
        """A session the proxy starts: the agent is the client it recognised by the session
        (claude, codex, gemini, opencode, aider), the project the folder its first request
        named, where it named one."""
        client = session_id.partition(":")[0]
        folder = writer.folder(session_id) if writer is not None else None
        return Origin(client if client in CLIENTS else None, folder)

    def open_record() -> SqliteRecord:
        return SqliteRecord(open_store(settings.location, settings.busy_timeout_ms), origin)

    # VYBE_RECORD=off: every request relayed as it came, nothing of it recorded.
    writer = None if config.recording_off() else Writer(open_record, note)
    rewriter = Rewriter(v["window"]) if v["checkpoints"] else None
    recorder = Recorder(writer, options.where + options.prefix, rewriter) if writer else None
    server = ProxyServer(options, (host, port), recorder)

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        if host not in LOOPBACK and options.token is None:
            note(f"listening on {host}, beyond this machine, with no --token")
        note(f"relaying {server.url} to {options.where}")
        if writer is None:
            note("VYBE_RECORD=off: nothing this proxy relays is recorded")
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        if recorder is not None and not recorder.settle(SETTLE):
            note(f"replies still streaming after {SETTLE:g} s are not recorded")
        if writer is not None:
            writer.close()
    return {
        "listen": server.url,
        "upstream": options.where,
        "stopped": True,
        "recorded": writer is not None,
    }


OPERATIONS = (
    Operation(
        "proxy",
        "Relay a model API (Anthropic Messages, OpenAI Chat Completions and Responses) and"
        " record every session it carries.",
        proxy,
        params=(
            Param("upstream", help="the model API's base URL the proxy relays to", required=True),
            Param(
                "listen",
                help="where the proxy listens, HOST:PORT (loopback unless told otherwise)",
                default=DEFAULT_LISTEN,
            ),
            Param("token", help="a bearer token clients must send (Proxy-Authorization)"),
            Param(
                "max_body_mb",
                "integer",
                "the largest request body it reads, in MB",
                default=32,
                minimum=1,
                maximum=1024,
            ),
            Param(
                "checkpoints",
                "boolean",
                "keep each session inside the window itself (rewrite mode, for agents that"
                " never compact)",
            ),
            Param(
                "window",
                "integer",
                "rewrite mode's context window, in tokens (default: the model's)",
                minimum=1_000,
                maximum=100_000_000,
            ),
        ),
        writes=True,
        surfaces=CLI_ONLY,
        result={"listen": "string", "upstream": "string"},
        examples=(
            "vybe proxy --upstream https://api.anthropic.com",
            "vybe proxy --upstream https://api.openai.com --listen 127.0.0.1:8789",
            "vybe proxy --upstream http://127.0.0.1:8000/v1 --checkpoints --window 32000",
        ),
    ),
)
ALIASES = ()
