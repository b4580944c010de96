"""A recording proxy in front of a fake model server, on a real store."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.proxy.talk import close_opened
from vybe.proxy.recorder import Recorder
from vybe.proxy.relay import Options, ProxyServer
from vybe.proxy.rewrite import Rewriter
from vybe.proxy.writer import Writer
from vybe.store import open_store
from vybe.store.record import SqliteRecord


class Recorded:
    """A proxy relaying to ``upstream`` and recording into the test's store."""

    def __init__(
        self, location: str, upstream: str, rewriter: Rewriter | None = None, **options: Any
    ) -> None:
        self.location = location
        self.notes: list[str] = []
        self.writer = Writer(lambda: SqliteRecord(open_store(location)), self.notes.append)
        recorder = Recorder(self.writer, upstream, rewriter)
        self.server = ProxyServer(Options(upstream, **options), observer=recorder)
        self.server.start()
        self.reader = open_store(location)
        self.record = SqliteRecord(self.reader)

    @property
    def url(self) -> str:
        return self.server.url

    def rows(self, session_id: str, count: int, wait: float = 10.0) -> list[Any]:
        """The session's rows once ``count`` are written (the proxy queues a reply just after
        its last byte reached the client), and a moment more for any row too many."""
        deadline = time.monotonic() + wait
        while True:
            assert self.writer.flush()
            rows = self.record.messages(session_id)
            if len(rows) >= count:
                break
            assert time.monotonic() < deadline, f"{len(rows)} rows of {count}: {rows}"
            time.sleep(0.02)
        time.sleep(0.1)
        assert self.writer.flush()
        return self.record.messages(session_id)

    def close(self) -> None:
        self.server.close()
        self.writer.close()
        self.reader.close()


@pytest.fixture
def recorded(store_location: str) -> Iterator[Callable[..., Recorded]]:
    made: list[Recorded] = []

    def make(upstream: str, rewriter: Rewriter | None = None, **options: Any) -> Recorded:
        made.append(Recorded(store_location, upstream, rewriter, **options))
        return made[-1]

    yield make
    for proxy in made:
        proxy.close()


@pytest.fixture(autouse=True)
def closes_its_clients() -> Iterator[None]:
    """Every client connection a test opened with ``talk.post`` is closed when it ends."""
    yield
    close_opened()
