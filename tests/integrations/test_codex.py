"""Codex handlers: failed Bash calls, a JSON answer to Stop, the rollout in the record."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import TRANSCRIPTS
from tests.integrations.conftest import SESSIONS

SESSION = "codex:019b7f94-51b4-7593-922e-ba12b5b73b52"
V77 = TRANSCRIPTS / "codex-codemie-code-019b7f94-v0.77.jsonl"
V125 = TRANSCRIPTS / "codex-codemie-code-019e1625-v0.125.jsonl"
V125_SESSION = "019e1625-789d-76c0-80ab-3724b5ddb799"
V77_PROMPT = "what is current repository about? summarize purpuse and explain goals"
FIXTURES = Path(__file__).with_name("fixtures") / "codex"
PROMPT = json.loads((FIXTURES / "user_prompt_submit.json").read_text())["prompt"]
REPLY = json.loads((FIXTURES / "stop.json").read_text())["last_assistant_message"]
TYPED = "Never touch payments/ — frozen until Friday.\n  Tabs\tand ünïcödé 🚀 survive.  "


def _rows(agent, session=SESSION, kind="user"):
    return [
        r[0]
        for r in agent.rows(
            "SELECT content_text FROM messages WHERE session_id = ? AND type = ?"
            " ORDER BY context_seq",
            session,
            kind,
        )
    ]


def _rollout(agent, tmp_path, lines: list[bytes]) -> None:
    agent.transcript = tmp_path / "rollout.jsonl"
    agent.transcript.write_bytes(b"".join(lines))


def _typed_line(text: str) -> bytes:
    event = {"type": "user_message", "message": text, "images": []}
    line = {"timestamp": "2026-01-02T16:40:00.000Z", "type": "event_msg", "payload": event}
    return json.dumps(line, ensure_ascii=False).encode() + b"\n"


def test_a_failed_bash_call_is_logged_and_a_passing_one_is_not(agent):
    """Codex 0.171 sends the output as a string; the exit code is in the rollout."""
    agent.transcript = FIXTURES / "rollout.jsonl"
    agent.send("codex", "post_tool_use_failed_bash")
    agent.send("codex", "post_tool_use_ok_bash", tool_use_id="call_that_passed")
    [(message,)] = agent.rows("SELECT message FROM events WHERE kind = 'tool_failure'")
    assert message == "Bash: Exit code 2"


def test_a_string_tool_response_without_a_rollout_record_is_not_a_failure(agent):
    agent.send("codex", "session_start_startup")
    agent.send("codex", "post_tool_use_failed_bash", transcript_path=None)
    assert agent.rows("SELECT message FROM events WHERE kind = 'tool_failure'") == []


def test_an_exit_code_in_text_output_counts_as_failure(agent):
    agent.send("codex", "post_tool_use_ok_bash", tool_response="Exit code: 2\nno such file")
    assert len(agent.rows("SELECT id FROM events WHERE kind = 'tool_failure'")) == 1


def test_stop_answers_json_and_records_the_reply_after_the_prompt(agent):
    agent.send("codex", "user_prompt_submit", transcript_path=None)
    run = agent.send("codex", "stop", transcript_path=None)
    assert run.output == {}
    rows = agent.rows(
        "SELECT type, content_text FROM messages WHERE session_id = ? ORDER BY context_seq",
        SESSION,
    )
    assert rows == [
        ("user", PROMPT),
        ("assistant", REPLY),
    ]


def test_compact_start_gives_back_the_prompts_verbatim(agent):
    agent.send("codex", "user_prompt_submit")
    context = agent.send("codex", "session_start_compact").context
    assert PROMPT in context


def test_pre_compact_imports_the_rollout_without_duplicating_the_hooked_prompt(agent, tmp_path):
    _rollout(agent, tmp_path, V77.read_bytes().splitlines(keepends=True))
    agent.send("codex", "user_prompt_submit", prompt=V77_PROMPT)
    assert agent.send("codex", "pre_compact").stdout == ""
    assert agent.send("codex", "pre_compact").stdout == ""
    assert _rows(agent) == [V77_PROMPT]
    assert _rows(agent, kind="tool")[1] == "docs/AGENTS.md\n"
    assert len(_rows(agent, kind="assistant")) == 3
    assert agent.log == ""


def test_compact_start_gives_back_byte_identical_user_text_from_the_rollout(agent, tmp_path):
    _rollout(agent, tmp_path, [*V77.read_bytes().splitlines(keepends=True), _typed_line(TYPED)])
    agent.send("codex", "user_prompt_submit", prompt=V77_PROMPT)
    agent.send("codex", "user_prompt_submit", prompt=TYPED)
    agent.send("codex", "pre_compact")
    assert _rows(agent) == [V77_PROMPT, TYPED]
    context = agent.send("codex", "session_start_compact").context
    assert f"\n{TYPED}" in context and f"\n{V77_PROMPT}\n" in context
    assert "<environment_context>" not in context and "AGENTS.md instructions" not in context


def test_a_real_rollout_imported_at_compaction_gives_back_both_prompts(agent, tmp_path):
    agent.transcript = tmp_path / V125.name
    shutil.copy(V125, agent.transcript)
    assert agent.send("codex", "pre_compact", session_id=V125_SESSION).code == 0
    typed = _rows(agent, f"codex:{V125_SESSION}")
    assert typed == ["show tools", "let's update the defailt context compart to 90 in env var"]
    context = agent.send("codex", "session_start_compact", session_id=V125_SESSION).context
    assert all(f"\n{text}" in context for text in typed)
    assert agent.log == ""


def test_stop_imports_the_turn_and_keeps_its_final_reply_once(agent, tmp_path):
    lines = V125.read_bytes().splitlines(keepends=True)
    final = json.loads(lines[16])["payload"]["content"][0]["text"]
    session = f"codex:{V125_SESSION}"
    _rollout(agent, tmp_path, lines[:19])
    agent.send("codex", "user_prompt_submit", session_id=V125_SESSION, prompt="show tools")
    run = agent.send("codex", "stop", session_id=V125_SESSION, last_assistant_message=final)
    assert run.output == {}
    assert _rows(agent, session) == ["show tools"]
    assert _rows(agent, session, "assistant") == ["", "", final]
    assert len(_rows(agent, session, "tool")) == 2


def test_a_reply_not_yet_in_the_rollout_at_stop_is_kept_once(agent, tmp_path):
    lines = V125.read_bytes().splitlines(keepends=True)
    final = json.loads(lines[16])["payload"]["content"][0]["text"]
    second = "let's update the defailt context compart to 90 in env var"
    session = f"codex:{V125_SESSION}"
    _rollout(agent, tmp_path, lines[:15])
    agent.send("codex", "user_prompt_submit", session_id=V125_SESSION, prompt="show tools")
    agent.send("codex", "stop", session_id=V125_SESSION, last_assistant_message=final)
    agent.transcript.write_bytes(b"".join(lines))
    agent.send("codex", "user_prompt_submit", session_id=V125_SESSION, prompt=second)
    agent.send("codex", "pre_compact", session_id=V125_SESSION)
    assert _rows(agent, session) == ["show tools", second]
    rows = agent.rows(
        "SELECT type, content_text FROM messages WHERE session_id = ? ORDER BY context_seq",
        session,
    )
    assert rows.count(("assistant", final)) == 1
    assert rows[rows.index(("assistant", final)) + 1] == ("user", second)


def test_a_missing_rollout_is_no_error(agent):
    run = agent.send("codex", "pre_compact", transcript_path="/nowhere/gone.jsonl")
    assert (run.code, run.stdout, agent.log) == (0, "", "")
    run = agent.send("codex", "stop", transcript_path="/nowhere/gone.jsonl")
    assert (run.code, run.output, agent.log) == (0, {}, "")
    assert _rows(agent, kind="assistant") == [REPLY]


def test_malformed_rollout_lines_are_skipped_and_the_rest_imported(agent, tmp_path):
    _rollout(agent, tmp_path, [b"{not json\n", b"[1, 2]\n", _typed_line(TYPED), b'{"type":'])
    assert agent.send("codex", "pre_compact").code == 0
    assert _rows(agent) == [TYPED]
    assert agent.log == ""


def test_a_rollout_imported_by_hand_leaves_out_the_prompt_the_hook_recorded(agent):
    agent.send("codex", "user_prompt_submit", prompt=V77_PROMPT)
    data = agent.vybe.ok("session", "import", "--codex", str(V77))
    assert data["session_id"] == SESSION
    assert data["imported"] == {"user": 1, "assistant": 3, "tool": 3}
    assert data["already_recorded"] == 1
    assert _rows(agent) == [V77_PROMPT]


def _imported(agent, rollout) -> tuple[dict, list[tuple[str, str]]]:
    data = agent.vybe.ok("session", "import", "--codex", str(rollout))
    rows = agent.rows(
        "SELECT type, content_text FROM messages WHERE session_id = ? ORDER BY context_seq",
        data["session_id"],
    )
    return data, rows


def test_a_0171_rollout_gives_the_typed_prompts_once_and_never_the_environment_context(agent):
    data, rows = _imported(agent, FIXTURES / "rollout.jsonl")
    users = [text for kind, text in rows if kind == "user"]
    commit = "[[bash: git commit --allow-empty -qm 'agent commit']]"
    assert users == [PROMPT, "now the second step", commit, "and the third step"]
    assert data["imported"] == {"user": 4, "assistant": 6, "tool": 2}


def test_codex_compaction_summary_is_the_harness_s_in_its_place_not_a_reply(agent):
    _, rows = _imported(agent, FIXTURES / "rollout-compact.jsonl")
    kinds = [kind for kind, _ in rows]
    assert kinds == [
        "user",
        "assistant",
        "tool",
        "harness",
        "assistant",
        "harness",
        "user",
        "assistant",
    ]
    summaries = [text for kind, text in rows if kind == "harness"]
    assert all(s.startswith('[Harness: compaction codex "') for s in summaries)
    assert all("The session so far, summarised." in s for s in summaries)
    assert "The session so far, summarised." not in [t for k, t in rows if k == "assistant"]


def test_exec_resume_of_a_real_rollout_holding_the_brief_gets_a_delta_not_a_second_brief(agent):
    """Codex 0.171 fires SessionStart(resume) on every `codex exec resume`."""
    for name in ("rollout", "rollout-compact"):  # the latter: the brief after a compaction
        rollout = str(FIXTURES / f"{name}.jsonl")
        context = agent.send("codex", "session_start_resume", transcript_path=rollout).context
        assert context.startswith("== VYBE (resumed"), name
        assert "== VYBE (task tracker) ==" not in context


def test_a_prompt_after_a_stop_that_found_the_rollout_behind_imports_codexs_rollout_first(
    agent, tmp_path
):
    """The catch-up import reads the agent's own file: Codex's rollout, with its importer."""
    lines = (FIXTURES / "rollout.jsonl").read_bytes().splitlines(keepends=True)
    _rollout(agent, tmp_path, lines[:13])  # the call made, its output not written yet
    agent.send("codex", "stop", last_assistant_message="")
    agent.transcript.write_bytes(b"".join(lines[:17]))
    agent.send("codex", "user_prompt_submit", prompt="now the next step")
    kinds = agent.rows(
        "SELECT type, content_text FROM messages WHERE session_id = ? ORDER BY context_seq",
        f"codex:{SESSIONS['codex']}",
    )
    tools = [i for i, (kind, _) in enumerate(kinds) if kind == "tool"]
    assert kinds[-1] == ("user", "now the next step")
    assert len(tools) == 1 and tools[0] < len(kinds) - 1


def test_a_codex_session_start_writes_nothing_into_claudes_environment_file(agent, tmp_path):
    """Codex started from Claude's Bash inherits CLAUDE_ENV_FILE: it is Claude's, not Codex's."""
    env_file = tmp_path / "claude-env.sh"
    env_file.write_text("export VYBE_AGENT=claude\n")
    agent.vybe.env["CLAUDE_ENV_FILE"] = str(env_file)
    agent.send("codex", "session_start_startup")
    assert env_file.read_text() == "export VYBE_AGENT=claude\n"
