"""Claude Code handlers: prompts kept verbatim, the user's words back after compaction."""

from __future__ import annotations

import json
import multiprocessing
import re
import shutil
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable
from contextlib import closing

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import TRANSCRIPTS, VYBE
from vybe import locks
from vybe.integrations.hooks.hook import import_lock
from vybe.integrations.hooks.prompt import asks_for_status
from vybe.integrations.hooks.transcript import PROMPT_WAITS_FOR_IMPORT
from vybe.store import open_store

SESSION = "claude:6f1c2d3e-0000-4aaa-8bbb-123456789abc"
PROMPTS = [
    "Fix the flaky login test.\nNever touch the payments module — it's frozen until Friday.  ",
    "ok",
    "Use the staging database, not prod. Tabs\tand ünïcödé and emoji 🚀 must survive.",
    "continue",
]


def _user_rows(agent, session=SESSION):
    return agent.rows(
        "SELECT content_text FROM messages WHERE session_id = ? AND type = 'user'"
        " ORDER BY context_seq",
        session,
    )


def test_prompt_is_appended_verbatim_to_the_session_record(agent):
    for prompt in PROMPTS:
        assert agent.send("claude", "user_prompt_submit", prompt=prompt).code == 0
    assert [r[0] for r in _user_rows(agent)] == PROMPTS
    kinds = agent.rows("SELECT kind, project_id FROM events WHERE kind = 'user_prompt'")
    assert kinds == [("user_prompt", str(agent.project))] * len(PROMPTS)


def test_compact_start_gives_back_byte_identical_user_text(agent):
    for prompt in PROMPTS:
        agent.send("claude", "user_prompt_submit", prompt=prompt)
    context = agent.send("claude", "session_start_compact").context
    words = context[context.index("## The user's words") :]
    for prompt in PROMPTS:
        assert f"\n{prompt}\n" in words + "\n"
    assert words.index(PROMPTS[0]) < words.index(PROMPTS[2])


def test_compact_start_keeps_the_first_and_directions_over_acknowledgements(agent):
    first = "Goal: port the billing service to Go. " + "context " * 300
    agent.send("claude", "user_prompt_submit", prompt=first)
    for n in range(40):
        agent.send("claude", "user_prompt_submit", prompt=f"continue {n}" if n % 2 else "ok")
    rule = "Never deploy on Fridays; you may run the migrations yourself."
    agent.send("claude", "user_prompt_submit", prompt=rule)
    for n in range(30):
        agent.send("claude", "user_prompt_submit", prompt=f"step {n}: " + "details " * 150)
    context = agent.send("claude", "session_start_compact").context
    assert first in context
    assert rule in context
    assert "step 29: " in context
    assert "step 0: " not in context
    assert len(context) <= 10_000


def test_a_message_too_long_for_the_budget_is_cut_and_says_where_it_lives(agent):
    agent.send("claude", "user_prompt_submit", prompt="Spec follows. " + "word " * 20_000)
    context = agent.send("claude", "session_start_compact").context
    assert f"[cut: the whole message is record entry #1 of session {SESSION}]" in context
    assert len(context) <= 10_000


def test_startup_does_not_carry_the_user_words(agent):
    agent.send("claude", "user_prompt_submit", prompt="Never touch payments.")
    assert "The user's words" not in agent.send("claude", "session_start_startup").context


def test_pre_compact_imports_the_transcript_without_duplicating_hooked_prompts(agent):
    agent.send("claude", "user_prompt_submit", prompt=PROMPTS[0])
    assert agent.send("claude", "pre_compact").stdout == ""
    assert agent.send("claude", "pre_compact").stdout == ""
    users = [r[0] for r in _user_rows(agent)]
    assert users == [PROMPTS[0], "ok", "Use the staging database for the fix, please."]
    assistant = agent.rows(
        "SELECT content_text FROM messages WHERE session_id = ? AND type = 'assistant'", SESSION
    )
    assert any("session cookie" in r[0] for r in assistant)
    tools = agent.rows(
        "SELECT source FROM messages WHERE session_id = ? AND type = 'tool'", SESSION
    )
    assert tools == [("Bash",)]


