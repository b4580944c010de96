"""The cross-agent e2e scenario (issue #40): a task begun in the real Aider through ``vybe
proxy`` (no hooks: the proxy records it as ``aider:<id>``) is handed to the real Claude Code
with vybe's hooks, in the same project and store, and Claude Code's first request holds
Aider's session with the person's words verbatim, as claude's ``vybe resume`` does; ``vybe
search`` finds both sessions' words.
"""

from __future__ import annotations

from aider import FILLER, Aider, session_of
from checks import Checks
from clients import Claude
from proxied import MISSION, Proxy, server_log
from sandbox import Sandbox

import fakes

ASKED = "what is left on the parser port?"


def aider_to_claude(checks: Checks) -> Sandbox:
    from scenarios import install, said_to, section, user_words_of

    box = Sandbox("aider-to-claude", fakes.Chat(server_log("aider-to-claude")).start())
    anthropic = fakes.Anthropic(server_log("aider-to-claude-claude")).start()
    install(box, checks, "--claude")
    project = str(box.project)
    box.vybe("project", "create", "--id", project, "--name", "project")
    made = box.vybe(
        "--agent", "aider", "task", "create", "--title", "Port the parser to Rust",
        "--project-id", project,
    )  # fmt: skip
    task = made.get("data", {}).get("task", {}).get("id", "")
    box.vybe("--agent", "aider", "task", "begin", "--id", task)
    proxy = Proxy(box)
    session = session_of(MISSION)
    try:
        done = Aider(box, proxy).session([MISSION, *FILLER])
        checks.that(
            "cross-agent #40: the task begins in Aider through vybe proxy",
            done.returncode == 0 and box.messages(session),
            done.stdout[-600:] + done.stderr[-600:],
        )
    finally:
        proxy.stop()
    handed = box.vybe(
        "--agent", "aider", "task", "assign", "--task-id", task, "--to", "claude",
        "--session-id", session,
    )  # fmt: skip
    checks.that(
        "cross-agent #40: `vybe task assign --to claude` names Aider's proxied session",
        handed.get("success"),
        handed,
    )
    Claude(box, server=anthropic).turn(ASKED)
    first = said_to(anthropic)[:1]
    part = section(first[0], "aider") if first else ""
    words = user_words_of(part)
    checks.that(
        "cross-agent #40: Claude Code's first request holds Aider's session, the person's"
        " words to Aider verbatim, apart from the rest",
        f"(from its session {session})" in part
        and all(f"\n{text}\n" in words for text in (MISSION, *FILLER)),
        part or (first[0][-1500:] if first else "no request"),
    )
    brief = box.vybe("--agent", "claude", "resume", "--peek").get("data", {}).get("brief", {})
    handoff = brief.get("handoff") or {}
    checks.that(
        "cross-agent #40: claude's vybe resume names Aider's session and the person's words",
        handoff.get("session_id") == session
        and [w.get("text") for w in handoff.get("user_words", [])] == [MISSION, *FILLER],
        handoff,
    )
    found = box.vybe("search", "Rust parser")
    hits = {h.get("session_id") for h in found.get("data", {}).get("hits", [])}
    asked = box.vybe("search", "parser port")
    hits |= {h.get("session_id") for h in asked.get("data", {}).get("hits", [])}
    claude = {r["session_id"] for r in box.query("SELECT session_id FROM messages")} - {session}
    checks.that(
        "cross-agent #40: vybe search finds the words of both sessions, Aider's and Claude's",
        session in hits and bool(hits & claude),
        (hits, claude),
    )
    return box
