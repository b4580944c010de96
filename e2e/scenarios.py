"""The e2e scenarios: each builds a sandbox, drives a real CLI, and checks vybe's store and
what the fake server received. A check names the behaviour it proves."""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Callable
from typing import Any

import aider
import cross_agent
import gemini
import opencode
import plugin
import proxied
from checks import Checks
from clients import TEXT, Claude, Codex, Tmux, wait_for
from sandbox import BIN, VYBE, Sandbox

import fakes
from fakes import FIND_WORDS, bodies, said_to
from vybe.integrations.mcp.server import CORE

FAILING = "ls /nonexistent"


def install(box: Sandbox, checks: Checks, *flags: str) -> None:
    done = box.vybe("hook", "install", *flags)
    checks.that(
        f"{box.name}: vybe hook install {' '.join(flags)}".strip(), done.get("success"), done
    )


def request_texts(box: Sandbox) -> list[str]:
    """Every request body the fake server got, as JSON text."""
    return [json.dumps(e.get("body")) for e in box.server.log.entries if e["method"] == "POST"]


def types(rows: list[Any]) -> list[str]:
    return [r["type"] for r in rows]


def seqs(box: Sandbox, session: str, kind: str, text: str = "%") -> list[int]:
    """The record numbers of a session's messages of one type (whose text is LIKE ``text``)."""
    rows = box.query(
        "SELECT context_seq FROM messages WHERE session_id = ? AND type = ?"
        " AND content_text LIKE ? ORDER BY context_seq",
        session,
        kind,
        text,
    )
    return [r["context_seq"] for r in rows]


def receipts(box: Sandbox, session: str) -> list[dict[str, Any]]:
    return box.vybe("session", "receipts", session).get("data", {}).get("receipts", [])


def search_hits(output: str) -> list[tuple[int, str]]:
    """(seq, type) of each hit in a `vybe search` output a tool result carried."""
    start = output.find("{")
    try:
        found = json.loads(output[start:]) if start >= 0 else {}
    except ValueError:
        return []
    return [(h.get("seq"), h.get("type")) for h in found.get("data", {}).get("hits", [])]


def claude_headless(checks: Checks) -> Sandbox:
    box = Sandbox("claude-headless", fakes.Anthropic(server_log("claude-headless")).start())
    claude = Claude(box)
    install(box, checks)
    first = claude.turn(f"fix the login [[bash: {FAILING}]]")
    sid = first.get("session_id")
    checks.that("claude: claude -p answers through the fake server", bool(sid), first)
    second = claude.turn("now the second step", resume=sid)
    checks.that("claude: --resume continues the session", second.get("session_id") == sid, second)
    texts = request_texts(box)
    checks.that(
        "claude: the brief reaches the model at SessionStart",
        any("SessionStart hook additional context: == VYBE" in t for t in texts),
    )
    rows = box.messages(f"claude:{sid}")
    users = [r["content_text"] for r in rows if r["type"] == "user"]
    checks.that(
        "claude: every prompt is recorded verbatim",
        users == [f"fix the login [[bash: {FAILING}]]", "now the second step"],
        users,
    )
    checks.that(
        "claude #1: after each headless turn the record holds user, assistant, tool in order",
        types(rows) == ["user", "assistant", "tool", "assistant", "user", "assistant"],
        types(rows),
    )
    failures = box.events("tool_failure")
    checks.that("claude: a failed Bash call is a tool_failure event", len(failures) == 1, failures)
    ends = box.events("session_end")
    checks.that(
        "claude #1 #3: every headless run's SessionEnd is logged", len(ends) == 2, len(ends)
    )
    claude_runs_the_briefs_commands(box, claude, sid, checks)
    claude_tasks_and_compaction(box, claude, sid, checks)
    return box


def claude_runs_the_briefs_commands(box: Sandbox, claude: Claude, sid: str, checks: Checks) -> None:
    """The brief's lines run in Claude's Bash (no vybe on PATH) as claude, the agent that began
    the task over MCP; SessionStart's CLAUDE_ENV_FILE line gives a bare vybe the agent too."""
    made = box.vybe("task", "create", "--title", "Port billing", "--project-id", str(box.project))
    task = made.get("data", {}).get("task", {}).get("id", "")
    box.vybe("--agent", "claude", "task", "begin", "--id", task)  # as mcp__vybe__task_begin
    claude.turn("[[bash: echo agent=$VYBE_AGENT]]", sid)
    checks.that(
        "claude #5: CLAUDE_ENV_FILE gives later Bash calls VYBE_AGENT=claude",
        any("agent=claude" in t for t in request_texts(box)),
    )
    claude.turn("[[bash: git commit --allow-empty -qm 'agent commit']]", sid)
    box.git("commit", "--allow-empty", "-qm", "hand commit")
    claude.turn("[[brief: DONE]]", sid)
    commits_logged(box, checks, "claude", ["agent commit", "hand commit"], task)
    rows = box.query("SELECT status FROM tasks WHERE id = ?", task)
    status = rows[0]["status"] if rows else None
    checks.that(
        "claude #5: the brief's DONE line, run by Claude's Bash, closes the task it began",
        status == "completed",
        status,
    )
    made = box.vybe("task", "create", "--title", "Write the changelog")
    other = made.get("data", {}).get("task", {}).get("id", "")
    claude.turn(f"[[bash: {VYBE} task begin --id {other}]]", sid)
    rows = box.query(
        "SELECT json_extract(metadata, '$.session_id') AS session FROM events"
        " WHERE kind = 'task_started' AND task_id = ?",
        other,
    )
    checks.that(
        "claude #16: a task begun in Claude's Bash names the session it was begun in (a"
        " hand-off's span ends only at a begin of its own window)",
        [r["session"] for r in rows] == [f"claude:{sid}"],
        [dict(r) for r in rows],
    )


