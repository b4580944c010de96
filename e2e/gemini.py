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
from proxied import FILLER, MISSION, Proxy, posts, server_log, typed
from sandbox import BIN, FAKE_KEY, Sandbox

import fakes

QUESTION = "what is the mission?"
COMPRESSOR = "distilling chat history into a structured XML <state_snapshot>"


class GeminiCli:
    """The real Gemini CLI, headless, its key chosen in its settings, its requests sent to
    ``upstream`` (vybe proxy, or the fake server itself)."""

    def __init__(self, box: Sandbox, upstream: Any) -> None:
        self.box = box
        settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
        (box.home / ".gemini").mkdir(parents=True, exist_ok=True)
        (box.home / ".gemini" / "settings.json").write_text(json.dumps(settings))
        self.env = {
            "GEMINI_API_KEY": FAKE_KEY,
            "GOOGLE_GEMINI_BASE_URL": upstream.url,
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
        checks.that(
            "gemini #40: the record holds every typed prompt exactly once under gemini:<id>",
            typed(box, session) == [MISSION, *FILLER, QUESTION],
            (typed(box, session), box.query("SELECT DISTINCT session_id FROM messages")),
        )
        rows = box.messages(session)
        harness = [r["content_text"] for r in rows if r["type"] == "harness"]
        replies = [r["content_text"] for r in rows if r["type"] == "assistant"]
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
        checks.that(
            "gemini #40: no other session is made of its requests",
            [r["session_id"] for r in box.query("SELECT DISTINCT session_id FROM messages")]
            == [session],
            box.query("SELECT DISTINCT session_id FROM messages"),
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
        later = posts(box.server)[before:]
        checks.that(
            "gemini #40: its compression is answered by vybe's checkpoint turn upstream, its"
            " compressor's requests never sent as they came",
            any(fakes.is_checkpoint_turn(b) for b in later)
            and not any(COMPRESSOR in json.dumps(b) for b in posts(box.server)),
            [list(b) for b in later],
        )
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
        kept = "\n".join(fakes.strings_of(after[0])) if after else ""
        checks.that(
            "gemini #40: after its compression the next request carries the Mission and the"
            " constraint byte for byte, from vybe's checkpoint",
            f"- {MISSION}" in kept and f"\n{MISSION}\n</user-message>" in kept,
            kept[:1500],
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


WIDE = "read every module [[wide]]"  # its reply reports a long context: /compress has work
TOOLS = ("read the notes [[missing]]", "list the folder [[big]]")  # a call that fails, one not
ASK = "what was the mission again"  # typed in the TUI, where "?" opens its shortcuts
HEAD = "== VYBE (task tracker) =="  # the brief's first line (vybe.actions.brief.HEAD)


def hook_contexts(body: dict[str, Any]) -> list[str]:
    """The texts of a request's parts that carry a hook's added context."""
    return [s for s in fakes.strings_of(body) if s.startswith("<hook_context>")]


def gemini_hooks(checks: Checks) -> Sandbox:
    """vybe's hooks in Gemini CLI as `vybe setup --gemini` writes them, no proxy: headless
    turns get the brief with the first prompt and record each prompt once, a tool's result
    and the replies; an interactive ``/compress`` is followed by the person's words given
    back with the next prompt; `vybe setup --undo` gives settings.json back."""
    server = fakes.Gemini(server_log("gemini-hooks")).start()
    box = Sandbox("gemini-hooks", server)
    gemini = GeminiCli(box, server)
    settings = box.home / ".gemini" / "settings.json"
    before = settings.read_bytes()
    done = box.vybe("setup", "--gemini")
    again = box.vybe("setup", "--gemini")
    installed = json.loads(settings.read_text()).get("hooks", {})
    checks.that(
        "gemini #40: vybe setup --gemini writes its hooks into ~/.gemini/settings.json, and"
        " again changes nothing",
        done.get("success") is True
        and {"BeforeAgent", "AfterTool", "AfterAgent", "PreCompress"} <= set(installed)
        and [c["changed"] for c in again.get("data", {}).get("changes", [])] == [False],
        (done, again),
    )
    first = gemini.turn(MISSION)
    sent = posts(server)
    briefed = [t for b in sent[:3] for t in hook_contexts(b) if HEAD in t]
    session = sessions(box)
    checks.that(
        "gemini #40: the first prompt's request carries vybe's brief in a hook context beside"
        " the prompt, naming the record session gemini:<id>",
        "reply to: Mission" in str(first.get("response"))
        and bool(briefed)
        and len(session) == 1
        and f"vybe session {session[0]}" in briefed[0],
        (first, briefed[:1], session),
    )
    for words in FILLER:
        gemini.turn(words, resume=True)
    for words in TOOLS:
        gemini.turn(words, resume=True)
    name = session[0] if session else ""
    rows = box.messages(name)
    failures = [json.loads(r["metadata"] or "{}") for r in box.events("tool_failure")]
    checks.that(
        "gemini #40: a failed tool call is recorded with its error, and a tool_failure event",
        any(r["type"] == "tool" and r["source"] == "read_file" for r in rows)
        and [f.get("tool_name") for f in failures] == ["read_file"],
        ([(r["type"], r["content_text"][:60]) for r in rows], failures),
    )
    checks.that(
        "gemini #40: headless, each typed prompt is recorded once (the brief is no prompt),"
        " with its tool call's result and the final replies",
        typed(box, name) == [MISSION, *FILLER, *TOOLS]
        and any(r["type"] == "tool" and r["source"] == "list_directory" for r in rows)
        and any(
            r["type"] == "assistant" and "reply to: read the lexer" in r["content_text"]
            for r in rows
        ),
        ([(r["type"], r["content_text"][:60]) for r in rows], sessions(box)),
    )
    compressed, shown = interactive_compress(box, gemini)
    after = [b for b in posts(server)[compressed:] if "functionResponse" not in json.dumps(b)]
    given = [t for b in after for t in hook_contexts(b) if ASK in json.dumps(b)]
    checks.that(
        "gemini #40: after /compress the next prompt's request carries the person's words"
        " verbatim, given back by vybe's hook with its receipt",
        any(MISSION in t and "compaction" in t.lower() for t in given),
        (shown[-1200:], given[:1]),
    )
    receipts = box.query(
        "SELECT compactor, trigger, completed FROM compaction_receipts WHERE session_id = ?",
        name,
    )
    checks.that(
        "gemini #40: /compress is a receipt of the session (manual, completed by the prompt"
        " after it), and every typed prompt of both runs is recorded once",
        [tuple(r) for r in receipts] == [("gemini", "manual", 1)]
        and typed(box, name) == [MISSION, *FILLER, *TOOLS, WIDE, ASK],
        ([tuple(r) for r in receipts], typed(box, name)),
    )
    undone = box.vybe("setup", "--undo")
    checks.that(
        "gemini #40: vybe setup --undo gives settings.json back byte for byte",
        undone.get("success") is True and settings.read_bytes() == before,
        undone,
    )
    return box


def gemini_hooks_proxy(checks: Checks) -> Sandbox:
    """vybe's hooks and vybe proxy together: one record session, the hooks' name, every
    prompt once; Gemini CLI's automatic compression answered by vybe's checkpoint, which
    names that session too."""
    box = Sandbox("gemini-hooks-proxy", fakes.Gemini(server_log("gemini-hooks-proxy")).start())
    proxy = Proxy(box)
    gemini = GeminiCli(box, proxy)
    box.vybe("setup", "--gemini")
    try:
        gemini.turn(MISSION)
        for words in FILLER:
            gemini.turn(words, resume=True)
        before = len(posts(box.server))
        big = gemini.turn("list the folder [[big]]", resume=True)
        last = gemini.turn(QUESTION, resume=True)
    finally:
        code, out, _ = proxy.stop()
    found = sessions(box)
    name = found[0] if found else ""
    checks.that(
        "gemini #40: with hooks and proxy, one record session under the hooks' name holds"
        " every typed prompt once",
        len(found) == 1
        and len(name) == len("gemini:") + 36
        and typed(box, name) == [MISSION, *FILLER, "list the folder [[big]]", QUESTION],
        (found, typed(box, name)),
    )
    later = posts(box.server)[before:]
    kept = [t for b in later for t in fakes.strings_of(b) if "vybe checkpoint of session" in t]
    checks.that(
        "gemini #40: its compression is answered by vybe's checkpoint of that session, and the"
        " client goes on",
        any(fakes.is_checkpoint_turn(b) for b in later)
        and any(f"vybe checkpoint of session {name}" in t for t in kept)
        and "done: the folder is listed" in str(big.get("response"))
        and f"reply to: {QUESTION}" in str(last.get("response")),
        (kept[:1], big.get("response"), last.get("response")),
    )
    checks.that("gemini #40: vybe proxy stops on SIGTERM beside the hooks", code == 0, out)
    return box


def sessions(box: Sandbox) -> list[str]:
    found = box.query("SELECT DISTINCT session_id FROM messages ORDER BY session_id")
    return [r["session_id"] for r in found]


def typed_in(tui: Any, text: str) -> None:
    """``text`` typed into the TUI's prompt, again when it never shows: a resumed session's
    TUI drops the keys typed while it finishes its start, with its prompt already drawn."""
    from clients import wait_for

    for _ in range(6):
        tui.keys(text, literal=True)
        try:
            return wait_for(lambda: text in tui.screen(), 5)
        except TimeoutError:
            continue
    raise TimeoutError(f"{text!r} never showed in the prompt: {tui.screen()}")


def interactive_compress(box: Sandbox, gemini: GeminiCli) -> tuple[int, str]:
    """The session resumed in Gemini CLI's TUI: a prompt whose reply reports a long context,
    ``/compress``, then ASK; where the requests after ``/compress`` start, and the screen."""
    import time

    from clients import Tmux, wait_for

    box.env.update(gemini.env)
    tui = Tmux(box, "gemini", [str(BIN / "gemini"), "--resume", "latest"])
    try:
        tui.wait_for("Type your message", 90)
        typed_in(tui, WIDE)
        tui.submit("reply to: read every", 90)
        typed_in(tui, "/compress")
        tui.submit("Chat history compressed", 90)
        start = len(posts(box.server))
        typed_in(tui, ASK)
        tui.keys("Enter")
        wait_for(lambda: len(posts(box.server)) > start, 90, tui.screen)
        time.sleep(5)  # the reply streamed, and AfterAgent's hook run
        shown = tui.screen()
        tui.keys("/quit", literal=True)
        tui.keys("Enter")
        time.sleep(3)
        return start, shown
    finally:
        (box.root / "tui-screen.txt").write_text(tui.screen())  # what it showed last
        tui.close()
