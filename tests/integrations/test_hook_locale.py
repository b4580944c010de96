"""A hook's answer reaches the agent whatever the locale: only a process shows it (the
interpreter picks stdout's encoding from the locale at start; in-process it is UTF-8)."""

from __future__ import annotations


def test_a_hook_answer_with_non_ascii_text_is_written_under_the_c_locale(agent):
    agent.vybe.ok("task", "create", "--title", "Fix the café → naïve Unicode")
    agent.vybe.env.update({"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"})
    done = agent.send_process("claude", "session_start_startup")
    assert "Fix the café → naïve Unicode" in done.context, agent.log
    assert agent.log == ""
