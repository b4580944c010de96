"""Codex handlers: failed Bash calls through PostToolUse, a JSON answer to Stop."""

from __future__ import annotations

SESSION = "codex:019b7f94-51b4-7593-922e-ba12b5b73b52"


def test_a_failed_bash_call_is_logged_and_a_passing_one_is_not(agent):
    agent.send("codex", "post_tool_use_failed_bash")
    agent.send("codex", "post_tool_use_ok_bash")
    [(message,)] = agent.rows("SELECT message FROM events WHERE kind = 'tool_failure'")
    assert message.startswith("Bash: ")


def test_an_exit_code_in_text_output_counts_as_failure(agent):
    agent.send("codex", "post_tool_use_ok_bash", tool_response="Exit code: 2\nno such file")
    assert len(agent.rows("SELECT id FROM events WHERE kind = 'tool_failure'")) == 1


def test_stop_answers_json_and_records_the_reply_after_the_prompt(agent):
    agent.send("codex", "user_prompt_submit")
    run = agent.send("codex", "stop")
    assert run.output == {}
    rows = agent.rows(
        "SELECT type, content_text FROM messages WHERE session_id = ? ORDER BY context_seq",
        SESSION,
    )
    assert rows == [
        ("user", "Rename foo to bar everywhere, but keep the public API."),
        ("assistant", "Renamed foo to bar in 4 files."),
    ]


def test_compact_start_gives_back_the_prompts_verbatim(agent):
    agent.send("codex", "user_prompt_submit")
    context = agent.send("codex", "session_start_compact").context
    assert "Rename foo to bar everywhere, but keep the public API." in context
