"""The viewer's pages, rendered on the server: each takes the store and the query string and
returns HTML in which every recorded string passed through ``escape`` (a message holding
``<script>`` shows as text). Lists come a page at a time by key; every page is a link."""

from __future__ import annotations

import difflib
import json
from datetime import UTC, datetime
from html import escape
from typing import Any
from urllib.parse import urlencode

from vybe.actions import viewer

STYLE = (
    "body{font:14px system-ui,sans-serif;margin:2em;color:#222;background:#fafafa}"
    "@media(prefers-color-scheme:dark){body{color:#ddd;background:#161616}a{color:#8bf}}"
    "td,th{padding:.3em .6em;text-align:left;vertical-align:top}pre{white-space:pre-wrap}"
    ".board{display:flex;gap:1em}.board section{flex:1}.card{border:1px solid #8884;"
    "padding:.4em;margin:.3em 0}.mark{border-top:3px solid #c80;margin:1em 0;padding:.3em}"
    "del{background:#f004}ins{background:#0f04}"
)
NAV = (
    "<nav><a href='/'>Sessions</a> · <a href='/tasks'>Tasks</a> · <a href='/memory'>Memory</a>"
    " · <a href='/events'>Events</a> · <form action='/search' style='display:inline'>"
    "<input name='q' placeholder='search'></form></nav>"
)


def link(path: str, **query: Any) -> str:
    """An escaped href of ``path`` with the query's non-empty values."""
    given = {k: v for k, v in query.items() if v not in (None, "")}
    return escape(f"{path}?{urlencode(given)}" if given else path)


def page(title: str, body: str, live: bool = False) -> bytes:
    """A whole document; a ``live`` page's <main> is swapped in place on each change."""
    script = "<script src='/static/live.js' defer></script>" if live else ""
    return (
        f"<!doctype html><meta charset=utf-8><title>{escape(title)}</title>"
        f"<style>{STYLE}</style>{script}{NAV}<h1>{escape(title)}</h1>"
        f"<main{' data-live' if live else ''}>{body}</main>"
    ).encode()


def text(value: Any) -> str:
    return escape("" if value is None else str(value))


CLIENTS = ("claude", "codex", "proxy", "chat")


def client_of(session_id: str) -> str:
    prefix = session_id.partition(":")[0]
    return prefix if prefix in CLIENTS[:3] and ":" in session_id else "chat"


def sessions_page(store: Any, query: dict[str, str]) -> bytes:
    client = query.get("client") if query.get("client") in CLIENTS else None
    found = viewer.sessions(store, query.get("before"), client)
    pick = " · ".join(
        f"<a href='{link('/', client=c)}'>{'<b>' + c + '</b>' if c == client else c}</a>"
        for c in CLIENTS
    )
    rows = "".join(
        f"<tr><td><a href='{link('/session', id=s['id'])}'>{text(s['id'])}</a></td>"
        f"<td>{client_of(s['id'])}</td><td>{text(s['first_words'])}</td><td>{s['messages']}</td>"
        f"<td>{s['checkpoints']}</td><td>{s['tokens']}</td><td>{text(s['last_at'])}</td>"
        "</tr>"
        for s in found["sessions"]
    )
    nxt = found["next"]
    more = f"<a href='{link('/', client=client, before=nxt)}'>older</a>" if nxt else ""
    head = "<tr><th>session<th>client<th>first prompt<th>messages<th>compactions<th>tokens<th>last"
    body = f"<p>client: <a href='/'>all</a> · {pick}</p><table>{head}{rows}</table>{more}"
    return page("Sessions", body, live=True)


def _message(m: dict[str, Any]) -> str:
    """A timeline entry: the person's words and replies open, tool calls and output folded."""
    folded = m["type"] in ("tool", "system", "harness")
    return (
        f"<details id='m{m['context_seq']}'{'' if folded else ' open'}>"
        f"<summary>#{m['context_seq']} {text(m['type'])} {text(m['source'])}"
        f" · {m['tokens']} tokens · {text(m['created_at'])}</summary>"
        f"<pre>{text(m['content_text'])}</pre></details>"
    )