def commits_logged(box: Sandbox, checks: Checks, who: str, subjects: list, task: Any) -> None:
    """Each commit made in the session, by the agent's shell tool or by hand, is one
    ``commit`` event (sha, branch, subject) linked to the focus task."""
    shas = box.git("log", f"-{len(subjects)}", "--reverse", "--format=%H").split()
    rows = box.query(
        "SELECT task_id, json_extract(metadata, '$.sha') AS sha,"
        " json_extract(metadata, '$.branch') AS branch,"
        " json_extract(metadata, '$.subject') AS subject FROM events WHERE kind = 'commit'"
        " ORDER BY id"
    )
    found = [(r["task_id"], r["sha"], r["branch"], r["subject"]) for r in rows]
    checks.that(
        f"{who} #16: a commit by the agent's shell and one by hand are one commit event each",
        found == [(task, sha, "main", s) for sha, s in zip(shas, subjects, strict=False)]
        and len(shas) == len(subjects),
        found,
    )


def claude_tasks_and_compaction(box: Sandbox, claude: Claude, sid: str, checks: Checks) -> None:
    """A task of Claude's own completed (the vybe task linked to it from Claude's Bash closed,
    another session's task 1 left open); a manual /compact; `claude mcp list`."""
    link = """'{"claude_task_id": "1"}'"""
    claude.turn(f"[[bash: {VYBE} task create --title mine --metadata {link}]]", sid)
    other = '{"claude_task_id": "1", "claude_session_id": "another-session"}'
    box.vybe("task", "create", "--title", "theirs", "--metadata", other)
    claude.turn("[[task: write the tests]]", sid)
    completed = [p for p in box.payloads() if p.get("hook_event_name") == "TaskCompleted"]
    checks.that("claude: TaskUpdate to completed fires TaskCompleted", len(completed) == 1)
    status = {r["title"]: r["status"] for r in box.query("SELECT title, status FROM tasks")}
    checks.that(
        "claude #4: Claude's task 1 closes the vybe task linked to it in its session only",
        status.get("mine") == "completed" and status.get("theirs") == "pending",
        status,
    )
    last = json.dumps(box.server.log.entries[-1]["body"])
    briefs = last.count("== VYBE (task tracker) ==")
    checks.that(
        "claude #14: after 5 --resume runs the thread holds one full brief and the deltas",
        briefs == 1 and last.count("== VYBE (resumed") >= 4,
        (briefs, last.count("== VYBE (resumed")),
    )
    claude.turn("/compact", sid)
    events = [p.get("hook_event_name") for p in box.payloads()]
    checks.that("claude: /compact runs PreCompact", "PreCompact" in events, events)
    claude_receipt_and_search(box, claude, f"claude:{sid}", checks)
    ends = len(box.events("session_end"))
    box.run([str(BIN / "claude"), "mcp", "list"])
    fired = [p for p in box.payloads() if p.get("hook_event_name") == "SessionEnd"]
    checks.that(
        "claude #6: `claude mcp list` fires SessionEnd, and vybe logs no session for it",
        len(fired) > ends and len(box.events("session_end")) == ends,
        (len(fired), ends, len(box.events("session_end"))),
    )
    claude_mcp_task(box, claude, sid, checks)


