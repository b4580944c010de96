"""Every page of `vybe ui` served in-process over real HTTP on 127.0.0.1 from a store a real
`vybe` filled, on SQLite and on PostgreSQL (``--store``): what each page shows, that lists
come a page at a time, that recorded markup is text, and that nothing a page asks writes."""

from __future__ import annotations

import http.client
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

from tests.ui.conftest import INJECTED
from vybe.cli.ui import read_only_opener
from vybe.ui.server import Viewer


@pytest.fixture
def served(filled: Any) -> Iterator[tuple[Any, Viewer]]:
    server = Viewer(("127.0.0.1", 0), read_only_opener(filled.location))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield filled, server
    server.shutdown()
    server.server_close()
    thread.join()


def get(server: Viewer, path: str, method: str = "GET", **headers: str) -> tuple[int, str, Any]:
    where = urlsplit(server.url)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=5)
    sep = "&" if "?" in path else "?"
    conn.request(
        method, f"{path}{sep}token={server.token}", headers={"Host": where.netloc, **headers}
    )
    reply = conn.getresponse()
    return reply.status, reply.read().decode(), reply


def page(server: Viewer, path: str) -> str:
    status, body, _ = get(server, path)
    assert status == 200, body
    return body


def test_the_sessions_page_lists_each_session_with_its_first_prompt(served):
    _, server = served
    body = page(server, "/")
    assert "href='/session?id=s1'" in body
    assert "first &lt;script&gt;" in body


def test_the_sessions_page_filters_by_client_by_the_session_id(served):
    vybe, server = served
    vybe.ok("session", "say", "claude:c1", "a prompt from claude code")
    vybe.ok("session", "say", "codex:x1", "a prompt from codex")
    claude = page(server, "/?client=claude")
    assert "claude:c1" in claude and "codex:x1" not in claude and "id=s1'" not in claude
    chat = page(server, "/?client=chat")
    assert "id=s1'" in chat and "claude:c1" not in chat and "codex:x1" not in chat
    every = page(server, "/")
    assert all(s in every for s in ("claude:c1", "codex:x1", "id=s1'"))


def started(location: str, sessions: dict[str, tuple[str | None, str | None]]) -> None:
    """Sessions started, each with one typed prompt, by (agent, project) as a hook does."""
    from vybe.store import open_store
    from vybe.store.record import MessageRow, Origin, append_message

    store = open_store(location)
    try:
        for sid, (agent, project) in sessions.items():
            row = MessageRow(sid, 0, "user", f"a prompt of {sid}")
            append_message(store, row, origin=Origin(agent, project))
    finally:
        store.close()


STARTED = {
    "claude:c1": ("claude", "/home/dev/one"),
    "gemini:g1": ("gem", "/home/dev/two"),
    "opencode:o1": ("opencode", "/home/dev/two"),
    "aider:a1": ("aider", "/home/dev/one"),
    "proxy:p1": (None, None),
}


def test_the_sessions_page_shows_each_sessions_agent_and_project_or_a_dash(served):
    vybe, server = served
    started(vybe.location, STARTED)
    body = page(server, "/")
    assert "<th>agent<th>project" in body
    claude = body[body.index("id=claude%3Ac1'") :].split("</tr>")[0]
    assert ">claude</a>" in claude and ">/home/dev/one</a>" in claude
    assert ">Claude Code</a>" in claude
    unknown = body[body.index("id=proxy%3Ap1'") :].split("</tr>")[0]
    assert "<td>-</td><td>-</td>" in unknown
    said = body[body.index("id=s1'") :].split("</tr>")[0]
    assert ">default</a>" in said  # `vybe session say` as the configured agent


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ("agent=gem", {"gemini:g1"}),
        ("project=/home/dev/two", {"gemini:g1", "opencode:o1"}),
        ("agent=aider&project=/home/dev/one", {"aider:a1"}),
        ("client=gemini", {"gemini:g1"}),
        ("client=opencode", {"opencode:o1"}),
        ("client=aider", {"aider:a1"}),
        ("client=proxy", {"proxy:p1"}),
        ("client=chat", {"s1"}),
        ("client=claude&project=/home/dev/two", set()),
    ],
)
def test_the_sessions_page_filters_by_agent_project_and_client(served, query, shown):
    vybe, server = served
    started(vybe.location, STARTED)
    body = page(server, f"/?{query}")
    listed = {sid for sid in [*STARTED, "s1"] if f"id={quote(sid, safe='')}'" in body}
    assert listed == shown, query


