"""The brief's memory ranking and its prompt budget, on a real store."""

from __future__ import annotations

from datetime import timedelta

from vybe import clock
from vybe.actions import brief as briefs
from vybe.actions import memory
from vybe.actions import resume as resumes
from vybe.store import Store


def remember(store: Store, key: str, value: str = "v", **extra) -> dict:
    spec = memory.MemoryInput(key=key, value=value, **extra)
    return memory.set_memory(store, "a", f"req-{key}-{value}-{extra}", spec)["memory"]


def age(store: Store, key: str, days: int) -> None:
    """Make an entry ``days`` older than the newest event."""
    newest = store.conn.execute("SELECT MAX(created_at) FROM events").fetchone()[0]
    then = clock.iso(clock.parse_iso(newest) - timedelta(days=days))
    store.transact(
        lambda conn: conn.execute("UPDATE memory SET updated_at = ? WHERE key = ?", (then, key))
    )


def ranked_keys(store: Store) -> list[str]:
    return [m["key"] for m in resumes.peek(store, "a")["brief"]["relevant_memory"]]


def test_pinned_entries_come_first(store):
    remember(store, "read")
    remember(store, "pinned", pinned=True)
    memory.get(store, "a", key="read", scope="global", scope_id=None)
    assert ranked_keys(store)[0] == "pinned"


def test_more_reads_rank_higher(store):
    remember(store, "rare")
    remember(store, "often")
    for _ in range(3):
        memory.get(store, "a", key="often", scope="global", scope_id=None)
    assert ranked_keys(store) == ["often", "rare"]


def test_older_facts_decay(store):
    remember(store, "old")
    remember(store, "new")
    age(store, "old", 200)
    assert ranked_keys(store) == ["new", "old"]


def test_directives_never_decay_and_lessons_decay_fastest(store):
    remember(store, "directive", kind="directive")
    remember(store, "fact")
    remember(store, "lesson", kind="lesson")
    for key in ("directive", "fact", "lesson"):
        age(store, key, 60)
    assert ranked_keys(store) == ["directive", "fact", "lesson"]


def test_an_own_half_life_overrides_the_kind_default(store):
    remember(store, "short", half_life_days=1.0)
    remember(store, "default")
    for key in ("short", "default"):
        age(store, key, 10)
    assert ranked_keys(store) == ["default", "short"]


def test_agent_memory_and_superseded_entries_stay_out_of_the_brief(store):
    remember(store, "mine", scope="agent")
    remember(store, "port", "8080")
    remember(store, "port", "9090", supersedes="port")
    entries = resumes.peek(store, "a")["brief"]["relevant_memory"]
    assert [(m["key"], m["value"]) for m in entries] == [("port", "9090")]


def test_stale_facts_are_marked_unless_pinned(store):
    remember(store, "month")
    remember(store, "quarter")
    remember(store, "kept", pinned=True)
    for key, days in (("month", 40), ("quarter", 100), ("kept", 100)):
        age(store, key, days)
    prompt = resumes.peek(store, "a")["prompt"]
    assert "- month = v [40d old]" in prompt
    assert "- quarter = v [stale: 100d — verify]" in prompt
    assert "- kept = v\n" in prompt


def test_the_budget_fills_by_priority_and_reports_what_it_dropped(store):
    for i in range(200):
        remember(store, f"fact{i:03d}", "a value that takes some room " * 5)
    remember(store, "rule", "always run the tests " * 5, kind="directive")
    data = resumes.peek(store, "a")
    budget = data["brief"]["budget"]
    assert budget["limit"] == briefs.BUDGET_TOKENS and budget["used"] <= budget["limit"]
    assert budget["dropped"]["directives"] == 0
    shown = data["prompt"].count("- fact")
    assert shown > 0 and budget["dropped"]["facts"] == 49 - shown
    assert "== COMMANDS ==" in data["prompt"]


def test_render_prompt_is_a_pure_function_of_the_brief(store):
    remember(store, "k")
    brief = resumes.peek(store, "a")["brief"]
    first, second = briefs.render_prompt(brief, "vybe"), briefs.render_prompt(brief, "vybe")
    assert first == second and first.memory_ids == [brief["relevant_memory"][0]["id"]]


def test_a_small_budget_drops_whole_sections_in_order(store):
    remember(store, "rule", "r" * 100, kind="directive")
    remember(store, "fact", "f" * 100)
    prompt = briefs.render_prompt(resumes.peek(store, "a")["brief"], "vybe", budget_tokens=40)
    assert prompt.budget["dropped"] == {
        "directives": 0,
        "lessons": 0,
        "facts": 1,
        "prompts": 0,
        "events": 2,
        "reasoning": 0,
    }


def test_long_titles_are_cut_in_the_fixed_sections_and_kept_whole_in_the_brief(store):
    from vybe.actions import tasks

    titles = [f"{n} " + "a title that goes on " * 24 for n in range(7)]
    for n, title in enumerate(titles):
        tasks.create(store, "a", f"t{n}", title=title, priority=n)
    data = resumes.peek(store, "a")
    assert data["brief"]["task"]["title"] == titles[-1]
    assert data["brief"]["approx_tokens"] < briefs.BUDGET_TOKENS + 600
    assert titles[-1] not in data["prompt"] and titles[-1][:150] in data["prompt"]


def test_every_command_line_of_the_brief_runs_as_its_agent_from_the_running_vybe(store):
    from vybe import config

    prompt = resumes.peek(store, "claude")["prompt"]
    commands = prompt[prompt.index("== COMMANDS ==") :].splitlines()[1:6]
    prefix = config.command_line("claude")
    assert prefix.split()[0].startswith("/") and prefix.endswith(" --agent claude")
    assert [line.split(None, 1)[1].startswith(prefix + " ") for line in commands] == [True] * 5


def test_an_agent_name_the_shell_would_split_is_quoted_in_the_command_lines():
    import shlex

    from vybe import config

    line = config.command_line("it's me", "done", "T")
    assert shlex.split(line) == [*config.vybe_argv(), "--agent", "it's me", "done", "T"]