def test_a_missing_transcript_is_no_error(agent):
    run = agent.send("claude", "pre_compact", transcript_path="/nowhere/gone.jsonl")
    assert (run.code, run.stdout, agent.log) == (0, "", "")


def test_a_real_compacted_session_gives_back_its_first_prompt_verbatim(agent, tmp_path):
    source = TRANSCRIPTS / "claude-codemie-code-624a4a58-compaction.jsonl"
    agent.transcript = tmp_path / source.name
    shutil.copy(source, agent.transcript)
    assert agent.send("claude", "pre_compact").code == 0
    # An import cut at its time budget (a loaded machine) is finished by the next hook's.
    _settled(lambda: agent.send("claude", "pre_compact"), lambda: _user_rows(agent))
    typed = [r[0] for r in _user_rows(agent)]
    assert len(typed) == 14
    context = agent.send("claude", "session_start_compact").context
    assert typed[0] in context
    assert agent.log == ""


def test_an_ordinary_prompt_gets_no_reminder_and_a_status_question_the_brief(agent):
    task = agent.vybe.task("Port billing")
    agent.vybe.ok("task", "begin", "--id", task, agent="claude")
    assert agent.send("claude", "user_prompt_submit", prompt="add a test").context == ""
    assert "Port billing" in agent.send("claude", "user_prompt_submit", prompt="status?").context


def test_task_completed_never_closes_the_focus_task_by_default(agent):
    task = agent.vybe.task("Port billing")
    agent.vybe.ok("task", "begin", "--id", task, agent="claude")
    assert agent.send("claude", "task_completed").code == 0
    assert agent.vybe.ok("task", "get", "--id", task)["task"]["status"] == "in_progress"


def test_an_unlinked_task_completion_is_logged_naming_claudes_task_once(agent):
    payload = agent.event("claude", "task_completed")
    for _ in range(2):  # a retried hook logs once
        assert agent.send("claude", "task_completed").code == 0
    [(message, metadata)] = agent.rows(
        "SELECT message, metadata FROM events WHERE kind = 'agent_task_completed'"
    )
    assert message == "claude task 1 completed: write the tests"
    assert json.loads(metadata) == {
        "claude_task_id": "1",
        "claude_session_id": payload["session_id"],
        "subject": "write the tests",
    }


def test_a_linked_task_completion_closes_it_and_logs_no_second_event(agent):
    linked = agent.vybe.task("Migration", "--metadata", _link(agent))
    agent.send("claude", "task_completed")
    assert agent.vybe.ok("task", "get", "--id", linked)["task"]["status"] == "completed"
    assert agent.rows("SELECT COUNT(*) FROM events WHERE kind = 'agent_task_completed'") == [(0,)]


def _link(agent, **fields) -> str:
    payload = agent.event("claude", "task_completed")
    link = {"claude_task_id": payload["task_id"], "claude_session_id": payload["session_id"]}
    return json.dumps({**link, **fields})


def test_task_completed_closes_a_task_linked_in_its_metadata(agent):
    task_id = agent.event("claude", "task_completed")["task_id"]
    linked = agent.vybe.task("Migration", "--metadata", _link(agent))
    other = agent.vybe.task("Other", "--metadata", _link(agent, claude_task_id=task_id + "3"))
    agent.send("claude", "task_completed")
    assert agent.vybe.ok("task", "get", "--id", linked)["task"]["status"] == "completed"
    assert agent.vybe.ok("task", "get", "--id", other)["task"]["status"] == "pending"


def test_task_completed_closes_the_open_task_when_an_older_one_with_the_link_is_done(agent):
    older = agent.vybe.task("Earlier task 3", "--metadata", _link(agent))
    agent.vybe.ok("done", older)
    newer = agent.vybe.task("This session's task 3", "--metadata", _link(agent))
    agent.send("claude", "task_completed")
    assert agent.vybe.ok("task", "get", "--id", newer)["task"]["status"] == "completed"


def test_another_sessions_task_1_never_closes_a_task_linked_to_task_1(agent):
    """Claude's task ids restart at "1" in every session: a link names its session."""
    unnamed = agent.vybe.task("Linked by id only", "--metadata", '{"claude_task_id": "1"}')
    theirs = agent.vybe.task("Theirs", "--metadata", _link(agent, claude_session_id="other"))
    agent.send("claude", "task_completed", task_id="1")
    for task in (unnamed, theirs):
        assert agent.vybe.ok("task", "get", "--id", task)["task"]["status"] == "pending"


