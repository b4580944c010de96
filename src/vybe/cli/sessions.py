"""vybe session list|show|context|say|import|checkpoint|replay: the record of sessions."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from vybe.actions import limits
from vybe.cli import types
from vybe.cli.chat import add_model_flags, choice
from vybe.cli.registry import Registry
from vybe.errors import InvalidInput

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    import argparse

HARNESS_KINDS = {"watch": "watch", "task": "task", "agent_run": "agent_run", "callback": "callback"}


def _record(inv: Any) -> Any:
    from vybe.store.record import SqliteRecord

    return SqliteRecord(inv.store)


def list_(inv: Any, args: argparse.Namespace) -> dict:
    from vybe.actions.sessions import listing

    return listing(inv.store, args.limit)


def show(inv: Any, args: argparse.Namespace) -> dict:
    from vybe.agent.inspect import show as show_session

    return show_session(_record(inv), args.id)


def context(inv: Any, args: argparse.Namespace) -> dict:
    from vybe.agent.inspect import next_request
    from vybe.agent.setup import limits, model_info

    info, _, _ = model_info(choice(args), inv.settings.config_file)
    return next_request(_record(inv), args.id, info, Path.cwd(), limits(info))


def dispatch(label: str) -> Any:
    """``Watch w1 "nightly"`` -> the dispatch facts; ``agent_run R S`` names the session."""
    from vybe.context.labels import Dispatch

    try:
        words = shlex.split(label)
    except ValueError as exc:
        raise InvalidInput(f"--harness {label!r}: {exc}") from None
    kind = HARNESS_KINDS.get(words[0].lower()) if words else None
    if kind is None or len(words) < 2:
        raise InvalidInput(
            f"--harness {label!r} is not a dispatch label",
            suggested_action="""use 'Watch ID "NAME"', 'Task ID "NAME"', 'agent_run RUN SESSION'"""
            " or 'callback RUN SESSION'",
        )
    if kind in ("agent_run", "callback"):
        return Dispatch(kind, words[1], from_session=words[2] if len(words) > 2 else "")
    return Dispatch(kind, words[1], name=" ".join(words[2:]))


def say(inv: Any, args: argparse.Namespace) -> dict:
    from vybe.context.recorder import record_harness, record_user

    record = _record(inv)
    if args.harness:
        row = record_harness(record, args.id, dispatch(args.harness), args.text)
    else:
        row = record_user(record, args.id, args.text, author=inv.agent)
    return {"session_id": args.id, "seq": row.seq, "type": row.type, "text": row.text}


def import_(inv: Any, args: argparse.Namespace) -> dict:
    """A Claude Code transcript or a Codex rollout, by default into the session its hooks
    record into (``claude:<id>``, ``codex:<id>``), without what the hooks recorded there."""
    from vybe.integrations import claude_transcript, codex_rollout
    from vybe.integrations.claude_code import import_skipping_hooked

    given = args.codex if args.codex is not None else args.claude
    limits.text("path", given or "", limits.PATH_MAX, required=True)
    if args.codex is not None:
        kind, stamp = "codex", codex_rollout.STAMP
        run, name = codex_rollout.import_rollout, codex_rollout.rollout_id
    else:
        kind, stamp = "claude", claude_transcript.STAMP
        run, name = claude_transcript.import_transcript, claude_transcript.transcript_id
    path = Path(given).expanduser()
    session = args.session or (f"{kind}:{name(path)}" if path.is_file() else "")
    imported = import_skipping_hooked(_record(inv), session, path, stamp, run)
    result = imported.result
    return {
        "session_id": result.session_id,
        "lines": result.lines,
        "skipped_lines": result.skipped,
        "offset": result.offset,
        "imported": result.counts,
        "already_recorded": imported.left_out,
    }


def _engine(inv: Any, args: argparse.Namespace) -> Any:
    from vybe.agent.setup import engine_for

    return engine_for(inv.store, choice(args), inv.settings.config_file, args.scripted)


def checkpoint(inv: Any, args: argparse.Namespace) -> dict:
    from vybe.agent.checkpoints import force

    engine, info = _engine(inv, args)
    return {**force(engine, args.id, Path.cwd()), "model": engine.model.name, "window": info.window}


def replay(inv: Any, args: argparse.Namespace) -> dict:
    from vybe.agent.replay import replay as run_replay

    engine, _ = _engine(inv, args)
    return {**run_replay(engine, args.id, Path.cwd()), "model": engine.model.name}


def _add_engine_flags(parser: argparse.ArgumentParser) -> None:
    add_model_flags(parser)
    parser.add_argument(
        "--scripted",
        action="store_true",
        help="use vybe's offline scripted consolidator instead of a model (no network)",
    )


def register(registry: Registry) -> None:
    registry.group("session", "the record of agent sessions: inspect, feed, import")
    p = registry.command("session list", list_, "sessions, newest activity first")
    p.add_argument("--limit", type=types.limit, default=50)
    p = registry.command("session show", show, "latest MIND, MEMO, NOW, stats and attempts")
    p.add_argument("id")
    p = registry.command("session context", context, "the exact next request, as JSON")
    p.add_argument("id")
    add_model_flags(p)
    p = registry.command("session say", say, "append an input for the next turn", mutates=True)
    p.add_argument("id")
    p.add_argument("text")
    p.add_argument("--harness", metavar="LABEL", help="""e.g. 'Watch w1 "nightly"'""")
    p = registry.command(
        "session import",
        import_,
        "import a Claude Code transcript or a Codex rollout, from where the last import ended",
        mutates=True,
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--claude", metavar="PATH.jsonl", help="a Claude Code transcript")
    source.add_argument("--codex", metavar="PATH.jsonl", help="a Codex rollout")
    p.add_argument("--session", help="target session (default claude:<id> or codex:<id>)")
    p = registry.command(
        "session checkpoint", checkpoint, "take a checkpoint now, due or not", mutates=True
    )
    p.add_argument("id")
    _add_engine_flags(p)
    p = registry.command(
        "session replay",
        replay,
        "run the engine over a session in a copy, with --window N: what each checkpoint kept",
        mutates=True,
    )
    p.add_argument("id")
    _add_engine_flags(p)
