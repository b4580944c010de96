"""Projects: create, read, focus, delete."""

from __future__ import annotations

import sqlite3

from vybe import clock, limits, privacy
from vybe.errors import UsageError, listed
from vybe.store import Store
from vybe.store import agents as agent_rows
from vybe.store import projects as project_rows


def require_project(conn: sqlite3.Connection, project_id: str) -> dict:
    return listed(project_rows.get(conn, project_id), "project", project_id)


def ensure(conn: sqlite3.Connection, project_id: str, name: str, metadata: object = None) -> dict:
    """The project with this id, created when missing ("already exists" is success); its
    typed name and metadata scrubbed as a task's are (the hooks' and a task's project is
    named after its folder, which its id holds as it is)."""
    if metadata is not None:
        metadata = privacy.scrub_value(metadata)
    project_rows.add_missing(conn, project_id, privacy.scrub(name), clock.now_iso(), metadata)
    return require_project(conn, project_id)


def create(
    store: Store,
    agent: str,
    request_id: str,
    *,
    name: str,
    project_id: str | None = None,
    metadata: str | None = None,
) -> dict:
    limits.text("name", name, limits.TITLE_MAX, required=True)
    if project_id is not None:
        limits.text("id", project_id, limits.PATH_MAX, required=True)
    meta = limits.metadata(metadata)
    args = {"name": name, "id": project_id, "metadata": meta}

    def run(conn: sqlite3.Connection) -> dict:
        return {"project": ensure(conn, project_id or clock.new_id("project"), name, meta)}

    return store.idempotent(agent, request_id, "project.create", args, run)


def get(store: Store, project_id: str) -> dict:
    with store.snapshot() as conn:
        return {"project": require_project(conn, project_id)}


def list_projects(store: Store, limit: int) -> dict:
    with store.snapshot() as conn:
        projects = project_rows.list_all(conn, limit)
    return {"count": len(projects), "projects": projects}


def focus(store: Store, agent: str, request_id: str, *, project_id: str | None) -> dict:
    """Set (or with None clear) the project this agent works in."""

    def run(conn: sqlite3.Connection) -> dict:
        if project_id is not None:
            require_project(conn, project_id)
        agent_rows.set_focus_project(conn, agent, project_id, clock.now_iso())
        return {"agent_name": agent, "focus_project_id": project_id}

    return store.idempotent(agent, request_id, "project.focus", {"id": project_id}, run)


def delete(store: Store, agent: str, request_id: str, *, project_id: str, force: bool) -> dict:
    """Delete a project; its tasks stay, detached. Deleting a missing project succeeds.
    Without ``force`` it is refused and nothing changes (a dangerous operation fails closed
    without its explicit flag)."""
    if force is not True:
        import shlex  # imports re: kept off the hooks' path (the brief reads projects)

        raise UsageError(
            f"deleting project {project_id!r} needs force: it cannot be undone",
            context={"field": "force", "project_id": project_id},
            suggested_action=f"vybe project delete --project-id {shlex.quote(project_id)} --force",
        )

    def run(conn: sqlite3.Connection) -> dict:
        return {"project_id": project_id, "deleted": project_rows.delete(conn, project_id) == 1}

    return store.idempotent(agent, request_id, "project.delete", {"id": project_id}, run)
