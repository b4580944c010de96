"""The e2e scenarios of ``vybe proxy`` (issue #22): the real Claude Code and Codex talk to the
fake model servers through it, with no hooks installed, so the record is the proxy's alone.

A session states a Mission and a constraint first, then filler turns, then a compaction
(Claude: ``/compact``, then an auto-compaction forced by a 400 "prompt is too long"; Codex:
its auto-compaction above a small token limit). The checks: the summary the client kept
(its next request) holds the Mission and the person's words verbatim, taken from vybe's
checkpoint; the client goes on working; the record holds every typed prompt once.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from typing import Any

from checks import Checks
from clients import Claude, Codex
from sandbox import VYBE, Sandbox

import fakes

MISSION = "Mission: port the parser to Rust. Never touch tests/fixtures/ (a hard constraint)."
FILLER = ("read the lexer", "list the tokens", "check the error paths")
CLAUDE_KEPT = "This session is being continued from a previous conversation"
CODEX_KEPT = "Another language model started to solve this problem"


class Proxy:
    """``vybe proxy`` as a person starts it, in front of the sandbox's fake server."""

    def __init__(self, box: Sandbox, *options: str) -> None:
        argv = [VYBE, "proxy", "--upstream", box.server.url, "--listen", "127.0.0.1:0", *options]
        self.log = box.root / "proxy.log"
        self.process = subprocess.Popen(
            argv, env=box.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert self.process.stderr is not None
        line = self.process.stderr.readline()
        found = re.search(r"relaying (http://127\.0\.0\.1:\d+) to", line)
        if not found:
            raise RuntimeError(f"vybe proxy did not start: {line!r}")
        self.url = found.group(1)

    def stop(self) -> tuple[int, str, str]:
        self.process.send_signal(signal.SIGTERM)
        out, err = self.process.communicate(timeout=30)
        self.log.write_text(f"exit {self.process.returncode}\n--- stdout\n{out}\n--- stderr\n{err}")
        return self.process.returncode, out, err


def posts(server: Any) -> list[dict[str, Any]]:
    return [e.get("body") or {} for e in server.log.entries if e["method"] == "POST"]


def typed(box: Sandbox, session: str) -> list[str]:
    return [r["content_text"] for r in box.messages(session) if r["type"] == "user"]


def answered_by_checkpoint(checks: Checks, name: str, box: Sandbox, start: int, ask: str) -> None:
    """A request after ``start`` was vybe's checkpoint turn, and no request with the client's
    own compaction ask (``ask``) reached the model."""
    later = posts(box.server)[start:]
    checks.that(
        name,
        any(fakes.is_checkpoint_turn(b) for b in later)
        and not any(ask in json.dumps(b) for b in posts(box.server)),
        [len(json.dumps(b)) for b in later],
    )


def mission_kept(checks: Checks, name: str, body: dict[str, Any] | None) -> str:
    """Check that a request (None: there was none) carries the Mission and the constraint byte
    for byte, from vybe's checkpoint (its Mission entry, the person's message); its text."""
    kept = "\n".join(fakes.strings_of(body)) if body is not None else ""
    checks.that(
        name, f"- {MISSION}" in kept and f"\n{MISSION}\n</user-message>" in kept, kept[:1500]
    )
    return kept


def harness_and_replies(box: Sandbox, session: str) -> tuple[list[str], list[str]]:
    """The texts of the session's harness inputs, and of its replies."""
    rows = box.messages(session)
    kinds = [
        [r["content_text"] for r in rows if r["type"] == kind] for kind in ("harness", "assistant")
    ]
    return kinds[0], kinds[1]


def started_here(checks: Checks, who: str, box: Sandbox, session: str) -> None:
    """The session's row names the client the proxy recognised as its agent, and as its
    project the folder the client ran in, which its first request named (#38)."""
    rows = box.query("SELECT agent_name, project_id FROM sessions WHERE id = ?", session)
    found = [(r["agent_name"], r["project_id"]) for r in rows]
    here = os.path.realpath(box.project)
    checks.that(
        f"{who} #38: the proxied session is {who}'s, in the project the client ran in",
        [(agent, project and os.path.realpath(project)) for agent, project in found]
        == [(who, here)],
        found,
    )


def one_session(checks: Checks, who: str, box: Sandbox, session: str, words: list[str]) -> None:
    """The record holds ``words`` as the typed prompts of ``session``, once each, no other
    session was made of the client's requests, and the session is the client's, here."""
    sessions = [r["session_id"] for r in box.query("SELECT DISTINCT session_id FROM messages")]
    checks.that(
        f"{who} #40: the record holds every typed prompt exactly once under {who}:<id>",
        typed(box, session) == words,
        (typed(box, session), sessions),
    )
    checks.that(
        f"{who} #40: no other session is made of its requests", sessions == [session], sessions
    )
    started_here(checks, who, box, session)


def kept_after(server: Any, start: int, mark: str) -> str:
    """The first request after ``start`` that carries the client's kept summary, as text."""
    for body in posts(server)[start:]:
        text = "\n".join(fakes.strings_of(body))
        if mark in text and not fakes.is_checkpoint_turn(body):
            return text
    return ""


def kept_checks(checks: Checks, who: str, what: str, kept: str, session: str) -> None:
    checks.that(
        f"{who} #22: after {what} the next request carries the Mission and the constraint"
        " byte for byte, from vybe's checkpoint",
        f"- {MISSION}" in kept and f"\n{MISSION}\n</user-message>" in kept,
        kept[:1500],
    )
    checks.that(
        f"{who} #22: the summary it kept names where the whole record is searched",
        f"--session-id {session}" in kept and "# 6. Now" in kept,
        kept[-800:],
    )


def claude_proxy(checks: Checks) -> Sandbox:
    box = Sandbox("claude-proxy", fakes.Anthropic(server_log("claude-proxy")).start())
    proxy = Proxy(box)
    claude = Claude(box, server=proxy)
    try:
        first = claude.turn(MISSION)
        sid = first.get("session_id")
        checks.that("claude #22: claude -p answers through vybe proxy", bool(sid), first)
        for words in FILLER:
            claude.turn(words, resume=sid)
        session = f"claude:{sid}"
        before = len(posts(box.server))
        claude.turn("/compact", resume=sid)
        turns = [b for b in posts(box.server)[before:] if fakes.is_checkpoint_turn(b)]
        checks.that(
            "claude #22: /compact is answered by vybe's checkpoint turn upstream, not the"
            " client's summary request",
            bool(turns)
            and not any("REMINDER: Do NOT call" in json.dumps(b) for b in posts(box.server)),
            len(turns),
        )
        after = claude.turn("what is the mission?", resume=sid)
        checks.that(
            "claude #22: the session goes on after /compact",
            "reply to: what is the mission" in str(after.get("result")),
            after,
        )
        kept_checks(
            checks, "claude", "/compact", kept_after(box.server, before, CLAUDE_KEPT), session
        )
        before = len(posts(box.server))
        auto = claude.turn("[[too-long]] go on with the parser", resume=sid)
        kept = kept_after(box.server, before, CLAUDE_KEPT)
        checks.that(
            "claude #22: a 400 'prompt is too long' auto-compacts through vybe's checkpoint,"
            " and the retried turn is answered",
            "reply to:" in str(auto.get("result")) and bool(kept),
            auto,
        )
        kept_checks(checks, "claude", "auto-compaction", kept, session)
        started_here(checks, "claude", box, session)
        words = [MISSION, *FILLER, "what is the mission?", "[[too-long]] go on with the parser"]
        checks.that(
            "claude #22: the record holds every typed prompt exactly once, no harness text as"
            " the person's",
            typed(box, session) == words,
            typed(box, session),
        )
        attempts = box.query(
            "SELECT outcome FROM checkpoint_attempts WHERE session_id = ?", session
        )
        checks.that(
            "claude #22: each compaction is an accepted checkpoint in the record",
            [a["outcome"] for a in attempts] == ["accepted", "accepted"],
            [dict(a) for a in attempts],
        )
    finally:
        code, out, _ = proxy.stop()
    checks.that("claude #22: vybe proxy stops on SIGTERM with its envelope", code == 0, out)
    return box


def claude_proxy_hooked(checks: Checks) -> Sandbox:
    """The same session with vybe's hooks installed too: the hooks record it, the proxy
    records nothing twice, and /compact is still answered from the record."""
    from scenarios import install

    box = Sandbox("claude-proxy-hooked", fakes.Anthropic(server_log("claude-proxy-hooked")).start())
    install(box, checks)
    proxy = Proxy(box)
    claude = Claude(box, server=proxy)
    try:
        sid = claude.turn(MISSION).get("session_id")
        for words in FILLER:
            claude.turn(words, resume=sid)
        before = len(posts(box.server))
        claude.turn("/compact", resume=sid)
        claude.turn("what is the mission?", resume=sid)
        session = f"claude:{sid}"
        words = [MISSION, *FILLER, "what is the mission?"]
        checks.that(
            "claude #22: with the hooks installed too, every typed prompt is recorded once",
            typed(box, session) == words,
            typed(box, session),
        )
        proxied = box.query(
            "SELECT count(*) AS n FROM messages WHERE session_id = ? AND content_json LIKE ?",
            session,
            '%"proxy":%',
        )
        checks.that(
            "claude #22: the proxy leaves a hooked session to the hooks (no row of its own)",
            proxied[0]["n"] == 0,
            proxied[0]["n"],
        )
        kept = kept_after(box.server, before, CLAUDE_KEPT)
        checks.that(
            "claude #22: /compact of a hooked session is answered with vybe's checkpoint",
            f"- {MISSION}" in kept,
            kept[:1500],
        )
    finally:
        proxy.stop()
    return box


def codex_proxy(checks: Checks) -> Sandbox:
    server = fakes.OpenAI(server_log("codex-proxy"), usage_tokens=60_000).start()
    box = Sandbox("codex-proxy", server)
    proxy = Proxy(box)
    codex = Codex(box, compact_limit=50_000, server=proxy)
    try:
        first = codex.turn(MISSION)
        thread = first["thread_id"]
        checks.that("codex #22: codex exec answers through vybe proxy", first["exit"] == 0, first)
        for words in FILLER:
            codex.turn(words, resume=thread)
        session = f"codex:{thread}"
        bodies = posts(box.server)
        turns = [b for b in bodies if fakes.is_checkpoint_turn(b)]
        checks.that(
            "codex #22: its auto-compaction is answered by vybe's checkpoint turn upstream",
            bool(turns)
            and not any("CONTEXT CHECKPOINT COMPACTION" in json.dumps(b) for b in bodies),
            len(turns),
        )
        kept_checks(
            checks, "codex", "its compaction", kept_after(box.server, 0, CODEX_KEPT), session
        )
        checks.that(
            "codex #22: the record holds every typed prompt exactly once",
            typed(box, session) == [MISSION, *FILLER],
            typed(box, session),
        )
        started_here(checks, "codex", box, session)
    finally:
        code, out, _ = proxy.stop()
    checks.that("codex #22: vybe proxy stops on SIGTERM with its envelope", code == 0, out)
    return box


def server_log(name: str) -> Any:
    from scenarios import server_log as beside  # scenarios lists these: imported when run

    return beside(name)