def _timeline(sid: str, found: dict[str, Any]) -> str:
    """The page's messages with a marker where each checkpoint's summary ends."""
    ends = {c["summarized_to_seq"]: c for c in found["checkpoints"]}
    out = [] if found["messages"] else ["<p>No messages here.</p>"]
    for m in found["messages"]:
        out.append(_message(m))
        mark = ends.get(m["context_seq"])
        if mark is not None:
            out.append(
                f"<div class='mark'>compaction: checkpoint "
                f"<a href='#cp{mark['id']}'>{mark['id']}</a> summarized up to here</div>"
            )
    more = found["next"]
    out.append(f"<a href='{link('/session', id=sid, after=more)}'>later</a>" if more else "")
    return "".join(out)


def _diff(old: str, new: str) -> str:
    """Line differences from ``old`` to ``new``, escaped, removals and additions marked."""
    lines = []
    for line in difflib.ndiff(old.splitlines(), new.splitlines()):
        tag, body = line[:2], text(line[2:])
        if tag == "- ":
            lines.append(f"<del>- {body}</del>")
        elif tag == "+ ":
            lines.append(f"<ins>+ {body}</ins>")
        elif tag == "  ":
            lines.append(f"  {body}")
    return "<pre>" + "\n".join(lines) + "</pre>"


def _checkpoints(sid: str, marks: list[dict[str, Any]]) -> str:
    out, before = [], None
    for c in marks:
        whole = f"MIND\n{c['mind']}\nMEMO\n{c['memo']}\nNOW\n{c['now']}"
        change = (
            f"<details><summary>difference from checkpoint {before[0]}</summary>"
            f"{_diff(before[1], whole)}</details>"
            if before
            else ""
        )
        out.append(
            f"<section id='cp{c['id']}'><h3>checkpoint {c['id']} ({text(c['mode'])},"
            f" {text(c['created_at'])})</h3><p>summarized messages up to"
            f" #{c['summarized_to_seq']}; kept from <a href='"
            f"{link('/session', id=sid, after=max(0, c['first_kept_seq'] - 1))}'>"
            f"#{c['first_kept_seq']}</a></p>"
            f"<h4>MIND</h4><pre>{text(c['mind'])}</pre><h4>MEMO</h4><pre>{text(c['memo'])}</pre>"
            f"<h4>NOW</h4><pre>{text(c['now'])}</pre>{change}</section>"
        )
        before = (c["id"], whole)
    return "".join(out)


def _attempts(tried: list[dict[str, Any]]) -> str:
    rows = "".join(
        f"<tr><td>{a['id']}</td><td>{text(a['reason'])}</td><td>{text(a['outcome'])}</td>"
        f"<td>{a['tokens_before']} → {text(a['tokens_after'])}</td>"
        f"<td>{text(', '.join(map(str, json.loads(a['problems'] or '[]'))))}</td>"
        f"<td>{text(', '.join(map(str, json.loads(a['fallbacks'] or '[]'))))}</td></tr>"
        for a in tried
    )
    head = "<tr><th>attempt<th>trigger<th>outcome<th>tokens<th>checks failed<th>fallbacks"
    return f"<h2>Checkpoint receipts</h2><table>{head}{rows}</table>" if tried else ""


FATES = {
    "verbatim": "given back verbatim",
    "kept": "kept by the client",
    "cut": "cut",
    "released": "in the record only",
}


