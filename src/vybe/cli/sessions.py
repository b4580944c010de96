"""vybe session list|show|context|say|import|checkpoint|replay: the record of sessions (and
the session operations every surface offers, declared in vybe.operations.sessions)."""

from __future__ import annotations

import os

# pathlib and typing stay out: `vybe schema` loads this module for its declarations.
from vybe import limits
from vybe.cli.chat import MODEL, choice
from vybe.errors import UsageError
from vybe.operations import sessions as shared
from vybe.operations.common import LIMIT, SESSION_ID
from vybe.operations.model import CLI_ONLY, Operation, Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.cli.main import Invocation
    from vybe.jsonio import JSONObject
    from vybe.operations.model import Run

GROUPS = shared.GROUPS
ENGINE = (
    *MODEL,
    Param("scripted", "boolean", "vybe's offline scripted consolidator, not a model (no network)"),
)


def _record(inv: Any, origin: Any = None) -> Any:
    from vybe.store.record import SqliteRecord

    return SqliteRecord(inv.store, origin)


def _here(agent: str | None) -> Any:
    """A session this command starts: ``agent``'s, in the project of the working folder."""
    from vybe.store.record import Origin

    return Origin(agent, os.getcwd())


class _Once:
    """A record that appends one row once per (agent, request id): a replayed ``say``
    returns the row the first call wrote. A session it starts is the agent's, here."""

    def __init__(self, store: Any, once: tuple[str, str]) -> None:
        self.store, self.once = store, once

    def append(self, message: Any) -> Any:
        from vybe.store.record import append_message

        return append_message(self.store, message, self.once, _here(self.once[0]))


def list_(inv: Invocation, v: JSONObject) -> JSONObject:
    from vybe.actions.sessions import listing

    return listing(inv.store, v["limit"])


def show(inv: Invocation, v: JSONObject) -> JSONObject:
    from vybe.agent.inspect import show as show_session

    return show_session(_record(inv), v["session_id"])


def context(inv: Invocation, v: JSONObject) -> JSONObject:
    from pathlib import Path

    from vybe.agent.inspect import next_request
    from vybe.agent.setup import limits, model_info

    info, _, _ = model_info(choice(v), inv.settings.config_file)
    return next_request(_record(inv), v["session_id"], info, Path.cwd(), limits(info))


def say(inv: Invocation, v: JSONObject) -> JSONObject:
    from vybe.context.labels import parse_dispatch
    from vybe.context.recorder import record_harness, record_user

    record = _Once(inv.store, (inv.agent, inv.request_id))
    if v["harness"]:
        label = parse_dispatch(v["harness"])
        row = record_harness(record, v["session_id"], label, v["text"])
    else:
        row = record_user(record, v["session_id"], v["text"], author=inv.agent)
    return {"session_id": v["session_id"], "seq": row.seq, "type": row.type, "text": row.text}


def import_(inv: Invocation, v: JSONObject) -> JSONObject:
    """A Claude Code transcript or a Codex rollout, by default into the session its hooks
    record into (``claude:<id>``, ``codex:<id>``), without what the hooks recorded there."""
    from vybe.actions.receipts import from_import
    from vybe.integrations.importers.by_agent import folder_of, import_agent_file, not_recorded
    from vybe.store.record import Origin

    claude, codex = v["claude_transcript"], v["codex_rollout"]
    if (claude is None) == (codex is None):
        raise UsageError(
            "session import needs exactly one of claude_transcript or codex_rollout",
            context={"fields": ["claude_transcript", "codex_rollout"]},
        )
    given = codex if codex is not None else claude
    limits.text("path", given, limits.PATH_MAX, required=True)
    kind = "codex" if codex is not None else "claude"
    path = os.path.expanduser(given)
    there = os.path.isfile(path)  # a missing file is the import's NOT_FOUND
    folder = folder_of(kind, path) if there else None
    why = not_recorded(folder) if there else None
    if why is not None:
        return {"session_id": v["session_id"], "lines": 0, "imported": {}, "not_recorded": why}
    # The session is the agent's that wrote the file, in the project of the folder it names.
    agent = inv.named or kind
    origin = Origin(agent, os.path.abspath(folder) if folder else None)
    imported = import_agent_file(_record(inv, origin), kind, given, v["session_id"])
    result = imported.result
    receipts = from_import(inv.store, result.session_id, agent, result.compactions)
    return {
        "session_id": result.session_id,
        "lines": result.lines,
        "skipped_lines": result.skipped,
        "offset": result.offset,
        "imported": result.counts,
        "already_recorded": imported.left_out,
        "receipts_added": receipts,
    }