def test_the_filters_offer_every_agent_and_project_and_keep_the_one_chosen(served):
    vybe, server = served
    started(vybe.location, STARTED)
    body = page(server, "/?agent=gem&client=gemini")
    assert "<option selected>gem</option>" in body
    assert "<option value='gemini' selected>Gemini CLI</option>" in body
    for offered in ("claude", "aider", "default", "/home/dev/one", "/home/dev/two"):
        assert f"<option>{offered}</option>" in body
    # a link names an agent the store has none of: chosen, and nothing listed
    assert "<option selected>nobody</option>" in page(server, "/?agent=nobody")


def test_older_sessions_come_a_page_at_a_time_keeping_the_filters(served, monkeypatch):
    vybe, server = served
    started(vybe.location, STARTED)
    from vybe.actions import viewer

    monkeypatch.setattr(viewer.sessions, "__defaults__", (1,))
    first = page(server, "/?project=/home/dev/two")
    assert "id=opencode%3Ao1'" in first and "id=gemini%3Ag1'" not in first
    older = "href='/?before=opencode%3Ao1&amp;project=%2Fhome%2Fdev%2Ftwo'"
    assert older in first
    second = page(server, "/?before=opencode:o1&project=/home/dev/two")
    assert "id=gemini%3Ag1'" in second and "id=opencode%3Ao1'" not in second
    assert "older" not in second.split("</table>")[1]


def test_a_session_shows_its_timeline_checkpoint_and_a_marker_where_it_compacted(served):
    _, server = served
    body = page(server, "/session?id=s1")
    assert "rename the parser" in body and "after the checkpoint" in body
    assert "<h4>MIND</h4>" in body and "<h4>NOW</h4>" in body
    assert "class='mark'>compaction" in body
    assert "accepted" in body  # the checkpoint's receipt: its attempt and outcome
    assert INJECTED not in body and "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_a_checkpoint_shows_its_difference_from_the_one_before(served):
    vybe, server = served
    vybe.ok("session", "say", "s1", "now rename the lexer too")
    vybe.ok("session", "checkpoint", "s1", "--scripted")
    body = page(server, "/session?id=s1")
    assert "<section id='cp2'>" in body
    second = body.split("<section id='cp2'>", 1)[1].split("</section>", 1)[0]
    assert "difference from checkpoint 1" in second
    assert "<ins>+ " in second or "<del>- " in second
    assert "difference from" not in body.split("<section id='cp1'>", 1)[1].split("</section>")[0]


def test_a_client_compaction_shows_its_own_summary_beside_what_vybe_gave_back(served):
    vybe, server = served
    rollout = Path(__file__).parents[1] / "integrations/fixtures/codex/rollout-compact.jsonl"
    sid = vybe.ok("session", "import", "--codex-rollout", str(rollout))["session_id"]
    body = page(server, f"/session?id={sid}")
    receipts = body.split("<h2>Client compactions</h2>", 1)[1]
    assert receipts.count("codex's own summary</h4><pre>The session so far, summarised.") == 2
    assert "what vybe gave back" in receipts and "kept by the client" in receipts
    claude = page(server, "/session?id=s1")  # no client compaction there: no section
    assert "Client compactions" not in claude


def test_claude_codes_own_compaction_shows_its_summary_beside_what_vybe_gave_back(served):
    from tests.conftest import TRANSCRIPTS

    vybe, server = served
    compacted = TRANSCRIPTS / "claude-codemie-code-624a4a58-compaction.jsonl"
    sid = vybe.ok("session", "import", "--claude-transcript", str(compacted))["session_id"]
    body = page(server, f"/session?id={sid}")
    receipts = body.split("<h2>Client compactions</h2>", 1)[1]
    own = "claude's own summary</h4><pre>This session is being continued from a previous"
    assert receipts.count(own) == 1 and "not in the record" not in receipts


