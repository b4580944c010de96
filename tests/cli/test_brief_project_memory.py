"""The brief's project memory, as the seed says: with a focus project, that project's only;
with none, every project's (never agent memory)."""

from __future__ import annotations


def _keys(vybe) -> set[str]:
    return {m["key"] for m in vybe.ok("resume", "--peek")["brief"]["relevant_memory"]}


def _seeded(vybe) -> None:
    for name in ("alpha", "beta"):
        vybe.ok("project", "create", "--name", name, "--id", name)
        vybe.ok("memory", "set", "-k", f"{name}-rule", "-v", "v", "--scope", "project",
                "--scope-id", name)  # fmt: skip
    vybe.ok("memory", "set", "-k", "everywhere", "-v", "v")
    vybe.ok("memory", "set", "-k", "mine", "-v", "v", "--scope", "agent")


def test_with_no_project_focus_the_brief_holds_every_projects_memory(vybe):
    _seeded(vybe)
    assert _keys(vybe) == {"alpha-rule", "beta-rule", "everywhere"}


def test_with_a_project_focus_the_brief_holds_that_projects_memory_only(vybe):
    _seeded(vybe)
    vybe.ok("project", "focus", "--project-id", "alpha")
    assert _keys(vybe) == {"alpha-rule", "everywhere"}


def test_a_superseded_or_expired_project_entry_stays_out_with_no_focus(vybe, travel):
    _seeded(vybe)
    vybe.ok("memory", "set", "-k", "short", "-v", "v", "--scope", "project", "--scope-id",
            "beta", "--expires-in", "1m")  # fmt: skip
    vybe.ok("memory", "set", "-k", "alpha-rule-2", "-v", "w", "--scope", "project",
            "--scope-id", "alpha", "--supersedes", "alpha-rule")  # fmt: skip
    travel(120)
    assert _keys(vybe) == {"alpha-rule-2", "beta-rule", "everywhere"}
