"""The e2e scenario of Gemini CLI through ``vybe proxy`` on the Gemini wire (issue #40): the
real Gemini CLI (pinned in package.json) answers headless turns (``-p``, ``--resume latest``)
against the fake Gemini server, through the proxy, with no hooks installed.

The checks: the session is recorded as ``gemini:<id>`` with every typed prompt once and its
own context (``<session_context>``) as harness input; its side requests (the routing
classifier, asking for JSON) are relayed and never recorded; the streamed reply reaches the
client in pieces and the record holds it whole; the client goes on working.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from checks import Checks
from proxied import (
    FILLER,
    MISSION,
    Proxy,
    answered_by_checkpoint,
    harness_and_replies,
    mission_kept,
    one_session,
    posts,
    server_log,
    typed,
)
from sandbox import BIN, FAKE_KEY, Sandbox

import fakes

QUESTION = "what is the mission?"
COMPRESSOR = "distilling chat history into a structured XML <state_snapshot>"


class GeminiCli:
    """The real Gemini CLI, headless, its key chosen in its settings, through ``proxy``."""

    def __init__(self, box: Sandbox, proxy: Proxy) -> None:
        self.box = box
        settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
        (box.home / ".gemini").mkdir(parents=True, exist_ok=True)
        (box.home / ".gemini" / "settings.json").write_text(json.dumps(settings))
        self.env = {
            "GEMINI_API_KEY": FAKE_KEY,
            "GOOGLE_GEMINI_BASE_URL": proxy.url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }

    def turn(self, prompt: str, resume: bool = False) -> dict[str, Any]:
        argv = [str(BIN / "gemini"), "-p", prompt, "--output-format", "json"]
        argv += ["--resume", "latest"] if resume else []
        done = self.box.run(argv, timeout=180, env=self.env)
        try:
            return json.loads(done.stdout)
        except ValueError:
            return {"error": done.stderr[-800:], "exit": done.returncode}


def session_of(first: str) -> str:
    return "gemini:" + hashlib.sha256(first.strip().encode()).hexdigest()[:24]


def gemini_proxy(checks: Checks) -> Sandbox:
    box = Sandbox("gemini-proxy", fakes.Gemini(server_log("gemini-proxy")).start(), capture=False)
    proxy = Proxy(box)
    gemini = GeminiCli(box, proxy)
    session = session_of(MISSION)
    try:
        first = gemini.turn(MISSION)
        checks.that(
            "gemini #40: gemini -p answers through vybe proxy on the Gemini wire",
            "reply to: Mission" in str(first.get("response")),
            first,
        )
        for words in FILLER:
            gemini.turn(words, resume=True)
        last = gemini.turn(QUESTION, resume=True)
        checks.that(
            "gemini #40: the resumed session goes on working",
            f"reply to: {QUESTION}" in str(last.get("response")),
            last,
        )
        streamed = [e for e in box.server.log.entries if ":streamGenerateContent" in e["path"]]
        checks.that(
            "gemini #40: its turns stream (streamGenerateContent, alt=sse) through the proxy",
            bool(streamed) and all("alt=sse" in e["path"] for e in streamed),
            [e["path"] for e in box.server.log.entries][:6],
        )
        one_session(checks, "gemini", box, session, [MISSION, *FILLER, QUESTION])
        harness, replies = harness_and_replies(box, session)
        checks.that(
            "gemini #40: its session context is harness input, and no side request (its"
            " routing classifier's JSON) is recorded",
            any("session context" in t for t in harness)
            and not any("complexity" in t for t in replies),
            (harness[:2], replies[:3]),
        )
        checks.that(
            "gemini #40: each streamed reply is recorded whole from its pieces",
            f"reply to: {QUESTION}" in replies[-1] if replies else False,
            replies[-1:],
        )
    finally:
        code, out, _ = proxy.stop()
    checks.that("gemini #40: vybe proxy stops on SIGTERM with its envelope", code == 0, out)
    return box


def gemini_compress(checks: Checks) -> Sandbox:
    """Its compression (above half its window: a tool call reports a context near it)
    answered by vybe's checkpoint, and the check of the summary it asks for after it."""
    server = fakes.Gemini(server_log("gemini-compress")).start()
    box = Sandbox("gemini-compress", server, capture=False)
    proxy = Proxy(box)
    gemini = GeminiCli(box, proxy)
    session = session_of(MISSION)
    try:
        gemini.turn(MISSION)
        for words in FILLER:
            gemini.turn(words, resume=True)
        before = len(posts(box.server))
        big = gemini.turn("list the folder [[big]]", resume=True)
        answered_by_checkpoint(
            checks,
            "gemini #40: its compression is answered by vybe's checkpoint turn upstream, its"
            " compressor's requests never sent as they came",
            box,
            before,
            COMPRESSOR,
        )
        later = posts(box.server)[before:]
        checks.that(
            "gemini #40: the turn goes on after the compression",
            "done: the folder is listed" in str(big.get("response")),
            big,
        )
        after = [
            b
            for b in later
            if "functionResponse" in json.dumps(b.get("contents"))
            and not fakes.is_checkpoint_turn(b)
        ]
        mission_kept(
            checks,
            "gemini #40: after its compression the next request carries the Mission and the"
            " constraint byte for byte, from vybe's checkpoint",
            after[0] if after else None,
        )
        last = gemini.turn(QUESTION, resume=True)
        checks.that(
            "gemini #40: the session goes on after the compression, under its own name",
            f"reply to: {QUESTION}" in str(last.get("response")),
            last,
        )
        words = [MISSION, *FILLER, "list the folder [[big]]", QUESTION]
        checks.that(
            "gemini #40: the record holds every typed prompt exactly once, the summary it kept"
            " as harness input",
            typed(box, session) == words,
            (typed(box, session), box.query("SELECT DISTINCT session_id FROM messages")),
        )
        attempts = box.query(
            "SELECT outcome FROM checkpoint_attempts WHERE session_id = ?", session
        )
        checks.that(
            "gemini #40: its compression is one accepted checkpoint (its check asks no turn)",
            [a["outcome"] for a in attempts] == ["accepted"],
            [dict(a) for a in attempts],
        )
    finally:
        code, out, _ = proxy.stop()
    checks.that("gemini #40: vybe proxy stops on SIGTERM after a compression", code == 0, out)
    return box
