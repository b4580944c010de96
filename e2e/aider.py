"""The e2e scenarios of Aider through ``vybe proxy`` (issue #40): the real Aider (pinned in
e2e/python-clients.txt, in ``.cache/e2e/aider-venv``) types its turns on stdin against the
fake Chat Completions server, through the proxy.

A session states a Mission and a constraint first, then filler turns with long replies;
Aider started again on the same project restores that history and its weak model summarises
it (the history is above ``--max-chat-history-tokens``), then the person asks for the
Mission. The checks: the session is recorded as ``aider:<id>``, every typed prompt once and
none of Aider's scaffolding as the person's words; its summary request is answered by vybe's
checkpoint, and the next request carries the Mission and the constraint byte for byte; Aider
goes on working. In rewrite mode (``--checkpoints``) vybe keeps the session inside a small
window with its own checkpoints.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from checks import Checks
from proxied import MISSION, Proxy, posts, server_log, typed
from sandbox import CACHE, FAKE_KEY, Sandbox

import fakes

AIDER = CACHE / "aider-venv" / "bin" / "aider"
FILLER = tuple(
    f"{w} [[long: 400]]" for w in ("read the lexer", "list the tokens", "check the errors")
)
QUESTION = "what is the mission?"
RESUMED = "go on with the parser"
WINDOW = 20_000  # tokens: rewrite mode checkpoints a few long turns in
SUMMARIZE = "*Briefly* summarize this partial conversation about programming."
SUMMARY = "I spoke to you previously about a number of things.\n"
FLAGS = (
    "--model",
    "openai/gpt-fake",
    "--no-check-update",
    "--analytics-disable",
    "--yes-always",
    "--no-auto-commits",
    "--no-show-model-warnings",
    "--no-pretty",
    "--no-fancy-input",
    "--max-chat-history-tokens",
    "1024",
)


class Aider:
    """The real Aider in the sandbox's project, its prompts typed on stdin, through ``proxy``."""

    def __init__(self, box: Sandbox, proxy: Proxy) -> None:
        self.box = box
        (box.project / "hello.py").write_text("def hello():\n    print('hello')\n")
        box.git("add", ".")
        box.git("commit", "-qm", "init")
        self.env = {
            "OPENAI_API_BASE": proxy.url + "/v1",
            "OPENAI_API_KEY": FAKE_KEY,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # no fetch of litellm's price list
        }

    def session(self, prompts: list[str], *options: str) -> Any:
        argv = [str(AIDER), *FLAGS, *options, "hello.py"]
        typed_in = "\n".join(prompts) + "\n"
        return self.box.run(argv, timeout=300, env=self.env, input=typed_in)


def session_of(first: str) -> str:
    return "aider:" + hashlib.sha256(first.strip().encode()).hexdigest()[:24]


def main_requests(box: Sandbox) -> list[dict[str, Any]]:
    """Aider's requests that reached the model: neither vybe's checkpoint turns nor a summary
    request."""
    return [
        b
        for b in posts(box.server)
        if not fakes.is_checkpoint_turn(b) and SUMMARIZE not in json.dumps(b)
    ]


def recorded_checks(checks: Checks, box: Sandbox, session: str, words: list[str]) -> None:
    checks.that(
        "aider #40: the record holds every typed prompt exactly once under aider:<id>, none of"
        " its scaffolding as the person's words",
        typed(box, session) == words,
        typed(box, session),
    )
    labels = [json.loads(r["content_json"]).get("label", "") for r in box.messages(session)]
    harness = [r["content_text"] for r in box.messages(session) if r["type"] == "harness"]
    checks.that(
        "aider #40: its worked examples, repository map and file listing are harness input,"
        " each recorded once",
        sum("Change the greeting" in t for t in harness) == 1
        and sum("aider repository map" in t for t in harness) == 1,
        (labels, [t[:80] for t in harness]),
    )
    checks.that(
        "aider #40: no session of its requests is named proxy:<hash>",
        not box.query("SELECT 1 FROM messages WHERE session_id LIKE 'proxy:%'"),
    )


