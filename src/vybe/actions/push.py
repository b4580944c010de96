"""``push``: an event, memories, artifacts and a task status change in one transaction."""

from __future__ import annotations

import sqlite3
from typing import Any

from vybe import clock, limits
from vybe.actions import memory as memories
from vybe.actions.events import content_of, link_artifact
from vybe.actions.tasks import change_status, require_task
from vybe.errors import InvalidInput
from vybe.store import Store
from vybe.store import events as event_rows

PARTS = {"task_id", "event", "memories", "artifacts", "task_status"}
MEMORY_FIELDS = set(memories.MemoryInput._fields)
MEMORIES_MAX = 100


def _object(doc: Any, name: str, allowed: set[str]) -> dict:
    if not isinstance(doc, dict):
        raise InvalidInput(f"{name} must be a JSON object", context={"field": name})
    unknown = set(doc) - allowed
    if unknown:
        raise InvalidInput(
            f"{name} has unknown field(s): {', '.join(sorted(unknown))}",
            context={"field": name, "unknown": sorted(unknown), "allowed": sorted(allowed)},
        )
    return doc


def _string(doc: dict, key: str, limit: int, *, required: bool = False) -> str | None:
    value = doc.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{key} must be a string", context={"field": key})
    return limits.text(key, value, limit, required=required)


def validate(doc: Any) -> dict:
    """Check the whole document before anything is written."""
    doc = _object(limits.json_value("push document", doc), "push document", PARTS)
    _string(doc, "task_id", limits.PATH_MAX)
    if "event" in doc:
        event = _object(doc["event"], "event", {"kind", "message", "metadata"})
        _string(event, "kind", limits.KIND_MAX, required=True)
        _string(event, "message", limits.MESSAGE_MAX)
        limits.metadata_value(event.get("metadata"), "event.metadata")
    memories_part = _memories(doc.get("memories", []))
    artifacts = doc.get("artifacts", [])
    if not isinstance(artifacts, list):
        raise InvalidInput("artifacts must be a list", context={"field": "artifacts"})
    for item in artifacts:
        artifact = _object(item, "artifact", {"file_path", "content_type"})
        _string(artifact, "file_path", limits.PATH_MAX, required=True)
        _string(artifact, "content_type", limits.KIND_MAX)
    if "task_status" in doc:
        status = _object(
            doc["task_status"], "task_status", {"status", "blocked_reason", "note", "force"}
        )
        _string(status, "status", limits.KIND_MAX, required=True)
        _string(status, "blocked_reason", limits.MESSAGE_MAX)
        _string(status, "note", limits.MESSAGE_MAX)
        if not isinstance(status.get("force", False), bool):
            raise InvalidInput("force must be true or false", context={"field": "force"})
    if (artifacts or "task_status" in doc) and not doc.get("task_id"):
        raise InvalidInput("task_id is required for artifacts and task_status")
    if not ({"event", "task_status"} & set(doc) or artifacts or memories_part):
        raise InvalidInput("push needs at least one of event, memories, artifacts, task_status")
    return {**doc, "memories": memories_part} if memories_part else doc


def _memories(items: Any) -> list[dict]:
    """Check each memory entry now, so a bad one fails the push before any write."""
    if not isinstance(items, list):
        raise InvalidInput("memories must be a list", context={"field": "memories"})
    if len(items) > MEMORIES_MAX:
        raise InvalidInput(f"at most {MEMORIES_MAX} memories per push")
    return [
        memories.check(memories.from_document(_object(item, "memory", MEMORY_FIELDS)))._asdict()
        for item in items
    ]


def _log_event(conn: sqlite3.Connection, agent: str, event: dict, task: dict | None) -> int:
    """The push's event, on its task and the task's project when it names one."""
    return event_rows.insert(
        conn,
        event_rows.NewEvent(
            kind=event["kind"],
            agent=agent,
            message=event.get("message") or "",
            task_id=task["id"] if task else None,
            project_id=task["project_id"] if task else None,
            metadata=event.get("metadata"),
        ),
        clock.now_iso(),
    )


def _write_memory(
    conn: sqlite3.Connection, agent: str, item: dict, task: dict | None, event_id: int | None
) -> dict:
    """One memory, its source (the push's event and task) and its scope's id (the task or
    its project) filled in when it does not say them."""
    spec = memories.MemoryInput(**item)
    if spec.source_event_id is None and event_id is not None:
        spec = spec._replace(source_event_id=event_id)
    if spec.source_task_id is None and task is not None:
        spec = spec._replace(source_task_id=task["id"])
    if spec.scope_id is None and task is not None and spec.scope in ("task", "project"):
        own = task["id"] if spec.scope == "task" else task["project_id"]
        spec = spec._replace(scope_id=own)
    written = memories.write(conn, agent, spec)
    return {
        "key": written["memory"]["key"],
        "memory_id": written["memory"]["id"],
        "event_id": written["event_id"],
    }


def _link_artifacts(
    conn: sqlite3.Connection,
    agent: str,
    task: dict | None,
    items: list[dict],
    contents: list[Any],
    event_id: int | None,
) -> list[dict]:
    """Each artifact linked to the task, with the content read before the transaction."""
    linked = []
    for item, content in zip(items, contents, strict=True):
        assert task is not None  # checked: artifacts and task_status need a task_id
        linked.append(
            link_artifact(
                conn, agent, task, item["file_path"], item.get("content_type"), event_id, content
            )
        )
    return linked


def _change_status(conn: sqlite3.Connection, agent: str, task: dict | None, status: dict) -> dict:
    """The task's new status, with the event that records the change."""
    assert task is not None
    changed = change_status(
        conn,
        agent,
        task,
        status["status"],
        status.get("blocked_reason"),
        note=status.get("note") or "",
        force=status.get("force", False),
    )
    return {
        "task_id": changed["task"]["id"],
        "status": changed["task"]["status"],
        "status_event_id": changed["event_id"],
    }


def push(store: Store, agent: str, request_id: str, *, document: Any) -> dict:
    doc = validate(document)
    contents = [content_of(item["file_path"]) for item in doc.get("artifacts", [])]

    def run(conn: sqlite3.Connection) -> dict:
        task = require_task(conn, doc["task_id"]) if doc.get("task_id") else None
        event_id = _log_event(conn, agent, doc["event"], task) if "event" in doc else None
        written = [_write_memory(conn, agent, m, task, event_id) for m in doc.get("memories", [])]
        artifacts = doc.get("artifacts", [])
        linked = _link_artifacts(conn, agent, task, artifacts, contents, event_id)
        changed = (
            _change_status(conn, agent, task, doc["task_status"]) if "task_status" in doc else None
        )
        return {
            "event_id": event_id,
            "memories": written,
            "artifacts": linked,
            "task_status": changed,
        }

    return store.idempotent(agent, request_id, "push", doc, run)
