"""The viewer's pages: each gathers its rows (through vybe.actions.viewer) and renders a
Jinja2 template of vybe/ui/templates with autoescaping on, so every recorded string is
escaped wherever a template puts it (a message holding ``<script>`` shows as text). Lists
come a page at a time by key; every page is a link."""

from __future__ import annotations

import difflib
import json
from datetime import UTC, datetime
from functools import cache
from typing import Any
from urllib.parse import urlencode

from vybe.actions import viewer

# The clients by the prefix of their sessions' ids (vybe.store.viewer.CLIENTS), vybe chat's
# having none; each with the name the sessions page shows.
CLIENTS = {
    "claude": "Claude Code",
    "codex": "Codex",
    "gemini": "Gemini CLI",
    "opencode": "OpenCode",
    "aider": "Aider",
    "proxy": "proxy",
    "chat": "chat",
}
STATUSES = ("pending", "in_progress", "blocked", "completed")
FOLDED = ("tool", "system", "harness")  # folded on the timeline; the person's words open
FATES = {
    "verbatim": "given back verbatim",
    "kept": "kept by the client",
    "cut": "cut",
    "released": "in the record only",
}


def link(path: str, **query: Any) -> str:
    """``path`` with the query's non-empty values (the template escapes it)."""
    given = {k: v for k, v in query.items() if v not in (None, "")}
    return f"{path}?{urlencode(given)}" if given else path


@cache
def templates() -> Any:
    """The templates, loaded once, autoescaping every value (Jinja2: the `ui` extra)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=PackageLoader("vybe.ui", "templates"), autoescape=True, undefined=StrictUndefined
    )
    env.globals["link"] = link
    return env


def render(name: str, title: str, live: bool = False, **values: Any) -> bytes:
    values.setdefault("words", "")
    page: bytes = templates().get_template(name).render(title=title, live=live, **values).encode()
    return page


def client_of(session_id: str) -> str:
    prefix, colon, _ = session_id.partition(":")
    return prefix if colon and prefix in CLIENTS else "chat"


def _offered(values: list[str], chosen: str | None) -> list[str]:
    """A filter's choices: what the store offers, and the one chosen when it is not among
    them (a link may name any)."""
    return sorted({*values, chosen}) if chosen and chosen not in values else values


def sessions_page(store: Any, query: dict[str, str]) -> bytes:
    """Sessions, newest first, with who started each (agent) and where (project); filtered
    by client, agent and project, each a query parameter every link and page keeps."""
    keep = {
        "client": query.get("client") if query.get("client") in CLIENTS else None,
        "agent": query.get("agent") or None,
        "project": query.get("project") or None,
    }
    chosen = {k: v for k, v in keep.items() if v}
    found = viewer.sessions(store, query.get("before"), chosen)
    rows = [{**s, "client": client_of(s["id"])} for s in found["sessions"]]
    return render(
        "sessions.html",
        "Sessions",
        live=True,
        sessions=rows,
        clients=CLIENTS,
        agents=_offered(found["agents"], keep["agent"]),
        projects=_offered(found["projects"], keep["project"]),
        keep=keep,
        next=found["next"],
    )


def _diff(old: str, new: str) -> list[tuple[str, str]]:
    """Line differences from ``old`` to ``new``: ("-", line), ("+", line) or (" ", line)."""
    return [
        (line[0], line[2:])
        for line in difflib.ndiff(old.splitlines(), new.splitlines())
        if line[:2] in ("- ", "+ ", "  ")
    ]


def _checkpoints(marks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each checkpoint with its difference from the one before it."""
    out, before = [], None
    for c in marks:
        whole = f"MIND\n{c['mind']}\nMEMO\n{c['memo']}\nNOW\n{c['now']}"
        diff: list[tuple[str, str]] = _diff(before[1], whole) if before else []
        out.append({**c, "diff": diff, "previous": before[0] if before else None})
        before = (c["id"], whole)
    return out


def session_page(store: Any, query: dict[str, str]) -> bytes:
    sid = query.get("id", "")
    after = query.get("after", "0")
    found = viewer.session(store, sid, int(after) if after.isdigit() else 0)
    tried = [
        {
            **a,
            "problems": json.loads(a["problems"] or "[]"),
            "fallbacks": json.loads(a["fallbacks"] or "[]"),
        }
        for a in found["attempts"]
    ]
    return render(
        "session.html",
        f"Session {sid}",
        live=True,
        sid=sid,
        messages=found["messages"],
        ends={c["summarized_to_seq"]: c["id"] for c in found["checkpoints"]},
        checkpoints=_checkpoints(found["checkpoints"]),
        attempts=tried,
        receipts=found["receipts"],
        next=found["next"],
        folded=FOLDED,
        fates=FATES,
    )