def test_each_client_compaction_shows_the_summary_nearest_it_of_its_own_client(served):
    """Claude Code writes its summary after the compaction its hooks' receipt opened before
    it; two compactions, and a Codex summary between them that is neither's."""
    from vybe.context.recorder import record_harness
    from vybe.integrations.importers import claude_transcript, codex_rollout
    from vybe.store import open_store
    from vybe.store.record import append_message

    class At:
        """The record, each row written at the time the test gives."""

        def __init__(self, store: Any, at: str) -> None:
            self.store, self.at = store, at

        def append(self, message: Any) -> Any:
            return append_message(self.store, message._replace(created_at=self.at))

    vybe, server = served
    store = open_store(vybe.location)
    said = [
        (claude_transcript.COMPACTION, "the first summary", "2026-08-01T10:00:05.000000Z"),
        (codex_rollout.COMPACTION, "codex's summary", "2026-08-01T11:00:00.000000Z"),
        (claude_transcript.COMPACTION, "the second summary", "2026-08-01T12:00:05.000000Z"),
    ]
    try:
        for dispatch, text, at in said:
            record_harness(At(store, at), "claude:two", dispatch, text)
        store.transact(
            lambda conn: conn.execute(
                "INSERT INTO compaction_receipts (session_id, agent_name, compactor, trigger,"
                " created_at) VALUES ('claude:two', 'claude', 'claude', 'auto', ?),"
                " ('claude:two', 'claude', 'claude', 'auto', ?)",
                ("2026-08-01T10:00:00.000000Z", "2026-08-01T12:00:00.000000Z"),
            )
        )
    finally:
        store.close()
    receipts = page(server, "/session?id=claude:two").split("<h2>Client compactions</h2>")[1]
    shown = [part.split("</pre>")[0] for part in receipts.split("own summary</h4><pre>")[1:]]
    assert shown == ["the first summary", "the second summary"]


def test_a_session_comes_a_page_at_a_time_from_a_linked_key(served, monkeypatch):
    _, server = served
    from vybe.actions import viewer

    monkeypatch.setattr(viewer.session, "__defaults__", (2,))
    body = page(server, "/session?id=s1")
    assert "id='m2'" in body and "id='m3'" not in body
    assert "href='/session?id=s1&amp;after=2'" in body
    assert "id='m3'" in page(server, "/session?id=s1&after=2")


def test_the_board_shows_tasks_by_status_the_holder_and_the_dependency_graph(served):
    vybe, server = served
    migrate, deploy = vybe.tasks
    body = page(server, "/tasks")
    assert "<h2>in progress</h2>" in body
    assert "held by bob, lease 9 min left" in body or "held by bob, lease 10 min left" in body
    assert "<svg" in body and "marker-end" in body
    assert f"href='#t-{migrate}'" in body and f"href='#t-{deploy}'" in body
    assert "deploy &lt;script&gt;" in body and INJECTED not in body


def test_the_board_comes_a_column_page_at_a_time_from_a_linked_key(served, monkeypatch):
    vybe, server = served
    from vybe.actions import viewer

    monkeypatch.setattr(viewer.tasks, "__defaults__", (None, None, 1))
    pending = (vybe.tasks[1], vybe.task("write the release notes", agent="alice"))
    board = page(server, "/tasks")
    more = board.split("href='/tasks?status=pending&amp;before=", 1)[1].split("'", 1)[0]
    assert "more pending" in board and "<h2>in progress</h2>" in board
    (shown,) = [t for t in pending if f"id='t-{t}'" in board]
    after = page(server, f"/tasks?status=pending&before={more}")
    assert "<h2>in progress</h2>" not in after  # that column alone, from the key on
    (rest,) = [t for t in pending if f"id='t-{t}'" in after]
    assert rest != shown and "more pending" not in after


def test_memory_and_events_pages_show_entries_and_filter(served):
    vybe, server = served
    migrate, _ = vybe.tasks
    assert "tabs not spaces" in page(server, "/memory?kind=directive")
    assert "tabs not spaces" not in page(server, "/memory?kind=lesson")
    mine = page(server, f"/events?task={migrate}")
    assert "claimed" in mine or "claim" in mine
    assert "deploy" not in page(server, "/events?agent=bob&kind=task_created")


