"""`vybe ui` in a real headless Chromium (Debian's, under Playwright): the pages a person
opens, stepping to a checkpoint, searching, a live update arriving without a reload, and
the refusals a hostile page would meet. Skipped where Chromium or playwright is missing;
`make test-ui` installs them and always runs these."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.ui.browser import launched, missing
from tests.ui.conftest import INJECTED
from vybe.cli.ui import read_only_opener
from vybe.ui.server import Viewer

# `make test-ui` sets VYBE_UI_BROWSER=required: there a missing browser fails, never skips.
if missing() and os.environ.get("VYBE_UI_BROWSER") == "required":
    raise RuntimeError(missing())
pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")


@pytest.fixture(scope="module")
def chromium_process() -> Iterator[Any]:
    """One Chromium for the file (a start costs about a second of CPU); every test has a
    context of its own in it, as fresh as a new profile."""
    # evil.example resolves to this machine, as a rebinding attacker's name would.
    with launched("--host-resolver-rules=MAP evil.example 127.0.0.1") as started:
        yield started


@pytest.fixture
def browser(filled: Any, chromium_process: Any) -> Iterator[tuple[Any, Viewer, Any]]:
    server = Viewer(("127.0.0.1", 0), read_only_opener(filled.location))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    context = chromium_process.new_context()
    try:
        yield filled, server, context.new_page()
    finally:
        context.close()
        server.shutdown()
        server.server_close()
        thread.join()


def base(server: Viewer) -> str:
    where = urlsplit(server.url)
    return f"{where.scheme}://{where.netloc}"


def test_the_sessions_list_opens_with_the_token_and_then_by_cookie(browser):
    _, server, tab = browser
    tab.goto(server.url)
    assert tab.locator("h1").inner_text() == "Sessions"
    tab.goto(base(server) + "/tasks")  # no token in the address: the cookie carries it
    assert tab.locator("h1").inner_text() == "Tasks"


def test_a_session_opens_from_the_list_and_steps_to_a_checkpoint(browser):
    _, server, tab = browser
    tab.goto(server.url)
    tab.click("a[href='/session?id=s1']")
    assert tab.locator("h1").inner_text() == "Session s1"
    tab.click(".mark a")  # the compaction marker's link to its checkpoint
    assert tab.url.endswith("#cp1")
    assert tab.locator("#cp1 h4").first.inner_text() == "MIND"
    assert tab.locator("#cp1").is_visible()


def test_the_sessions_list_filters_by_agent_and_project_and_keeps_them(browser):
    from tests.ui.test_pages import STARTED, started

    vybe, server, tab = browser
    started(vybe.location, STARTED)
    tab.goto(server.url)
    tab.select_option("select[name=project]", "/home/dev/two")
    tab.click("#filters button")
    rows = tab.locator("table tr td:first-child").all_inner_texts()
    assert sorted(rows) == ["gemini:g1", "opencode:o1"]
    assert "project=%2Fhome%2Fdev%2Ftwo" in tab.url
    tab.click("td a:text-is('gem')")  # the row's agent: that filter too, the project kept
    assert tab.locator("table tr td:first-child").all_inner_texts() == ["gemini:g1"]
    assert tab.locator("select[name=agent]").input_value() == "gem"
    assert tab.locator("select[name=project]").input_value() == "/home/dev/two"


def test_recorded_script_shows_as_text_and_never_runs(browser):
    _, server, tab = browser
    dialogs: list[str] = []
    tab.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    tab.goto(server.url)
    tab.goto(base(server) + "/session?id=s1")
    assert INJECTED in tab.locator("#m1 pre").inner_text()
    tab.goto(base(server) + "/tasks")
    assert INJECTED in tab.locator(".board").inner_text()
    assert dialogs == []


def test_a_search_from_the_box_links_into_the_timeline(browser):
    _, server, tab = browser
    tab.goto(server.url)
    tab.fill("input[name=q]", "parser")
    tab.press("input[name=q]", "Enter")
    tab.wait_for_selector("ol li mark")
    assert tab.locator("ol li mark").first.inner_text().lower() == "parser"
    tab.click("ol li a")
    assert tab.locator("h1").inner_text() == "Session s1"
    assert "rename the parser" in tab.locator("main").inner_text()


def test_a_session_page_shows_a_new_message_without_a_reload(browser):
    vybe, server, tab = browser
    tab.goto(server.url)
    tab.goto(base(server) + "/session?id=s1")
    tab.evaluate("window.stayed = true")  # gone if the page reloads
    tab.wait_for_timeout(300)  # the feed is open
    vybe.ok("session", "say", "s1", "a word the agent just wrote")
    tab.wait_for_selector("text=a word the agent just wrote", timeout=1000)
    assert tab.evaluate("window.stayed") is True


def test_the_board_shows_a_new_task_without_a_reload(browser):
    vybe, server, tab = browser
    tab.goto(server.url)
    tab.goto(base(server) + "/tasks")
    tab.wait_for_timeout(300)
    vybe.task("a task made just now", agent="carol")
    tab.wait_for_selector("text=a task made just now", timeout=1000)


def test_without_the_token_the_browser_gets_403(browser):
    _, server, tab = browser
    reply = tab.goto(base(server) + "/")
    assert reply.status == 403
    assert "Sessions" not in tab.content()


def test_a_name_rebound_to_this_machine_is_refused_by_its_host(browser):
    _, server, tab = browser
    port = urlsplit(server.url).port
    reply = tab.goto(f"http://evil.example:{port}/?token={server.token}")
    assert reply.status == 421
    assert "Sessions" not in tab.content()