def claude_receipt_and_search(box: Sandbox, claude: Claude, session: str, checks: Checks) -> None:
    """/compact leaves a receipt; the next request holds its line and the search command,
    which the model runs in its Bash to find a tool output the compaction let go."""
    users = seqs(box, session, "user")
    found = [
        (r["compactor"], r["trigger"], r["outcome"], r["verbatim"]) for r in receipts(box, session)
    ]
    checks.that(
        "claude #16: /compact leaves one receipt (claude, manual) listing the person's messages"
        " given back verbatim by record number",
        found == [("claude", "manual", "completed", users)] and len(users) >= 5,
        (found, users),
    )
    before = len(said_to(box.server))
    claude.turn("[[search: agent=claude]]", session.removeprefix("claude:"))
    tokens = [(r["tokens_before"], r["tokens_after"]) for r in receipts(box, session)]
    checks.that(
        "claude #16: by the next turn the receipt holds the tokens before and after, as"
        " Claude's compact boundary (flushed after the compaction's hooks) counts them",
        len(tokens) == 1 and all(isinstance(n, int) and n > 0 for n in tokens[0]),
        tokens,
    )
    claude_summary_beside_receipt(box, session, checks)
    after = said_to(box.server)[before:]
    line = f"1st compaction of this session; your {len(users)} kept instructions were restored"
    checks.that(
        "claude #16: the model's first request after /compact holds the receipt line and this"
        " session's search command",
        bool(after) and line in after[0] and f"search '<words>' --session-id {session}" in after[0],
        after[:1],
    )
    early = seqs(box, session, "tool", "agent=claude")
    results = [
        "\n".join(fakes.strings_of(block.get("content")))
        for body in bodies(box.server)[before:]
        for block in fakes.blocks((body.get("messages") or [{}])[-1].get("content"))
        if block.get("type") == "tool_result"
    ]
    hits = search_hits(results[-1]) if results else []
    checks.that(
        "claude #16: the search the model runs in its Bash returns, in the tool result, the"
        " early tool output the compaction let go",
        bool(early) and (early[0], "tool") in hits,
        (early, hits, results[-1:]),
    )


def claude_summary_beside_receipt(box: Sandbox, session: str, checks: Checks) -> None:
    """Claude Code's own summary (its transcript's isCompactSummary line), brought in by the
    hooks' import, is the client's summary `vybe ui` shows beside the receipt (#38)."""
    from vybe.actions import viewer
    from vybe.store import open_store

    kept = box.query(
        "SELECT content_text FROM messages WHERE session_id = ? AND type = 'harness'"
        " AND source LIKE '[Harness: compaction claude %'",
        session,
    )
    store = open_store(str(box.db))
    try:
        shown = [r["summary"] for r in viewer.session(store, session, 0)["receipts"]]
    finally:
        store.close()
    checks.that(
        "claude #38: its own compaction summary is in the record, shown beside the receipt",
        len(kept) == 1 and shown == [kept[0]["content_text"].partition("\n")[2]] and shown[0],
        (len(kept), shown),
    )


def claude_mcp_task(box: Sandbox, claude: Claude, sid: str, checks: Checks) -> None:
    """vybe's MCP server added as docs/integrations.md says; a task made over it."""
    add = [str(BIN / "claude"), "mcp", "add", "--transport", "stdio", "vybe", "--"]
    box.run([*add, VYBE, "mcp", "--agent", "claude"])
    # Claude Code does not wait for MCP servers: a call made before vybe listed its tools
    # is refused ("still connecting. Call WaitForMcpServers"); the fake model then waits.
    claude.turn('[[mcp: task_create {"title": "made over mcp"}]]', sid)
    rows = box.query("SELECT project_id FROM tasks WHERE title = 'made over mcp'")
    checks.that(
        "claude #6: a task made over MCP is in the project of Claude's folder",
        [r["project_id"] for r in rows] == [str(box.project)],
        [dict(r) for r in rows],
    )
    claude_finds_vybes_tool(box, claude, checks)


NO_SCHEMA = "input schema was not in your prompt"  # Claude Code's note on such a call's result


def claude_finds_vybes_tool(box: Sandbox, claude: Claude, checks: Checks) -> None:
    """#28: where Claude Code defers vybe's tools behind its ToolSearch (2.1.332), the model
    finds task_create by what an agent would type, loads its schema, and calls it with the
    schema loaded; where the tool is loaded from the start (2.1.197), it calls it directly.
    A new session: in the one above, an earlier search already loaded task_create."""
    before = len(bodies(box.server))
    claude.turn(f'[[find: {FIND_WORDS} -> task_create {{"title": "found by search"}}]]')
    sent = bodies(box.server)[before:]
    deferred = any(fakes.unloaded_tools(body) for body in sent)  # this Claude Code defers tools
    last = fakes.dicts_of(sent[-1].get("messages")) if sent else []
    calls = {d.get("id"): d for d in last if d.get("type") == "tool_use"}
    searched = [c["input"].get("query") for c in calls.values() if c.get("name") == "ToolSearch"]
    found = {i for i, c in calls.items() if c["input"].get("title") == "found by search"}
    results = [
        "\n".join(fakes.strings_of(d.get("content")))
        for d in last
        if d.get("type") == "tool_result" and d.get("tool_use_id") in found
    ]
    made = box.query("SELECT project_id FROM tasks WHERE title = 'found by search'")
    checks.that(
        "claude #28: vybe's task_create, deferred behind ToolSearch where Claude Code defers MCP"
        " tools, is found by the words an agent types, its schema loaded, and called with it:"
        " the task is made and the result has no 'schema was not in your prompt' note",
        [r["project_id"] for r in made] == [str(box.project)]
        and len(results) == 1
        and NO_SCHEMA not in results[0]
        and (FIND_WORDS in searched) == deferred,
        (deferred, searched, results, [dict(r) for r in made]),
    )


