"""The e2e scenario of OpenCode through ``vybe proxy`` (issue #40): the real OpenCode (pinned
in package.json) answers headless turns (``opencode run``, ``--continue``, the prompt on its
stdin) against the fake Chat Completions server, through the proxy, with an OpenAI-compatible
provider whose ``baseURL`` is the proxy's (as ``vybe setup`` points one).

A session states a Mission and a constraint first, then filler turns with long replies; the
model's window in its config is small and the fake server reports the request's size as
its input tokens, so OpenCode compacts on its own after the fillers (its summarization
agent's request), then goes on (its synthetic "Continue if you have next steps…"); then the
person asks for the Mission. The checks: the session is recorded as ``opencode:<its session
id>`` with every typed prompt once and its own inputs as harness input; its title request is
relayed and never recorded; its compaction is answered by vybe's checkpoint and the next
request carries the Mission and the constraint byte for byte; replies stream in pieces and
are recorded whole; OpenCode goes on working.
"""

from __future__ import annotations

import json
from typing import Any

from checks import Checks
from proxied import (
    MISSION,
    Proxy,
    answered_by_checkpoint,
    harness_and_replies,
    mission_kept,
    one_session,
    posts,
    server_log,
)
from sandbox import BIN, FAKE_KEY, Sandbox

import fakes

OPENCODE = BIN / "opencode"
FILLER = tuple(
    f"{w} [[long: 400]]" for w in ("read the lexer", "list the tokens", "check the errors")
)
QUESTION = "what is the mission?"
WINDOW = 6_000  # tokens in its config: it compacts after the fillers (its own rule)
SUMMARIZER = "You are a context summarization agent."
TITLER = "You are a title generator."
ASKED = "What did we do so far?"  # the user message before the summary it keeps
CONTINUE = "Continue if you have next steps"  # its synthetic message after a compaction


class OpenCode:
    """The real OpenCode, headless, a provider of its config pointed at ``proxy``."""

    def __init__(self, box: Sandbox, proxy: Proxy) -> None:
        self.box = box
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Fake through vybe",
            "options": {"baseURL": proxy.url + "/v1", "apiKey": FAKE_KEY},
            "models": {"m1": {"name": "m1", "limit": {"context": WINDOW, "output": 2000}}},
        }
        settings = {
            "provider": {"fake": provider},
            "model": "fake/m1",
            "autoupdate": False,
            "share": "disabled",
        }
        folder = box.home / ".config" / "opencode"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "opencode.json").write_text(json.dumps(settings, indent=2))
        self.env = {"OPENCODE_DISABLE_MODELS_FETCH": "1"}

    def turn(self, prompt: str, resume: bool = False) -> Any:
        """One ``opencode run``, the prompt typed on its stdin (as an argument it would be
        quoted: OpenCode joins its arguments, quoting those with spaces)."""
        argv = [str(OPENCODE), "run", *(["--continue"] if resume else [])]
        return self.box.run(argv, timeout=240, env=self.env, input=prompt)


def session_of(box: Sandbox) -> str:
    """``opencode:<its session id>``, the id it sends in ``x-session-id``."""
    named = [e.get("headers", {}).get("x-session-id") for e in box.server.log.entries]
    return "opencode:" + next((n for n in named if n), "?")


def opencode_proxy(checks: Checks) -> Sandbox:
    server = fakes.Chat(server_log("opencode-proxy"), counted=True).start()
    box = Sandbox("opencode-proxy", server, capture=False)
    proxy = Proxy(box)
    opencode = OpenCode(box, proxy)
    try:
        first = opencode.turn(MISSION)
        checks.that(
            "opencode #40: opencode run answers through vybe proxy",
            first.returncode == 0 and "reply to: Mission" in first.stdout,
            first.stdout[-800:] + first.stderr[-800:],
        )
        session = session_of(box)
        agents = {e.get("headers", {}).get("user-agent", "") for e in box.server.log.entries}
        checks.that(
            "opencode #40: its requests name it and its session (user-agent, x-session-id)",
            session != "opencode:?" and all(a.startswith("opencode/") for a in agents),
            (session, agents),
        )
        before = len(posts(box.server))
        for words in FILLER:
            done = opencode.turn(words, resume=True)
        answered_by_checkpoint(
            checks,
            "opencode #40: its compaction is answered by vybe's checkpoint turn upstream, its"
            " summarization agent's request never sent as it came",
            box,
            before,
            SUMMARIZER,
        )
        later = posts(box.server)[before:]
        checks.that(
            "opencode #40: after its compaction it goes on (its synthetic continue turn)",
            done.returncode == 0 and f"reply to: {CONTINUE}" in done.stdout,
            done.stdout[-800:] + done.stderr[-800:],
        )
        after = [b for b in later if ASKED in json.dumps(b) and not fakes.is_checkpoint_turn(b)]
        kept = mission_kept(
            checks,
            "opencode #40: after its compaction the next request carries the Mission and the"
            " constraint byte for byte, from vybe's checkpoint",
            after[0] if after else None,
        )
        checks.that(
            "opencode #40: the summary it keeps names its session and where it is searched",
            f"vybe checkpoint of session {session}" in kept and f"--session-id {session}" in kept,
            kept[-800:],
        )
        last = opencode.turn(QUESTION, resume=True)
        checks.that(
            "opencode #40: the session goes on after the compaction, under its own name",
            last.returncode == 0 and f"reply to: {QUESTION}" in last.stdout,
            last.stdout[-800:] + last.stderr[-800:],
        )
        asked = [b for b in posts(box.server) if QUESTION in json.dumps(b)]
        mission_kept(
            checks,
            "opencode #40: the question that needs the constraint goes upstream with it, byte"
            " for byte",
            asked[-1] if asked else None,
        )
        checks.that(
            "opencode #40: every turn streams through the proxy (stream: true, pieces)",
            all(b.get("stream") for b in posts(box.server)),
            [b.get("stream") for b in posts(box.server)],
        )
        recorded_checks(checks, box, session)
    finally:
        code, out, _ = proxy.stop()
    checks.that("opencode #40: vybe proxy stops on SIGTERM with its envelope", code == 0, out)
    return box


def recorded_checks(checks: Checks, box: Sandbox, session: str) -> None:
    one_session(checks, "opencode", box, session, [MISSION, *FILLER, QUESTION])
    harness, replies = harness_and_replies(box, session)
    checks.that(
        "opencode #40: its own messages around a compaction are harness input, its title"
        " request is not recorded",
        any(CONTINUE in t for t in harness)
        and not any(TITLER in t for t in harness)
        and sum(r.startswith("reply to: Mission") for r in replies) == 1,
        ([t[:80] for t in harness], [r[:60] for r in replies]),
    )
    checks.that(
        "opencode #40: each streamed reply is recorded whole from its pieces",
        any(r.rstrip().endswith("word399") and "word0 " in r for r in replies)
        and f"reply to: {QUESTION}" in replies[-1],
        [r[:40] for r in replies],
    )
    attempts = box.query("SELECT outcome FROM checkpoint_attempts WHERE session_id = ?", session)
    checks.that(
        "opencode #40: each compaction is an accepted checkpoint in the record",
        bool(attempts) and all(a["outcome"] == "accepted" for a in attempts),
        [dict(a) for a in attempts],
    )
