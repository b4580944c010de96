"""A session forgotten (vybe forget) stays forgotten when its client sends the history again
through the proxy: the markers keep the proxy's keys, so only what is new is recorded."""

from __future__ import annotations

from tests.fakes.servers import FakeServer, anthropic_reply, scripted
from tests.proxy.talk import post
from tests.proxy.test_record import CLAUDE, HEADERS, claude_body, said, user
from vybe.actions.forget import Selection, forget
from vybe.store import open_store

PROMPT = "Mission: rotate the key 5521-heron. Never touch prod."


def _send(proxy, messages: list[dict]) -> None:
    _, response = post(proxy.url, "/v1/messages", claude_body(messages), HEADERS)
    assert response.status == 200
    response.read()


def test_a_forgotten_session_resent_through_the_proxy_records_only_what_is_new(
    recorded, store_location
):
    first = [user(PROMPT)]
    second = [*first, said("Rotating."), user("and now the next one")]
    session = f"claude:{CLAUDE}"
    with FakeServer(scripted([anthropic_reply("Rotating."), anthropic_reply("Next.")])) as up:
        proxy = recorded(up.url)
        _send(proxy, first)
        assert len(proxy.rows(session, 2)) == 2
        proxy.close()

        store = open_store(store_location)
        assert forget(store, Selection(session=session))["forgotten"]["messages"] == 2
        store.close()

        again = recorded(up.url)  # a proxy started again reads the session's keys anew
        _send(again, second)
        rows = again.rows(session, 4)
    assert [(r.type, r.text) for r in rows] == [
        ("user", "[forgotten]"),
        ("assistant", "[forgotten]"),
        ("user", "and now the next one"),
        ("assistant", "Next."),
    ]