def _engine(inv: Invocation, v: JSONObject) -> Any:
    from vybe.agent.setup import engine_for

    return engine_for(
        inv.store, choice(v), inv.settings.config_file, v["scripted"], agent=inv.agent
    )


def checkpoint(inv: Invocation, v: JSONObject) -> JSONObject:
    from pathlib import Path

    from vybe.agent.checkpoints import force

    engine, info = _engine(inv, v)
    return {
        **force(engine, v["session_id"], Path.cwd()),
        "model": engine.model.name,
        "window": info.window,
    }


def replay(inv: Invocation, v: JSONObject) -> JSONObject:
    from pathlib import Path

    from vybe.agent.replay import replay as run_replay

    engine, _ = _engine(inv, v)
    return {**run_replay(engine, v["session_id"], Path.cwd()), "model": engine.model.name}


def _session(name: str, summary: str, run: Run, *params: Param, **options: Any) -> Operation:
    return Operation(f"session {name}", summary, run, params=params, surfaces=CLI_ONLY, **options)


OPERATIONS = (
    _session(
        "list",
        "Sessions, newest activity first.",
        list_,
        LIMIT,
        result={"sessions": "array"},
        listing="sessions",
        examples=("vybe session list --limit 10",),
    ),
    _session(
        "show",
        "A session's latest MIND, MEMO and NOW, its stats and checkpoint attempts.",
        show,
        SESSION_ID,
        result={"session_id": "string", "stats": "object"},
        examples=("vybe session show s1",),
    ),
    _session(
        "context",
        "The exact next request the model would get, as JSON.",
        context,
        SESSION_ID,
        *MODEL,
        examples=("vybe session context s1 --window 32000",),
    ),
    _session(
        "say",
        "Append an input to a session for its next turn.",
        say,
        SESSION_ID,
        Param("text", help="what to say", required=True, positional=True),
        Param("harness", help="""a dispatch label, e.g. 'Watch w1 "nightly"'""", metavar="LABEL"),
        writes=True,
        result={"session_id": "string", "seq": "integer", "type": "string"},
        examples=('vybe session say s1 "use tabs"',),
    ),
    _session(
        "import",
        "Import a Claude Code transcript or a Codex rollout, from where the last import ended.",
        import_,
        Param(
            "claude_transcript",
            help="a Claude Code transcript (.jsonl)",
            aliases=("--claude",),
            metavar="PATH",
        ),
        Param(
            "codex_rollout",
            help="a Codex rollout (.jsonl)",
            aliases=("--codex",),
            metavar="PATH",
        ),
        Param(
            "session_id",
            help="the session to import into (default claude:<id> or codex:<id>)",
            aliases=("--session",),
        ),
        writes=True,
        result={"session_id": "string", "lines": "integer", "imported": "object"},
        examples=("vybe session import --claude-transcript ~/.claude/projects/p/s.jsonl",),
    ),
    _session(
        "checkpoint",
        "Take a checkpoint of a session now, due or not.",
        checkpoint,
        SESSION_ID,
        *ENGINE,
        writes=True,
        examples=("vybe session checkpoint s1 --scripted",),
    ),
    _session(
        "replay",
        "Run the engine over a copy of a session (with window N): what each checkpoint kept.",
        replay,
        SESSION_ID,
        *ENGINE,
        writes=True,
        examples=("vybe session replay s1 --window 32000 --scripted",),
    ),
    *shared.OPERATIONS,
)
ALIASES = ()