def _lease_left(expires: str | None) -> str:
    if not expires:
        return ""
    left = datetime.fromisoformat(expires.replace("Z", "+00:00")) - datetime.now(UTC)
    seconds = int(left.total_seconds())
    return f"lease {seconds // 60} min left" if seconds > 0 else "lease expired"


def graph(tasks: list[dict[str, Any]], edges: list[tuple[str, str]]) -> dict[str, Any] | None:
    """The dependencies laid out for inline SVG: a task in a column by its depth (how many
    tasks it waits on in a chain), a line from each task to what it depends on."""
    ids = {t["id"] for t in tasks}
    needs: dict[str, list[str]] = {}
    for task, blocker in edges:
        needs.setdefault(task, []).append(blocker)
    depth: dict[str, int] = {}

    def level(tid: str, seen: frozenset[str] = frozenset()) -> int:
        if tid not in depth:
            below = [b for b in needs.get(tid, []) if b in ids and b not in seen]
            depth[tid] = 1 + max((level(b, seen | {tid}) for b in below), default=-1)
        return depth[tid]

    shown = sorted({t for e in edges for t in e} & ids)
    if not shown:
        return None
    rows: dict[int, int] = {}
    at: dict[str, tuple[int, int]] = {}
    for tid in shown:
        column = level(tid)
        at[tid] = (20 + column * 200, 20 + rows.get(column, 0) * 40)
        rows[column] = rows.get(column, 0) + 1
    titles = {t["id"]: t["title"] for t in tasks}
    return {
        "width": 220 + 200 * max(depth[t] for t in shown),
        "height": 40 + 40 * max(rows.values()),
        "lines": [
            (at[a][0], at[a][1] + 10, at[b][0] + 160, at[b][1] + 10)
            for a, b in edges
            if a in at and b in at
        ],
        "boxes": [(tid, x, y, titles[tid][:24]) for tid, (x, y) in at.items()],
    }


def tasks_page(store: Any, query: dict[str, str]) -> bytes:
    status = query.get("status") if query.get("status") in STATUSES else None
    found = viewer.tasks(store, status, query.get("before") if status else None)
    cards = [{**t, "lease": _lease_left(t["lease_expires_at"])} for t in found["tasks"]]
    board = [
        (s, [t for t in cards if t["status"] == s]) for s in ((status,) if status else STATUSES)
    ]
    layout = graph(found["tasks"], found["dependencies"])
    return render("tasks.html", "Tasks", live=True, board=board, graph=layout, next=found["next"])


def memory_page(store: Any, query: dict[str, str]) -> bytes:
    found = viewer.memory(store, query, query.get("after"))
    return render(
        "memory.html",
        "Memory",
        memory=found["memory"],
        next=found["next"],
        scope=query.get("scope"),
        kind=query.get("kind"),
    )


def events_page(store: Any, query: dict[str, str]) -> bytes:
    before = query.get("before")
    found = viewer.events(store, query, int(before) if before and before.isdigit() else None)
    keep = {k: query.get(k) for k in ("agent", "kind", "task")}
    return render(
        "events.html", "Events", live=True, events=found["events"], next=found["next"], keep=keep
    )


def _hit(h: dict[str, Any]) -> dict[str, Any]:
    """A hit with its link into the timeline (or the event log) and its snippet's parts,
    every second one a match (the search marks them ``**…**``)."""
    if h["source"] == "message":
        href = link("/session", id=h["session_id"], after=max(0, h["seq"] - 1))
        label = f"{h['session_id']} #{h['seq']} {h['type']}"
    else:
        href = link("/events", task=h["task_id"], before=h["event_id"] + 1)
        label = f"event {h['event_id']} {h['kind']}"
    return {**h, "href": href, "label": label, "parts": h["snippet"].split("**")}


def search_page(store: Any, query: dict[str, str]) -> bytes:
    words = query.get("q", "")
    if not words:
        return render("search.html", "Search")
    found = viewer.search(store, words, query.get("cursor") or None)
    hits = [_hit(h) for h in found["hits"]]
    return render(
        "search.html", f"Search: {words}", words=words, hits=hits, next=found["next_cursor"]
    )


def refused_page(code: str, message: str) -> bytes:
    return render("refused.html", "Refused", code=code, message=message)


ROUTES = {
    "/": sessions_page,
    "/session": session_page,
    "/tasks": tasks_page,
    "/memory": memory_page,
    "/events": events_page,
    "/search": search_page,
}