def test_a_link_in_another_project_is_left_open(agent, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    agent.vybe.ok("project", "create", "--id", str(elsewhere), "--name", "elsewhere")
    task = agent.vybe.task("There", "--metadata", _link(agent), "--project-id", str(elsewhere))
    agent.send("claude", "task_completed")
    assert agent.vybe.ok("task", "get", "--id", task)["task"]["status"] == "pending"


def test_a_link_made_in_claudes_bash_names_the_session_it_was_made_in(agent):
    payload = agent.event("claude", "task_completed")
    agent.vybe.env["CLAUDE_CODE_SESSION_ID"] = payload["session_id"]
    link = json.dumps({"claude_task_id": payload["task_id"]})
    task = agent.vybe.task("Made in Claude's Bash", "--metadata", link)
    stored = agent.vybe.ok("task", "get", "--id", task)["task"]["metadata"]
    assert stored == {"claude_session_id": payload["session_id"], "claude_task_id": "1"}
    agent.send("claude", "task_completed")
    assert agent.vybe.ok("task", "get", "--id", task)["task"]["status"] == "completed"


def test_task_completed_closes_a_task_named_by_its_vybe_id(agent):
    task = agent.vybe.task("Index users.email")
    agent.send("claude", "task_completed", task_subject=f"Finish {task}", task_id="99")
    assert agent.vybe.ok("task", "get", "--id", task)["task"]["status"] == "completed"


def test_tool_failure_is_logged_with_bounded_previews(agent):
    huge = {"command": "x" * 50_000}
    agent.send("claude", "post_tool_use_failure", tool_input=huge, error="E" * 50_000)
    [(message, metadata)] = agent.rows(
        "SELECT message, metadata FROM events WHERE kind = 'tool_failure'"
    )
    meta = json.loads(metadata)
    assert message.startswith("Bash: E")
    assert len(meta["input_preview"]) <= 2000 and len(meta["error_preview"]) <= 4000


def test_session_end_logs_one_event_even_when_retried(agent):
    agent.send("claude", "session_end")
    agent.send("claude", "session_end")
    events = agent.rows("SELECT message FROM events WHERE kind = 'session_end'")
    assert events == [(agent.event("claude", "session_end")["reason"],)]


def test_an_end_that_was_never_a_conversation_is_not_logged(agent, tmp_path):
    """`claude mcp list` fires SessionEnd with a transcript path that holds nothing."""
    nowhere = str(tmp_path / "never-written.jsonl")
    agent.send("claude", "session_end", transcript_path=nowhere)
    assert agent.rows("SELECT COUNT(*) FROM events WHERE kind = 'session_end'") == [(0,)]
    agent.send("claude", "user_prompt_submit", prompt="a headless turn", transcript_path=nowhere)
    agent.send("claude", "session_end", transcript_path=nowhere)
    assert agent.rows("SELECT COUNT(*) FROM events WHERE kind = 'session_end'") == [(1,)]


def test_startup_injects_the_resume_brief_of_the_folder_project(agent):
    context = agent.send("claude", "session_start_startup").context
    assert context.startswith("== VYBE (task tracker) ==")
    project = agent.vybe.ok("project", "get", "--id", str(agent.project))["project"]
    assert project["name"] == "proj"


def test_compact_start_carries_the_pinned_directives(agent):
    agent.vybe.ok(
        "memory",
        "set",
        "-k",
        "deploys",
        "-v",
        "No deploys on Friday",
        "--kind",
        "directive",
        "--pin",
    )
    agent.send("claude", "user_prompt_submit", prompt="Start the migration.")
    context = agent.send("claude", "session_start_compact").context
    assert "## Pinned directives\n- No deploys on Friday" in context
    assert "Start the migration." in context


# The hook leaves `vybe maintain` running, detached, by design: the Popen it drops says so.
@pytest.mark.filterwarnings("ignore:subprocess .* is still running:ResourceWarning")
def test_session_end_starts_maintenance_only_when_due(agent):
    stamp = agent.vybe.home / "config" / "maintain.stamp"
    stamp.unlink()  # never ran
    agent.send("claude", "session_end")
    first = stamp.stat().st_mtime_ns
    agent.send("claude", "session_end", reason="clear")
    assert stamp.stat().st_mtime_ns == first
    assert agent.log == ""
    # The one it started runs to its end (its ledger row is its last write) before the test
    # ends, so it writes nothing into another test's store.
    deadline = time.monotonic() + 60
    while not agent.rows("SELECT 1 FROM idempotency WHERE command = 'maintain'"):
        assert time.monotonic() < deadline, "the maintenance the hook started never finished"
        time.sleep(0.1)


def test_two_failures_without_tool_use_ids_and_of_equal_length_are_both_logged(agent):
    for error in ("Exit code 1: disk full", "Exit code 2: no access"):
        agent.send("claude", "post_tool_use_failure", tool_use_id=None, error=error)
    errors = agent.rows("SELECT message FROM events WHERE kind = 'tool_failure' ORDER BY id")
    assert errors == [("Bash: Exit code 1: disk full",), ("Bash: Exit code 2: no access",)]
    assert "IDEMPOTENCY_MISMATCH" not in agent.log


def test_a_retried_tool_failure_is_logged_once(agent):
    agent.send("claude", "post_tool_use_failure", tool_use_id=None)
    agent.send("claude", "post_tool_use_failure", tool_use_id=None)
    assert len(agent.rows("SELECT id FROM events WHERE kind = 'tool_failure'")) == 1


def _import_on_signal(agent, stdin: bytes, start) -> None:
    start.wait()
    agent.raw("claude", stdin)


def test_overlapping_stop_imports_append_each_transcript_row_once(agent, tmp_path):
    source = TRANSCRIPTS / "claude-codemie-code-624a4a58-compaction.jsonl"
    agent.transcript = tmp_path / source.name
    shutil.copy(source, agent.transcript)
    stop = json.dumps(agent.event("claude", "stop")).encode()
    context = multiprocessing.get_context("fork")
    start = context.Event()
    stops = [context.Process(target=_import_on_signal, args=(agent, stop, start)) for _ in range(8)]
    for process in stops:
        process.start()
    start.set()
    for process in stops:
        process.join()
    counts = "SELECT type, COUNT(*) FROM messages GROUP BY type ORDER BY type"
    together = _settled(lambda: agent.raw("claude", stop), lambda: agent.rows(counts))
    alone = tmp_path / "alone.db"
    env = {k: v for k, v in agent.vybe.env.items() if k != "VYBE_DB_URL"}
    env["VYBE_DB_PATH"] = str(alone)  # imports alone, on SQLite: what the eight must equal

    def alone_counts() -> list[tuple]:
        with closing(sqlite3.connect(alone)) as conn:
            return conn.execute(counts).fetchall()

    hook = [VYBE, "hook", "run", "claude"]
    by_one = _settled(lambda: subprocess.run(hook, input=stop, env=env, check=True), alone_counts)
    assert together == by_one != []


def _settled(stop_import: Callable[[], object], counts: Callable[[], list]) -> list:
    """Stop imports run until one adds nothing, and the counts then: each import ends at its
    time budget (2 s), which a loaded machine reaches before the transcript's end, and the
    next goes on from there (duplicates or rows skipped by the eight would stay)."""
    stop_import()
    seen = counts()
    for _ in range(20):  # an import that never stops adding rows fails, not hangs
        stop_import()
        now = counts()
        if now == seen:
            return now
        seen = now
    raise AssertionError(f"imports still adding rows after 20 runs: {seen}")


def _prompt_while_importing(agent, hold: float) -> tuple[list[str], float]:
    """Send a prompt while a transcript import holds the store's import lock for ``hold``
    seconds, then records a reply: the types of the record's rows in order, and how long the
    prompt took to be recorded."""
    took: list[float] = []

    def prompt() -> None:
        started = time.monotonic()
        agent.send_process("claude", "user_prompt_submit")
        took.append(time.monotonic() - started)

    store = open_store(agent.vybe.location)
    with locks.exclusive(import_lock(store)):
        sent = threading.Thread(target=prompt)
        sent.start()
        time.sleep(hold)
        agent.rows(
            "INSERT INTO sessions (id, created_at) VALUES (?, 't') ON CONFLICT DO NOTHING", SESSION
        )
        agent.rows(
            "INSERT INTO messages (session_id, context_seq, type, source, content_text, tokens,"
            " created_at) SELECT ?, COALESCE(MAX(context_seq), 0) + 1, 'assistant',"
            " 'transcript', 'the reply', 2, 't' FROM messages WHERE session_id = ?",
            SESSION,
            SESSION,
        )
    sent.join()
    store.close()
    order = "SELECT type FROM messages WHERE session_id = ? ORDER BY context_seq"
    return [r[0] for r in agent.rows(order, SESSION)], took[0]


def test_a_prompt_typed_during_an_import_lands_after_the_reply_it_imports(agent):
    assert _prompt_while_importing(agent, hold=0.5)[0] == ["assistant", "user"]


def test_a_prompt_waits_for_an_import_about_a_second_at_most(agent):
    order, took = _prompt_while_importing(agent, hold=2.5)
    assert order == ["user", "assistant"]
    assert PROMPT_WAITS_FOR_IMPORT <= took < 2.5


def test_a_very_long_session_id_still_records_the_prompt(agent):
    session = "s" * 400
    assert (
        agent.send("claude", "user_prompt_submit", session_id=session, prompt="keep me").code == 0
    )
    assert _user_rows(agent, f"claude:{session}") == [("keep me",)]
    assert agent.log == ""


def _command(context: str, name: str, note: str) -> str:
    line = next(x for x in context.splitlines() if x.startswith(f"{name}:"))
    return line.split(None, 1)[1].replace("<summary>", note)


def test_the_briefs_done_line_closes_the_task_the_agent_began_over_mcp(agent):
    """Claude's Bash has neither vybe on its PATH nor VYBE_AGENT: the line runs as it stands."""
    agent.send("claude", "session_start_startup")  # the folder's project exists from here
    task = agent.vybe.task("Port billing", "--project-id", str(agent.project))
    agent.vybe.ok("task", "begin", "--id", task, agent="claude")  # as mcp__vybe__task_begin
    done_line = _command(agent.send("claude", "session_start_resume").context, "DONE", "ported")
    assert task in done_line
    bare = {k: v for k, v in agent.vybe.env.items() if k != "VYBE_AGENT"}
    bare["PATH"] = "/usr/bin:/bin"
    shell = subprocess.run(
        ["sh", "-c", done_line], env=bare, cwd=agent.project, capture_output=True, text=True
    )
    assert shell.returncode == 0, shell.stdout + shell.stderr
    assert agent.vybe.ok("task", "get", "--id", task)["task"]["status"] == "completed"


def test_session_start_persists_the_agent_for_later_bash_calls_once(agent, tmp_path):
    env_file = tmp_path / "claude-env.sh"
    agent.vybe.env["CLAUDE_ENV_FILE"] = str(env_file)
    agent.send("claude", "session_start_startup")
    agent.send("claude", "session_start_resume")
    assert env_file.read_text() == "export VYBE_AGENT=claude\n"
    shell = subprocess.run(
        ["sh", "-c", f". {env_file} && echo $VYBE_AGENT"], capture_output=True, text=True
    )
    assert shell.stdout == "claude\n"


BRIEF_LINE = json.dumps({"attachment": {"content": ["== VYBE (task tracker) ==\nNo task"]}})
BOUNDARY = json.dumps({"type": "system", "subtype": "compact_boundary"})


def test_a_resume_of_a_thread_holding_the_brief_gets_a_short_delta(agent, tmp_path):
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(BRIEF_LINE + "\n" + '{"type": "user"}\n' * 3)
    agent.send("claude", "session_start_startup")
    task = agent.vybe.task("Port billing", "--project-id", str(agent.project))
    agent.vybe.ok("note", task, "copied 3 of 5 tables", agent="codex")
    delta = agent.send("claude", "session_start_resume", transcript_path=str(transcript)).context
    assert "== VYBE (task tracker) ==" not in delta
    assert delta.startswith("== VYBE (resumed")
    assert f"Focus: Port billing ({task}, pending)" in delta
    assert "copied 3 of 5 tables" in delta
    assert f"done {task}" in _command(delta, "DONE", "x")
    assert len(delta) < len(agent.send("claude", "session_start_startup").context)


def test_a_resume_after_a_compaction_or_of_a_thread_without_the_brief_gets_the_full_brief(
    agent, tmp_path
):
    compacted, bare = tmp_path / "compacted.jsonl", tmp_path / "bare.jsonl"
    compacted.write_text(BRIEF_LINE + "\n" + BOUNDARY + "\n")
    bare.write_text('{"type": "user"}\n')
    for path in (compacted, bare, tmp_path / "missing.jsonl"):
        context = agent.send("claude", "session_start_resume", transcript_path=str(path)).context
        assert context.startswith("== VYBE (task tracker) =="), path


def test_a_brief_far_back_in_a_long_transcript_is_still_found(agent, tmp_path):
    transcript = tmp_path / "long.jsonl"
    filler = json.dumps({"type": "user", "text": "x" * 1000}) + "\n"
    transcript.write_text(BRIEF_LINE + "\n" + filler * 2000)  # 2 MB after the brief
    context = agent.send("claude", "session_start_resume", transcript_path=str(transcript))
    assert context.context.startswith("== VYBE (resumed")


@pytest.mark.sqlite_only("counts the pages of SQLite's write-ahead log")
def test_a_hooks_resume_writes_a_few_pages_and_nothing_to_the_ledger(agent):
    """No one can replay a hook's resume, and the brief it injects is not a read by the agent:
    on any store, it writes the agent's own row and little else."""
    agent.send("claude", "session_start_startup")
    rows = [
        (f"m{n}", f"k{n}", "v " * 50, "global", "", "fact", 0, "2026-01-01", "2026-01-01")
        for n in range(300)
    ]
    with sqlite3.connect(agent.vybe.db_path) as conn:
        conn.executemany(
            "INSERT INTO memory (id, key, value, scope, scope_id, kind, pinned, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    keeper = sqlite3.connect(agent.vybe.db_path)  # keeps the WAL from being checkpointed away
    try:
        keeper.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        ledger = agent.rows("SELECT COUNT(*) FROM idempotency")
        assert "=== Facts ===" in agent.send("claude", "session_start_resume").context
        wal = agent.vybe.db_path.with_name("vybe.db-wal").stat().st_size
        page = keeper.execute("PRAGMA page_size").fetchone()[0]
        assert (wal - 32) // (page + 24) <= 10
    finally:
        keeper.close()
    assert agent.rows("SELECT COUNT(*) FROM idempotency") == ledger
    assert agent.rows("SELECT MAX(access_count) FROM memory") == [(0,)]


@pytest.mark.parametrize(
    ("prompt", "asks"),
    [
        ("Where are we?", True),
        ("BRIEF ME please", True),
        ("whats next", True),
        ("What's next on the list?", True),
        ("what was I working on yesterday", True),
        ("status", True),
        ("fix the statuses of the build", False),  # not the word
        ("where were the logs written?", False),
        ("add a test", False),
    ],
)
def test_a_status_question_gets_the_brief_and_any_other_prompt_nothing(agent, prompt, asks):
    task = agent.vybe.task("Port billing")
    agent.vybe.ok("task", "begin", "--id", task, agent="claude")
    context = agent.send("claude", "user_prompt_submit", prompt=prompt).context
    assert ("== VYBE" in context) is asks, context
    assert (context == "") is not asks, context


STATUS_QUESTION = re.compile(
    r"(?i)\b(brief me|status|where (are|were) we|what'?s next|what (was|am) i (doing|working on))\b"
)
FRAGMENTS = [
    "brief me", "Status", "statuses", "where are we", "Where were we?", "what's next",
    "whats next", "what was I doing", "what am i working on", "what is next", "where we are",
    "ok", " ", "\n", "-", "x", "briefme", "status:", "nowhere are weird", "WHAT'S NEXT",
]  # fmt: skip


@given(st.lists(st.sampled_from(FRAGMENTS), max_size=6).map("".join))
def test_a_status_question_is_told_by_its_words_first_as_the_full_pattern_tells_it(prompt):
    assert asks_for_status(prompt) == bool(STATUS_QUESTION.search(prompt))
