"""project create|get|list|focus|delete through the real CLI."""

from __future__ import annotations


def test_create_with_an_id_returns_the_project(vybe):
    project = vybe.ok("project", "create", "--name", "billing", "--id", "/srv/billing")["project"]
    assert project["id"] == "/srv/billing"
    assert project["name"] == "billing"


def test_create_without_an_id_generates_one(vybe):
    project = vybe.ok("project", "create", "--name", "x")["project"]
    assert project["id"].startswith("project_")


def test_create_with_an_existing_id_returns_the_existing_project(vybe):
    vybe.ok("project", "create", "--name", "first", "--id", "p")
    again = vybe.ok("project", "create", "--name", "second", "--id", "p")["project"]
    assert again["name"] == "first"
    assert vybe.ok("project", "list")["count"] == 1


def test_create_keeps_metadata_as_json(vybe):
    project = vybe.ok("project", "create", "--name", "m", "--metadata", '{"lang": "go"}')
    assert project["project"]["metadata"] == {"lang": "go"}


def test_get_returns_one_project(vybe):
    vybe.ok("project", "create", "--name", "billing", "--id", "p1")
    assert vybe.ok("project", "get", "--id", "p1")["project"]["name"] == "billing"


def test_list_returns_projects_oldest_first(vybe):
    for name in ("a", "b", "c"):
        vybe.ok("project", "create", "--name", name, "--id", name)
    listed = vybe.ok("project", "list", "--limit", "2")
    assert [p["id"] for p in listed["projects"]] == ["a", "b"]
    assert listed["count"] == 2


def test_focus_sets_this_agents_project(vybe):
    vybe.ok("project", "create", "--name", "p", "--id", "p")
    vybe.ok("project", "focus", "--id", "p", agent="alice")
    assert vybe.ok("status", agent="alice")["agent_state"]["focus_project_id"] == "p"
    assert vybe.ok("status", agent="bob")["agent_state"] is None


def test_focus_clear_removes_the_project_focus(vybe):
    vybe.ok("project", "create", "--name", "p", "--id", "p")
    vybe.ok("project", "focus", "--id", "p")
    assert vybe.ok("project", "focus", "--clear")["focus_project_id"] is None
    assert vybe.ok("status")["agent_state"]["focus_project_id"] is None


def test_delete_detaches_the_projects_tasks(vybe):
    vybe.ok("project", "create", "--name", "p", "--id", "p")
    task_id = vybe.task("t", "--project-id", "p")
    assert vybe.ok("project", "delete", "--id", "p", "--force")["deleted"] is True
    assert vybe.ok("task", "get", "--id", task_id)["task"]["project_id"] is None
    assert vybe.ok("project", "list")["count"] == 0


def test_delete_of_a_missing_project_succeeds_with_deleted_false(vybe):
    assert vybe.ok("project", "delete", "--id", "nope", "--force")["deleted"] is False


def test_delete_clears_the_project_focus(vybe):
    vybe.ok("project", "create", "--name", "p", "--id", "p")
    vybe.ok("project", "focus", "--id", "p")
    vybe.ok("project", "delete", "--id", "p", "--force")
    assert vybe.ok("status")["agent_state"]["focus_project_id"] is None


def test_delete_without_force_is_refused_and_changes_nothing(vybe):
    vybe.ok("project", "create", "--name", "p", "--id", "p")
    vybe.task("t", "--project-id", "p")
    result = vybe.refused("USAGE_ERROR", "project", "delete", "--id", "p", exit_code=2)
    assert result.envelope["error_context"]["field"] == "force"
    assert "--force" in result.envelope["suggested_action"]
