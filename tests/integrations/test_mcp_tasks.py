"""What vybe's MCP tools change, through the operation each tool calls (no SDK): a task made
over MCP belongs to the project of the server's working folder."""

from __future__ import annotations

import os

from vybe.operations import catalog
from vybe.operations.model import CLI, MCP, Context
from vybe.store import Store


def create(store: Store, surface: str, **arguments) -> dict:
    op = next(o for o in catalog().on(MCP) if o.tool == "task_create")
    values = op.accept({"title": "Ship it", **arguments}, MCP)
    return op.call(Context(store, "claude", f"req-{surface}-{arguments}", surface), values)["task"]


def test_a_task_created_over_mcp_is_in_the_project_of_the_servers_folder(store, tmp_path):
    folder = tmp_path / "shop"
    folder.mkdir()
    saved = os.getcwd()
    os.chdir(folder)
    try:
        task = create(store, MCP)
        named = create(store, MCP, project_id=task["project_id"], title="Named")
        cli = create(store, CLI)
    finally:
        os.chdir(saved)
    assert task["project_id"] == str(folder)
    assert named["project_id"] == str(folder)
    assert cli["project_id"] is None  # a command line names its project, or none
    with store.snapshot() as conn:
        name = conn.execute("SELECT name FROM projects WHERE id = ?", (str(folder),)).fetchone()
    assert name[0] == "shop"