def _receipts(sid: str, receipts: list[dict[str, Any]]) -> str:
    out = []
    for r in receipts:
        said = "".join(
            f"<tr><td><a href='{link('/session', id=sid, after=max(0, seq - 1))}'>#{seq}</a>"
            f"</td><td>{FATES[fate]}</td><td><pre>{text(words)}</pre></td></tr>"
            for fate, seq, words in r["messages"]
        )
        out.append(
            f"<section><h3>{text(r['compactor'])} compaction {r['id']}"
            f" ({text(r['trigger'])}, {text(r['created_at'])})</h3>"
            f"<p>tokens {text(r['tokens_before'])} → {text(r['tokens_after'])};"
            f" {'completed' if r['completed'] else 'not completed'}</p>"
            f"<table><tr><th>message<th>what became of it<th>words{said}</table></section>"
        )
    return "<h2>Client compactions</h2>" + "".join(out) if out else ""


def session_page(store: Any, query: dict[str, str]) -> bytes:
    sid = query.get("id", "")
    after = query.get("after", "0")
    found = viewer.session(store, sid, int(after) if after.isdigit() else 0)
    body = (
        f"<h2>Timeline</h2>{_timeline(sid, found)}<h2>Checkpoints</h2>"
        f"{_checkpoints(sid, found['checkpoints'])}{_attempts(found['attempts'])}"
        f"{_receipts(sid, found['receipts'])}"
    )
    return page(f"Session {sid}", body, live=True)


STATUSES = ("pending", "in_progress", "blocked", "completed")


def _lease_left(expires: str | None) -> str:
    if not expires:
        return ""
    left = datetime.fromisoformat(expires.replace("Z", "+00:00")) - datetime.now(UTC)
    seconds = int(left.total_seconds())
    return f"lease {seconds // 60} min left" if seconds > 0 else "lease expired"


def _card(t: dict[str, Any]) -> str:
    holder = (
        f"<br>held by {text(t['claimed_by'])}, {_lease_left(t['lease_expires_at'])}"
        if t["claimed_by"]
        else ""
    )
    return (
        f"<div class='card' id='t-{text(t['id'])}'><a href='{link('/events', task=t['id'])}'>"
        f"{text(t['title'])}</a> <small>{text(t['id'])} p{t['priority']}</small>{holder}"
        f"{'<br>' + text(t['blocked_reason']) if t['blocked_reason'] else ''}</div>"
    )


def graph(tasks: list[dict[str, Any]], edges: list[tuple[str, str]]) -> str:
    """The dependencies as inline SVG: a task in a column by its depth (how many tasks it
    waits on in a chain), an arrow from each task to what it depends on."""
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
        return ""
    rows: dict[int, int] = {}
    at: dict[str, tuple[int, int]] = {}
    for tid in shown:
        column = level(tid)
        at[tid] = (20 + column * 200, 20 + rows.get(column, 0) * 40)
        rows[column] = rows.get(column, 0) + 1
    titles = {t["id"]: t["title"] for t in tasks}
    width = 220 + 200 * max(depth[t] for t in shown)
    height = 40 + 40 * max(rows.values())
    lines = "".join(
        f"<line x1='{at[a][0]}' y1='{at[a][1] + 10}' x2='{at[b][0] + 160}' y2='{at[b][1] + 10}'"
        " stroke='#888' marker-end='url(#arrow)'/>"
        for a, b in edges
        if a in at and b in at
    )
    boxes = "".join(
        f"<a href='#t-{text(tid)}'><rect x='{x}' y='{y}' width='160' height='22' rx='4'"
        f" fill='#8882'/><text x='{x + 4}' y='{y + 15}' font-size='12' fill='currentColor'>"
        f"{text(titles[tid][:24])}</text></a>"
        for tid, (x, y) in at.items()
    )
    arrow = (
        "<defs><marker id='arrow' viewBox='0 0 10 10' refX='10' refY='5' markerWidth='6'"
        " markerHeight='6' orient='auto'><path d='M0,0L10,5L0,10z' fill='#888'/></marker></defs>"
    )
    return (
        f"<h2>Dependencies</h2><svg xmlns='http://www.w3.org/2000/svg' width='{width}'"
        f" height='{height}' role='img'>{arrow}{lines}{boxes}</svg>"
    )


