"""The cross-agent e2e scenarios (issue #40), each in one project and store:

- ``aider-to-claude``: a task begun in the real Aider through ``vybe proxy`` (no hooks: the
  proxy records it as ``aider:<id>``) is handed to the real Claude Code with vybe's hooks,
  and Claude Code's first request holds Aider's session with the person's words verbatim,
  as claude's ``vybe resume`` does; ``vybe search`` finds both sessions' words.
- ``opencode-to-gemini-to-codex``: a task begun in the real OpenCode through the proxy is
  handed to the real Gemini CLI with vybe's hooks, and from there to the real Codex with
  vybe's hooks; each receiver's first request holds the sender's session and the person's
  words to the sender verbatim; ``vybe search`` finds the words of all three sessions.
"""

from __future__ import annotations

import opencode
from aider import FILLER, Aider, session_of
from checks import Checks
from clients import Claude, Codex
from gemini import GeminiCli, hook_contexts
from proxied import MISSION, Proxy, server_log
from sandbox import Sandbox

import fakes

ASKED = "what is left on the parser port?"


def task_begun(box: Sandbox, agent: str) -> str:
    """The task the scenario hands on, made in the sandbox's project and begun by ``agent``:
    its id."""
    project = str(box.project)
    box.vybe("project", "create", "--id", project, "--name", "project")
    made = box.vybe(
        "--agent", agent, "task", "create", "--title", "Port the parser to Rust",
        "--project-id", project,
    )  # fmt: skip
    task = str(made.get("data", {}).get("task", {}).get("id", ""))
    box.vybe("--agent", agent, "task", "begin", "--id", task)
    return task


def aider_to_claude(checks: Checks) -> Sandbox:
    from scenarios import install, said_to, section, user_words_of

    box = Sandbox("aider-to-claude", fakes.Chat(server_log("aider-to-claude")).start())
    anthropic = fakes.Anthropic(server_log("aider-to-claude-claude")).start()
    install(box, checks, "--claude")
    task = task_begun(box, "aider")
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


BEGUN = ("read the lexer", "keep the tokens as they are")  # short: no compaction here
TO_CODEX = "what does the parser port need next?"


def opencode_to_gemini_to_codex(checks: Checks) -> Sandbox:
    from scenarios import install, said_to, section, user_words_of

    chat = fakes.Chat(server_log("opencode-to-gemini")).start()
    box = Sandbox("opencode-to-gemini-to-codex", chat)
    google = fakes.Gemini(server_log("opencode-to-gemini-gemini")).start()
    openai = fakes.OpenAI(server_log("opencode-to-gemini-codex")).start()
    gemini, codex = GeminiCli(box, google), Codex(box, server=openai)
    box.vybe("setup", "--gemini")
    install(box, checks, "--codex")
    task = task_begun(box, "opencode")
    proxy = Proxy(box)
    try:
        agent = opencode.OpenCode(box, proxy)
        done = [agent.turn(MISSION)] + [agent.turn(w, resume=True) for w in BEGUN]
    finally:
        proxy.stop()
    begun = opencode.session_of(box)
    checks.that(
        "cross-agent #40: the task begins in OpenCode through vybe proxy",
        all(d.returncode == 0 for d in done) and bool(box.messages(begun)),
        [d.stdout[-300:] + d.stderr[-300:] for d in done],
    )
    box.vybe(
        "--agent", "opencode", "task", "assign", "--task-id", task, "--to", "gemini",
        "--session-id", begun,
    )  # fmt: skip
    gemini.turn(ASKED)
    given = [t for b in fakes.bodies(google)[:3] for t in hook_contexts(b)]
    part = next((section(t, "opencode") for t in given if section(t, "opencode")), "")
    words = user_words_of(part)
    checks.that(
        "cross-agent #40: Gemini CLI's first prompt carries OpenCode's hand-off in vybe's"
        " brief: its session, the person's words to OpenCode verbatim",
        f"(from its session {begun})" in part
        and all(f"\n{text}\n" in words for text in (MISSION, *BEGUN)),
        part or given[:1],
    )
    found = {r["session_id"] for r in box.query("SELECT session_id FROM messages")}
    picked = next((s for s in found if s.startswith("gemini:")), "")
    box.vybe(
        "--agent", "gemini", "task", "assign", "--task-id", task, "--to", "codex",
        "--session-id", picked,
    )  # fmt: skip
    codex.turn(TO_CODEX)
    first = said_to(openai)[:1]
    part = section(first[0], "gemini") if first else ""
    checks.that(
        "cross-agent #40: Codex's first request holds Gemini CLI's hand-off: its session, the"
        " person's words to Gemini verbatim, and no hand-off of OpenCode's",
        f"(from its session {picked})" in part
        and f"\n{ASKED}\n" in user_words_of(part)
        and "=== Handed over by opencode" not in first[0],
        part or (first[0][-1500:] if first else "no request"),
    )
    hits: set[str] = set()
    for query in ("Rust parser", "parser port", "lexer"):
        found_now = box.vybe("search", query).get("data", {}).get("hits", [])
        hits |= {h.get("session_id") for h in found_now}
    codex_sessions = {r["session_id"] for r in box.query("SELECT session_id FROM messages")}
    codexes = {s for s in codex_sessions if s.startswith("codex:")}
    checks.that(
        "cross-agent #40: vybe search finds the words of all three sessions",
        {begun, picked} <= hits and bool(hits & codexes),
        (hits, codexes),
    )
    return box