def codex_headless(checks: Checks) -> Sandbox:
    box = Sandbox("codex-headless", fakes.OpenAI(server_log("codex-headless")).start())
    codex = Codex(box)
    install(box, checks, "--codex")
    first = codex.turn(f"fix the login [[bash: {FAILING}]]")
    thread = first["thread_id"]
    checks.that("codex: codex exec answers through the fake server", first["exit"] == 0, first)
    second = codex.turn("now the second step", resume=thread)
    checks.that("codex: exec resume continues the thread", second["thread_id"] == thread, second)
    texts = request_texts(box)
    checks.that("codex: the brief reaches the model", any("== VYBE" in t for t in texts))
    rows = box.messages(f"codex:{thread}")
    users = [r["content_text"] for r in rows if r["type"] == "user"]
    checks.that(
        "codex: every prompt is recorded verbatim",
        users == [f"fix the login [[bash: {FAILING}]]", "now the second step"],
        users,
    )
    failures = box.events("tool_failure")
    checks.that("codex #9: a failed command is a tool_failure event", len(failures) == 1, failures)
    rollout = codex.rollout(thread) or ""
    done = box.vybe("session", "import", "--codex", rollout, "--session", "by-hand")
    words = done.get("data", {}).get("imported", {}).get("user")
    checks.that(
        "codex #10: session import of a 0.171 rollout gives its 2 prompts", words == 2, done
    )
    # workspace-write keeps .git read-only: a commit needs the sandbox off (or approval)
    commit = "[[bash: git commit --allow-empty -qm 'agent commit']]"
    codex.turn(commit, thread, True, "-c", 'sandbox_mode="danger-full-access"')
    box.git("commit", "--allow-empty", "-qm", "hand commit")
    codex.turn("and the third step", resume=thread)
    commits_logged(box, checks, "codex", ["agent commit", "hand commit"], None)
    last = box.server.log.entries[-1]["body"]
    briefs = json.dumps(last.get("input")).count("== VYBE (task tracker) ==")
    checks.that(
        "codex #14: a resumed thread holds one full brief, and the resume's delta",
        briefs == 1 and "== VYBE (resumed" in json.dumps(last.get("input")),
        briefs,
    )
    return box


def codex_compact(checks: Checks) -> Sandbox:
    """Reported usage above a small model_auto_compact_token_limit: Codex compacts."""
    server = fakes.OpenAI(server_log("codex-compact"), usage_tokens=60_000).start()
    box = Sandbox("codex-compact", server)
    codex = Codex(box, compact_limit=50_000)
    install(box, checks, "--codex")
    first = codex.turn("keep every test green [[bash: echo ok]]")
    thread = first["thread_id"]
    codex.turn("the second step", resume=thread)
    events = [p.get("hook_event_name") for p in box.payloads()]
    checks.that("codex: a small auto-compact limit runs PreCompact", "PreCompact" in events, events)
    sources = [
        p.get("source") for p in box.payloads() if p.get("hook_event_name") == "SessionStart"
    ]
    checks.that("codex: compaction runs SessionStart(compact)", "compact" in sources, sources)
    rows = box.messages(f"codex:{thread}")
    summary = "The session so far, summarised."
    harness = [r for r in rows if r["type"] == "harness" and summary in r["content_text"]]
    replies = [r for r in rows if r["type"] == "assistant" and summary in r["content_text"]]
    checks.that(
        "codex #11: the compaction summary is recorded as the harness's, not a reply",
        bool(harness) and not replies,
        types(rows),
    )
    codex_receipts_and_search(box, codex, thread, sources.count("compact"), checks)
    return box


