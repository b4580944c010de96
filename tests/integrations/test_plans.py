"""An approved plan (Claude Code's ExitPlanMode) becomes tasks: its steps, in order, each after
the previous unless the plan says otherwise; once per plan; in the next brief."""

from __future__ import annotations

from vybe.integrations.hooks.plans import Step, steps, title

PLAN = """# Plan: move billing to Postgres

Context: the old store is frozen.

1. **Write the schema** for `invoices`
   - keep the old column names
2. Port the data
3. Switch reads (independent of the port: a flag)
"""


def test_numbered_steps_in_order_with_their_detail_and_what_they_wait_for():
    assert title(PLAN) == "Plan: move billing to Postgres"
    assert steps(PLAN) == [
        Step("Write the schema for invoices", "- keep the old column names", False),
        Step("Port the data", "", True),
        Step("Switch reads (independent of the port: a flag)", "", False),
    ]


def test_bullets_are_steps_when_nothing_is_numbered_and_a_preamble_can_unorder_them():
    plan = "Do these in any order:\n\n- [ ] lint\n- [x] type-check\n  with --strict\n"
    assert steps(plan) == [Step("lint", "", False), Step("type-check", "with --strict", False)]


def test_a_plan_without_steps_is_one_step_holding_the_plan():
    plan = "# Fix the login\n\nJust make the cookie secure and rerun the tests."
    assert steps(plan) == [Step("Fix the login", plan, False)]


def test_a_long_step_is_cut_in_its_title_and_whole_in_its_detail():
    long = "x" * 300
    first, _ = steps(f"1. {long}\n2. short\n")
    assert len(first.title) == 200 and first.detail == long


def _tasks(agent):
    return agent.rows(
        "SELECT t.title, t.project_id, d.depends_on_task_id IS NOT NULL FROM tasks t"
        " LEFT JOIN task_dependencies d ON d.task_id = t.id ORDER BY t.created_at, t.id"
    )


def test_an_approved_plan_becomes_the_projects_tasks_once_and_shows_in_the_next_brief(agent):
    """The payload Claude Code 2.1.197 sends after the person approved the plan."""
    agent.send("claude", "post_tool_use_ok_exit_plan_mode")
    agent.send("claude", "post_tool_use_ok_exit_plan_mode")
    project = str(agent.project)
    assert _tasks(agent) == [
        ("write the schema", project, 0),
        ("port the data", project, 1),
        ("switch reads", project, 1),
    ]
    brief = agent.send("claude", "session_start_startup").context
    assert "3 task(s) awaiting action" in brief and "write the schema" in brief


def test_the_plan_as_approved_wins_over_the_one_proposed(agent):
    event = agent.event("claude", "post_tool_use_ok_exit_plan_mode")
    edited = {**event["tool_response"], "plan": "1. only this\n2. and that\n"}
    agent.send("claude", "post_tool_use_ok_exit_plan_mode", tool_response=edited)
    assert [t[0] for t in _tasks(agent)] == ["only this", "and that"]


def test_a_plan_without_steps_becomes_one_task_holding_it(agent):
    plan = {"plan": "Rename the flag and ship."}
    agent.send("claude", "post_tool_use_ok_exit_plan_mode", tool_input=plan, tool_response=plan)
    described = agent.rows("SELECT title, description FROM tasks")
    assert described == [("Rename the flag and ship.", "Rename the flag and ship.")]


def test_a_plan_claude_code_keeps_in_a_file_becomes_the_projects_tasks(agent, tmp_path):
    """Claude Code 2.1.332 sends ``plan: null`` and the plan file's path (as it captured)."""
    plan = tmp_path / "plan-write-the-schema.md"
    plan.write_text("1. write the schema\n2. port the data\n")
    response = {"plan": None, "isAgent": False, "filePath": str(plan)}
    agent.send("claude", "post_tool_use_ok_exit_plan_mode", tool_input={}, tool_response=response)
    assert [t[0] for t in _tasks(agent)] == ["write the schema", "port the data"]


def test_a_plan_file_that_is_not_markdown_or_too_large_is_not_read(agent, tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("1. not a plan\n")
    large = tmp_path / "plan.md"
    large.write_text("1. step\n" * 200_000)
    agent.send("claude", "session_start_startup")  # the store, made
    for path in (other, large):
        response = {"plan": None, "filePath": str(path)}
        agent.send(
            "claude", "post_tool_use_ok_exit_plan_mode", tool_input={}, tool_response=response
        )
    assert _tasks(agent) == []