def test_search_uses_the_engine_of_vybe_search_and_links_into_the_timeline(served):
    _, server = served
    body = page(server, "/search?q=parser")
    assert "<mark>parser</mark>" in body
    assert "href='/session?id=s1&amp;after=" in body


def test_a_search_the_engine_refuses_is_a_page_naming_its_error_code(served):
    _, server = served
    status, body, _ = get(server, "/search?q=" + "x" * 5000)
    assert status == 400 and "INVALID_INPUT" in body


def test_no_page_shows_private_text_or_a_planted_secret(served):
    from tests.privacy.planted import needles, planted

    vybe, server = served
    secrets_ = [(secret, line) for _, secret, line in planted()[::4]]
    for n, (_, line) in enumerate(secrets_):
        said = f"step {n}: {line} <private>the private word{n}</private> done"
        vybe.ok("session", "say", "s2", said)
        vybe.ok("memory", "set", "-k", f"k{n}", "-v", said, agent="alice")
    vybe.ok("task", "note", vybe.tasks[0], "--message", secrets_[0][1], agent="bob")
    shown = "".join(
        page(server, path)
        for path in ("/", "/session?id=s2", "/memory", "/events", "/search?q=step")
    )
    assert "step 1" in shown and "[REDACTED:" in shown
    assert "private word" not in shown
    assert not [n for secret, _ in secrets_ for n in needles(secret) if n in shown]


def test_every_page_sends_the_strict_policy_and_no_cors(served):
    _, server = served
    for path in ("/", "/session?id=s1", "/tasks", "/memory", "/events", "/search?q=x"):
        _, _, reply = get(server, path, Origin="http://evil.example")
        assert "script-src 'self'" in reply.getheader("Content-Security-Policy")
        assert "frame-ancestors 'none'" in reply.getheader("Content-Security-Policy")
        assert reply.getheader("Access-Control-Allow-Origin") is None


def test_no_route_writes_the_store(served):
    vybe, server = served
    before = vybe.dump()
    for path in ("/", "/session?id=s1", "/tasks", "/memory", "/events", "/search?q=parser"):
        page(server, path)
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        assert get(server, "/tasks", method=method)[0] == 405
    assert vybe.dump() == before


def test_the_store_it_opens_refuses_a_write(filled):
    opened = read_only_opener(filled.location)()
    try:
        with pytest.raises(Exception, match=r"(?i)read.only|readonly"), opened.snapshot() as conn:
            conn.execute("DELETE FROM memory")
    finally:
        opened.close()


def test_the_live_feed_sends_a_change_within_a_second_of_a_write(served):
    vybe, server = served
    where = urlsplit(server.url)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=5)
    conn.request("GET", f"/live?token={server.token}", headers={"Host": where.netloc})
    reply = conn.getresponse()
    assert reply.getheader("Content-Type") == "text/event-stream"
    assert reply.fp.readline() == b": open\n"
    reply.fp.readline()
    wrote = time.monotonic()
    vybe.ok("session", "say", "s1", "a new word")
    assert reply.fp.readline() == b"event: change\n"
    assert time.monotonic() - wrote < 1.0
    conn.close()


def test_a_closed_page_ends_its_live_feed_and_closes_its_store(served):
    _, server = served
    where = urlsplit(server.url)
    before = threading.active_count()
    for _ in range(5):  # five pages opened and closed on a quiet store
        conn = http.client.HTTPConnection(where.hostname, where.port, timeout=5)
        conn.request("GET", f"/live?token={server.token}", headers={"Host": where.netloc})
        assert conn.getresponse().fp.readline() == b": open\n"
        conn.close()
    deadline = time.monotonic() + 5
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert threading.active_count() <= before


def test_without_the_ui_extra_vybe_ui_names_the_missing_dependency(vybe, monkeypatch):
    monkeypatch.setitem(sys.modules, "jinja2", None)  # as if Jinja2 were not installed
    refused = vybe.refused("MISSING_DEPENDENCY", "ui", "--no-open")
    assert "vybe-memory[ui]" in refused.envelope["suggested_action"]