def codex_receipts_and_search(
    box: Sandbox, codex: Codex, thread: str, compactions: int, checks: Checks
) -> None:
    """Each auto compaction leaves a receipt; the context after it holds the receipt line and
    the search command, which the model runs (under Codex's own sandbox) to find the tool
    output the first compaction let go."""
    session = f"codex:{thread}"
    first = seqs(box, session, "user")[:1]
    found = [(r["compactor"], r["trigger"], r["outcome"]) for r in receipts(box, session)]
    given = [(r["kept"], r["verbatim"]) for r in receipts(box, session)]
    tokens = [(r["tokens_before"], r["tokens_after"]) for r in receipts(box, session)]
    checks.that(
        "codex #16: each receipt holds the tokens before and after, as Codex's token counts"
        " around its compaction say",
        bool(tokens) and all(isinstance(n, int) and n > 0 for pair in tokens for n in pair),
        tokens,
    )
    checks.that(
        "codex #16: each auto compaction leaves a receipt (codex, auto) naming by record number"
        " the person's first message, which Codex kept in its own context, as kept and not"
        " given back a second time",
        found == [("codex", "auto", "completed")] * compactions
        and compactions >= 1
        and all(first and first[0] in kept and first[0] not in v for kept, v in given),
        (found, given, first, compactions),
    )
    texts = [t for t in said_to(box.server) if "compaction of this session" in t]
    line = "1st compaction of this session; 1 message stayed in Codex's own context"
    checks.that(
        "codex #16: the model's first request after a compaction holds the receipt line and"
        " this session's search command",
        bool(texts) and line in texts[0] and f"search '<words>' --session-id {session}" in texts[0],
        texts[:1],
    )
    early = seqs(box, session, "tool", "%Process exited with code 0%")
    before = len(bodies(box.server))
    codex.turn("[[search: Process exited with code 0]]", resume=thread)
    outputs = [
        fakes.strings_of(item.get("output"))
        for body in bodies(box.server)[before:]
        for item in body.get("input") or []
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    hits = search_hits("\n".join(outputs[-1])) if outputs else []
    checks.that(
        "codex #16: the search the model runs through exec_command returns, in the output it"
        " gets, the early tool output the compaction let go",
        bool(early) and (early[0], "tool") in hits,
        (early, hits, outputs[-1:]),
    )
    asked = seqs(box, session, "user", "[[search:%")
    checks.that(
        "codex #16: under Codex's workspace-write sandbox (the store read-only) the search sees"
        " what the hooks wrote moments before: the prompt that asked for it",
        bool(asked) and (asked[-1], "user") in hits,
        (asked, hits),
    )


GOAL = "Port the billing service to Go; never touch payments/, it is frozen."
BACK = "Pick up the billing port; keep ledger.py as the fallback until Friday."


def section(text: str, sender: str) -> str:
    """The hand-off section of a brief, from its heading to the blank line after it."""
    start = text.find(f"=== Handed over by {sender} ")
    if start < 0:
        return ""
    end = text.find("\n\n", start)
    return text[start : end if end >= 0 else len(text)]


def user_words_of(part: str) -> str:
    start = part.find("The user's own words (verbatim")
    return part[start : part.find("--- end of the user's words")] if start >= 0 else ""


def handoff(checks: Checks) -> Sandbox:
    """#16: a task a real Claude Code session worked on, handed to a real Codex session in
    the same project and store by Claude's Bash, then back to Claude Code as codex (by hand,
    naming Codex's session: Codex's shell running vybe is proven in codex-setup): each
    receiver's first request holds the sender's hand-off, the person's words verbatim and
    the rest labelled as the sender's."""
    anthropic = fakes.Anthropic(server_log("handoff-claude")).start()
    openai = fakes.OpenAI(server_log("handoff-codex")).start()
    box = Sandbox("handoff", anthropic)
    claude, codex = Claude(box), Codex(box, server=openai)
    install(box, checks, "--claude", "--codex")
    box.vybe("project", "create", "--id", str(box.project), "--name", "project")
    made = box.vybe(
        "--agent", "claude", "task", "create", "--title", "Port billing to Go",
        "--project-id", str(box.project),
    )  # fmt: skip
    task = made.get("data", {}).get("task", {}).get("id", "")
    box.vybe("--agent", "claude", "task", "begin", "--id", task)
    worked = f"{GOAL} [[bash: ls src/billing/ledger.go]]"
    sid = claude.turn(worked).get("session_id")
    assign = f"{VYBE} --agent claude task assign --task-id {task}"
    hand = f"hand it to codex [[bash: {assign} --to codex]]"
    claude.turn(hand, sid)
    rows = box.query("SELECT from_agent, to_agent, session_id FROM handoff_context")
    checks.that(
        "handoff #16: `vybe task assign --to codex` run by Claude's Bash records claude's"
        " session as the hand-off's context",
        [tuple(r) for r in rows] == [("claude", "codex", f"claude:{sid}")],
        [dict(r) for r in rows],
    )
    picked = codex.turn(BACK)
    received = said_to(openai)[:1]
    codex_receives(checks, section(received[0], "claude") if received else "", sid, [worked, hand])
    # by hand from a terminal, which names no session: the one Codex worked in is given
    box.vybe(
        "--agent", "codex", "task", "assign", "--task-id", task, "--to", "claude",
        "--session-id", f"codex:{picked['thread_id']}",
    )  # fmt: skip
    before = len(bodies(anthropic))
    claude.turn("what is left on billing?")
    first = said_to(anthropic)[before : before + 1]
    part = section(first[0], "codex") if first else ""
    words = user_words_of(part)
    checks.that(
        "handoff #16: handed back as codex, the next Claude Code session's first request"
        " holds codex's context: its session, the person's words to Codex verbatim, its last"
        " reply as its own",
        f"(from its session codex:{picked['thread_id']})" in part
        and f"\n{BACK}\n" in words
        and GOAL not in part
        and f"codex's last reply (its words, not the user's):\n| reply to: {BACK[:60]}" in part
        and "=== Handed over by claude" not in (first or [""])[0],
        first,
    )
    return box


def codex_receives(checks: Checks, part: str, sid: str, said: list[str]) -> None:
    """What Codex's model got of claude's hand-off (``part``: its section)."""
    words = user_words_of(part)
    checks.that(
        "handoff #16: the Codex session's first request holds claude's hand-off, labelled as"
        " claude's, with the person's words to Claude verbatim and apart",
        f"=== Handed over by claude (from its session claude:{sid}) ===" in part
        and "comes from claude's record, not from you" in part
        and all(f"\n{text}\n" in words for text in said)
        and "claude's last reply" not in words,
        part or "no hand-off section",
    )
    state = part[part.find("--- end of the user's words") :]
    refs = part[part.find("Exact references found there: ") :].split("\n")[0]
    checks.that(
        "handoff #16: ... and claude's last working state (its reply, the tool failure it hit)"
        " and the exact references (the path it failed on, the folder the person froze)",
        "claude's last reply (its words, not the user's):\n| done: " in state
        and "A tool failure claude hit:" in state
        and "src/billing/ledger.go" in state
        and "src/billing/ledger.go" in refs
        and "payments/" in refs,
        part,
    )


def claude_plan(checks: Checks) -> Sandbox:
    """An interactive session in plan mode (tmux): the plan approved becomes the project's
    tasks, in order, and the next session's brief shows them."""
    box = Sandbox("claude-plan", fakes.Anthropic(server_log("claude-plan")).start())
    claude = Claude(box)
    offers_status_line(box, checks)
    claude.onboarded()
    tui = Tmux(box, "plan", [str(BIN / "claude"), "--permission-mode", "plan"])
    try:
        tui.wait_for("plan mode on")
        tui.keys("[[plan: write the schema; port the data; switch reads]]", literal=True)
        # The fake model writes the plan file the request names, then calls ExitPlanMode.
        tui.submit("Would you like to proceed?")
        tui.keys("Down", "Enter")  # 2. Yes, manually approve edits (1. would be auto mode)
        tui.wait_for("approved")
        wait_for(lambda: len(box.query("SELECT 1 FROM tasks")) >= 3, 10)
        status_line_shown(box, tui, checks)
    finally:
        tui.close()
    rows = box.query(
        "SELECT t.title, t.project_id, d.depends_on_task_id AS after FROM tasks t"
        " LEFT JOIN task_dependencies d ON d.task_id = t.id ORDER BY t.created_at, t.id"
    )
    ids = [r["title"] for r in rows]
    chained = [r["after"] is not None for r in rows] == [False, True, True]
    checks.that(
        "claude #17: the approved plan's steps are the project's tasks, in order, chained",
        ids == ["write the schema", "port the data", "switch reads"]
        and chained
        and {r["project_id"] for r in rows} == {str(box.project)},
        [dict(r) for r in rows],
    )
    claude.turn("what next?")
    system = [t for t in request_texts(box) if "== VYBE (task tracker) ==" in t][-1:]
    checks.that(
        "claude #17: the next session's brief shows the plan's tasks",
        bool(system)
        and "3 task(s) awaiting action" in system[0]
        and "write the schema" in system[0],
    )
    return box


def offers_status_line(box: Sandbox, checks: Checks) -> None:
    """`vybe hook install` in the settings file Claude Code reads: a status line the user has
    is kept; with none, `vybe statusline` is offered. The command is then wrapped to keep
    what Claude Code pipes it (``captured/statusline-*.json``), its output unchanged."""
    settings = box.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    mine = {"type": "command", "command": "echo my own status line"}
    settings.write_text(json.dumps({"statusLine": mine}))
    kept = box.vybe("hook", "install").get("data", {}).get("claude", {})
    document = json.loads(settings.read_text())
    checks.that(
        "claude #16: vybe hook install keeps the status line the user already has in"
        " ~/.claude/settings.json, and says so",
        document.get("statusLine") == mine
        and kept.get("status_line") == "kept_yours"
        and "hooks" in document,
        (kept, document.get("statusLine")),
    )
    settings.write_text(json.dumps({k: v for k, v in document.items() if k != "statusLine"}))
    install(box, checks)
    document = json.loads(settings.read_text())
    offered = {"type": "command", "command": f"{VYBE} statusline", "padding": 0}
    checks.that(
        "claude #16: with none there, vybe hook install offers `vybe statusline`",
        document.get("statusLine") == offered,
        document.get("statusLine"),
    )
    box.captured.mkdir(exist_ok=True)
    keep = f"tee {box.captured}/statusline-$(date +%s%N).json"
    document["statusLine"] = {**offered, "command": f"{keep} | {offered['command']}"}
    settings.write_text(json.dumps(document))


def status_line_shown(box: Sandbox, tui: Tmux, checks: Checks) -> None:
    """What the interactive Claude Code piped to `vybe statusline`, and the line it shows."""

    def kept() -> list[Any]:
        return sorted(box.captured.glob("statusline-*.json"))

    wait_for(lambda: bool(kept()) and "vybe · " in tui.screen(), 15, tui.screen)
    payload = json.loads(kept()[-1].read_text() or "{}")
    session = f"claude:{payload.get('session_id')}"
    typed = len(seqs(box, session, "user"))
    checks.that(
        "claude #16: the interactive Claude Code pipes the status line its session's JSON:"
        " the session_id vybe statusline reads is the session the hooks record",
        typed == 1 and isinstance(payload.get("session_id"), str),
        (typed, payload),
    )
    printed = subprocess.run(
        [VYBE, "statusline"], input=json.dumps(payload), env=box.env, **TEXT, check=False
    ).stdout.strip()
    with contextlib.suppress(TimeoutError):
        tui.wait_for(printed, 10)
    checks.that(
        "claude #16: the status line Claude Code displays is vybe's line for that session"
        " (focus, no compaction yet, the person's 1 message)",
        printed.endswith("no compaction yet · 1 of your messages in the record")
        and printed in tui.screen(),
        (printed, tui.screen()),
    )


def doctor(box: Sandbox) -> dict[str, Any]:
    report = box.vybe("doctor")
    return {c["name"]: c for c in report.get("data", {}).get("checks", [])}


def codex_setup(checks: Checks) -> Sandbox:
    """What Codex needs besides hooks.json, as doctor says it, proven true: untrusted hooks
    are skipped by `codex exec`; trusted in the TUI, they run; the brief's command fails
    under the workspace-write sandbox until the store's folder is a writable root; the MCP
    entry as docs/integrations.md writes it reaches the hooks' store."""
    box = Sandbox("codex-setup", fakes.OpenAI(server_log("codex-setup")).start())
    codex = Codex(box)
    install(box, checks, "--codex")
    found = doctor(box)
    problems = found.get("codex_setup", {}).get("detail", {}).get("problems", [])
    checks.that(
        "codex #12: doctor right after install, with no store yet, reports hooks and no trust",
        found.get("hooks_codex", {}).get("ok") is True
        and "yet" in found.get("store", {}).get("detail", "")
        and any("Trust all" in p for p in problems),
        found,
    )
    codex.turn("untrusted [[bash: echo hi]]", bypass_trust=False)
    checks.that(
        "codex #12: as doctor says, `codex exec` skips untrusted hooks (no prompt recorded)",
        not box.query("SELECT 1 FROM messages WHERE content_text LIKE 'untrusted%'"),
    )
    box.vybe("project", "create", "--id", str(box.project), "--name", "project")
    box.vybe("task", "create", "--title", "Port billing", "--project-id", str(box.project))
    codex.trust_hooks_in_the_tui()
    problems = doctor(box).get("codex_setup", {}).get("detail", {}).get("problems", [])
    checks.that(
        "codex #12: once trusted in the TUI's /hooks, doctor sees the trust",
        not any("Trust all" in p for p in problems),
        problems,
    )
    codex_sandbox_and_mcp(box, codex, checks, problems)
    return box


def codex_sandbox_and_mcp(box: Sandbox, codex: Codex, checks: Checks, problems: list) -> None:
    first = codex.turn("trusted now [[brief: LOG]]", bypass_trust=False)
    recorded = box.query("SELECT 1 FROM messages WHERE content_text LIKE 'trusted now%'")
    notes = box.query("SELECT 1 FROM events WHERE kind = 'progress'")
    checks.that(
        "codex #13: doctor names writable_roots, and the brief's LOG line cannot write the "
        "store under workspace-write",
        bool(recorded) and not notes and any("writable_roots" in p for p in problems),
        (len(recorded), len(notes), problems),
    )
    codex.configure(f'[sandbox_workspace_write]\nwritable_roots = ["{box.db.parent}"]\n')
    codex.configure(
        f'[mcp_servers.vybe]\ncommand = "{VYBE}"\nargs = ["mcp", "--agent", "codex"]\n'
        f'required = true\nenv = {{ VYBE_DB_PATH = "{box.db}" }}\n'
    )
    checks.that(
        "codex #13: with both set, doctor's codex_setup is ok",
        doctor(box).get("codex_setup", {}).get("ok") is True,
        doctor(box).get("codex_setup"),
    )
    codex.turn("[[brief: LOG]]", resume=first["thread_id"], bypass_trust=False)
    notes = box.query("SELECT 1 FROM events WHERE kind = 'progress'")
    checks.that("codex #13: with the writable root, the brief's LOG line writes", bool(notes))
    codex.turn('[[mcp: task_create {"title": "made over codex mcp"}]]', bypass_trust=False)
    rows = box.query("SELECT project_id FROM tasks WHERE title = 'made over codex mcp'")
    checks.that(
        "codex #13 #6: the MCP entry as the docs write it reaches the hooks' store, and the "
        "task is in Codex's project",
        [r["project_id"] for r in rows] == [str(box.project)],
        [dict(r) for r in rows],
    )


def tool_names(body: dict[str, Any]) -> set[str]:
    """The names of the tools a request offers the model (Anthropic's and OpenAI's shapes)."""
    return {
        str(t.get("name") or t.get("function", {}).get("name")) for t in body.get("tools") or []
    }


def setup(checks: Checks) -> Sandbox:
    """#24: `vybe setup` as the README says, then the real CLIs with what it wrote: Claude's
    hooks fire and vybe's MCP tools are in its first request; Codex, once trusted as setup
    says, records the prompt, writes the store from its sandbox and reaches it over MCP;
    doctor is clean; `vybe setup --undo` gives the files back."""
    anthropic = fakes.Anthropic(server_log("setup-claude")).start()
    openai = fakes.OpenAI(server_log("setup-codex")).start()
    box = Sandbox("setup", anthropic)
    claude, codex = Claude(box), Codex(box, server=openai)
    settings = box.home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "claude-opus-4-8"}\n')
    files = [settings, box.home / ".codex" / "config.toml"]
    before = {path: path.read_bytes() for path in files}
    done = box.vybe("setup", "--claude", "--codex")
    you_do = done.get("data", {}).get("you_do", [])
    checks.that(
        "setup #24: vybe setup writes both agents' files and ends with the trust step",
        done.get("success") is True and any("Trust all" in step for step in you_do),
        done,
    )
    claude.turn('set up [[mcp: task_create {"title": "made through setup"}]]')
    offered = tool_names(bodies(anthropic)[0]) if bodies(anthropic) else set()
    made = box.query("SELECT project_id FROM tasks WHERE title = 'made through setup'")
    core = {f"mcp__vybe__{name}" for name in CORE}  # the rest may wait behind ToolSearch
    checks.that(
        "setup #24 #28: Claude Code's hooks record the prompt, its first request offers vybe's"
        " core MCP tools (loaded even where it defers MCP tools), and a task made over MCP is"
        " in Claude's project",
        bool(box.query("SELECT 1 FROM messages WHERE content_text LIKE 'set up%'"))
        and core <= offered
        and [r["project_id"] for r in made] == [str(box.project)],
        (sorted(offered), [dict(r) for r in made]),
    )
    codex.trust_hooks_in_the_tui()
    codex.turn("from codex [[brief: LOG]]", bypass_trust=False)
    codex.turn('[[mcp: task_create {"title": "made by codex"}]]', bypass_trust=False)
    checks.that(
        "setup #24: Codex, trusted as setup says, records the prompt, the brief's LOG line"
        " writes the store from its sandbox, and its MCP task lands in the same store",
        bool(box.query("SELECT 1 FROM messages WHERE content_text LIKE 'from codex%'"))
        and bool(box.query("SELECT 1 FROM events WHERE kind = 'progress'"))
        and bool(box.query("SELECT 1 FROM tasks WHERE title = 'made by codex'")),
    )
    found = doctor(box)
    checks.that(
        "setup #24: doctor is clean after setup and the trust",
        all(found.get(n, {}).get("ok") for n in ("hooks_claude", "hooks_codex", "codex_setup")),
        found,
    )
    box.vybe("setup", "--undo")
    toml = (box.home / ".codex" / "config.toml").read_text()
    checks.that(
        "setup #24: undo gives Claude's settings back byte for byte, removes the hooks.json it"
        " made, and takes vybe's MCP server out of the config.toml Codex changed since",
        settings.read_bytes() == before[settings]
        and not (box.home / ".codex" / "hooks.json").exists()
        and "[mcp_servers.vybe]" not in toml
        and "trusted_hash" in toml,
        toml,
    )
    return box