def aider_proxy(checks: Checks) -> Sandbox:
    box = Sandbox("aider-proxy", fakes.Chat(server_log("aider-proxy")).start(), capture=False)
    proxy = Proxy(box)
    aider = Aider(box, proxy)
    session = session_of(MISSION)
    try:
        first = aider.session([MISSION, *FILLER])
        checks.that(
            "aider #40: aider answers through vybe proxy",
            first.returncode == 0 and "reply to: Mission" in first.stdout,
            first.stdout[-800:] + first.stderr[-800:],
        )
        before = len(posts(box.server))
        again = aider.session([QUESTION], "--restore-chat-history")
        checks.that(
            "aider #40: aider started again goes on working after its summary of older history",
            again.returncode == 0 and f"reply to: {QUESTION}" in again.stdout,
            again.stdout[-800:] + again.stderr[-800:],
        )
        later = posts(box.server)[before:]
        checks.that(
            "aider #40: its weak model's summary request is answered by vybe's checkpoint turn"
            " upstream, never sent as it came",
            any(fakes.is_checkpoint_turn(b) for b in later)
            and not any(SUMMARIZE in json.dumps(b) for b in posts(box.server)),
            len(later),
        )
        asked = [b for b in main_requests(box) if QUESTION in json.dumps(b)]
        kept = "\n".join(fakes.strings_of(asked[0])) if asked else ""
        checks.that(
            "aider #40: after its summary the next request carries the Mission and the"
            " constraint byte for byte, from vybe's checkpoint",
            SUMMARY in kept and f"- {MISSION}" in kept and f"\n{MISSION}\n</user-message>" in kept,
            kept[:1500],
        )
        checks.that(
            "aider #40: the summary it keeps names its session and where it is searched",
            f"vybe checkpoint of session {session}" in kept and f"--session-id {session}" in kept,
            kept[-800:],
        )
        recorded_checks(checks, box, session, [MISSION, *FILLER, QUESTION])
        attempts = box.query(
            "SELECT outcome FROM checkpoint_attempts WHERE session_id = ?", session
        )
        checks.that(
            "aider #40: each summary is an accepted checkpoint in the record",
            bool(attempts) and all(a["outcome"] == "accepted" for a in attempts),
            [dict(a) for a in attempts],
        )
    finally:
        code, out, _ = proxy.stop()
    checks.that("aider #40: vybe proxy stops on SIGTERM with its envelope", code == 0, out)
    return box


def aider_checkpoints(checks: Checks) -> Sandbox:
    """Rewrite mode: vybe keeps Aider's session inside a small window with its checkpoints."""
    server = fakes.Chat(server_log("aider-checkpoints")).start()
    box = Sandbox("aider-checkpoints", server, capture=False)
    proxy = Proxy(box, "--checkpoints", "--window", str(WINDOW))
    aider = Aider(box, proxy)
    session = session_of(MISSION)
    steps = ("port the lexer", "port the parser", "test it", "bench it", "tidy", "ship", "redo")
    more = [f"{w} [[long: 1500]]" for w in steps]
    try:
        done = aider.session([MISSION, *more, QUESTION])
        checks.that(
            "aider #40: aider goes on working through vybe proxy --checkpoints",
            done.returncode == 0 and f"reply to: {QUESTION}" in done.stdout,
            done.stdout[-800:] + done.stderr[-800:],
        )
        checks.that(
            "aider #40: in rewrite mode vybe's own checkpoint turn went upstream",
            any(fakes.is_checkpoint_turn(b) for b in posts(box.server)),
        )
        asked = [b for b in main_requests(box) if QUESTION in json.dumps(b)]
        sent = "\n".join(fakes.strings_of(asked[-1])) if asked else ""
        checks.that(
            "aider #40: the request for the last turn carries the Mission and the constraint"
            " byte for byte, from vybe's checkpoint, and not the history it replaced",
            f"- {MISSION}" in sent
            and f"\n{MISSION}\n</user-message>" in sent
            and sent.count("word399") < len(more),
            sent[:1500],
        )
        estimates = [
            json.loads(r["content_json"]).get("request", {}).get("tokens", 0)
            for r in box.messages(session)
            if r["type"] == "assistant"
        ]
        checks.that(
            "aider #40: every rewritten request stays inside the window (the engine's count)",
            bool(estimates) and all(0 < e < WINDOW for e in estimates),
            estimates,
        )
        again = aider.session([RESUMED], "--restore-chat-history")
        checks.that(
            "aider #40: in rewrite mode its weak model's summary request is answered by a"
            " checkpoint, never sent upstream, and Aider goes on",
            again.returncode == 0
            and f"reply to: {RESUMED}" in again.stdout
            and not any(SUMMARIZE in json.dumps(b) for b in posts(box.server)),
            again.stdout[-800:] + again.stderr[-800:],
        )
        recorded_checks(checks, box, session, [MISSION, *more, QUESTION, RESUMED])
    finally:
        code, out, _ = proxy.stop()
    checks.that("aider #40: vybe proxy --checkpoints stops on SIGTERM", code == 0, out)
    return box