def tasks_page(store: Any, query: dict[str, str]) -> bytes:
    found = viewer.tasks(store)
    columns = "".join(
        f"<section><h2>{status.replace('_', ' ')}</h2>"
        + "".join(_card(t) for t in found["tasks"] if t["status"] == status)
        + "</section>"
        for status in STATUSES
    )
    body = f"<div class='board'>{columns}</div>{graph(found['tasks'], found['dependencies'])}"
    return page("Tasks", body, live=True)


def memory_page(store: Any, query: dict[str, str]) -> bytes:
    found = viewer.memory(store, query, query.get("after"))
    rows = "".join(
        f"<tr><td>{text(m['key'])}</td><td><pre>{text(m['value'])}</pre></td>"
        f"<td>{text(m['scope'])} {text(m['scope_id'])}</td><td>{text(m['kind'])}</td>"
        f"<td>{'pinned' if m['pinned'] else ''}</td><td>{text(m['expires_at'])}</td>"
        f"<td>{m['access_count']}</td></tr>"
        for m in found["memory"]
    )
    head = "<tr><th>key<th>value<th>scope<th>kind<th>pin<th>expires<th>reads"
    nxt = found["next"]
    more = (
        f"<a href='{link('/memory', scope=query.get('scope'), kind=query.get('kind'), after=nxt)}'"
        ">more</a>"
        if nxt
        else ""
    )
    return page("Memory", f"<table>{head}{rows}</table>{more}")


def events_page(store: Any, query: dict[str, str]) -> bytes:
    before = query.get("before")
    found = viewer.events(store, query, int(before) if before and before.isdigit() else None)
    rows = "".join(
        f"<tr><td>{e['id']}</td><td>{text(e['created_at'])}</td>"
        f"<td><a href='{link('/events', kind=e['kind'])}'>{text(e['kind'])}</a></td>"
        f"<td><a href='{link('/events', agent=e['agent_name'])}'>{text(e['agent_name'])}</a></td>"
        f"<td><a href='{link('/events', task=e['task_id'])}'>{text(e['task_id'])}</a></td>"
        f"<td>{text(e['message'])}</td></tr>"
        for e in found["events"]
    )
    keep = {k: query.get(k) for k in ("agent", "kind", "task")}
    nxt = found["next"]
    more = f"<a href='{link('/events', **keep, before=nxt)}'>older</a>" if nxt else ""
    head = "<tr><th>id<th>at<th>kind<th>agent<th>task<th>message"
    return page("Events", f"<table>{head}{rows}</table>{more}", live=True)


def _hit(h: dict[str, Any]) -> str:
    parts = text(h["snippet"]).split("**")  # the search's own match markers
    shown = "".join(f"<mark>{p}</mark>" if i % 2 else p for i, p in enumerate(parts))
    if h["source"] == "message":
        where = link("/session", id=h["session_id"], after=max(0, h["seq"] - 1))
        label = f"{text(h['session_id'])} #{h['seq']} {text(h['type'])}"
    else:
        where = link("/events", task=h["task_id"], before=h["event_id"] + 1)
        label = f"event {h['event_id']} {text(h['kind'])}"
    return f"<li><a href='{where}'>{label}</a> {text(h['created_at'])}<br>{shown}</li>"


def search_page(store: Any, query: dict[str, str]) -> bytes:
    words = query.get("q", "")
    if not words:
        return page("Search", "<p>Type words in the box above (the syntax of vybe search).</p>")
    found = viewer.search(store, words, query.get("cursor") or None)
    hits = "".join(_hit(h) for h in found["hits"])
    nxt = found["next_cursor"]
    more = f"<a href='{link('/search', q=words, cursor=nxt)}'>more</a>" if nxt else ""
    return page(f"Search: {words}", f"<ol>{hits}</ol>{more}")


ROUTES = {
    "/": sessions_page,
    "/session": session_page,
    "/tasks": tasks_page,
    "/memory": memory_page,
    "/events": events_page,
    "/search": search_page,
}