def server_log(name: str) -> Any:
    """The fake server's log folder, beside the sandbox (which starts empty)."""
    from sandbox import RUNS

    return RUNS / f"{name}-server"


ALL: dict[str, Callable[[Checks], Sandbox]] = {
    "claude-headless": claude_headless,
    "claude-plan": claude_plan,
    "claude-plugin": plugin.claude_plugin,
    "claude-plugin-no-vybe": plugin.claude_plugin_without_vybe,
    "codex-headless": codex_headless,
    "codex-compact": codex_compact,
    "codex-setup": codex_setup,
    "codex-plugin": plugin.codex_plugin,
    "codex-plugin-no-vybe": plugin.codex_plugin_without_vybe,
    "handoff": handoff,
    "setup": setup,
    "claude-proxy": proxied.claude_proxy,
    "claude-proxy-hooked": proxied.claude_proxy_hooked,
    "codex-proxy": proxied.codex_proxy,
    "aider-proxy": aider.aider_proxy,
    "aider-checkpoints": aider.aider_checkpoints,
    "gemini-proxy": gemini.gemini_proxy,
    "gemini-compress": gemini.gemini_compress,
    "gemini-hooks": gemini.gemini_hooks,
    "gemini-hooks-proxy": gemini.gemini_hooks_proxy,
    "opencode-proxy": opencode.opencode_proxy,
    "aider-to-claude": cross_agent.aider_to_claude,
    "opencode-to-gemini-to-codex": cross_agent.opencode_to_gemini_to_codex,
}
