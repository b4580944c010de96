"""What the proxy does with the traffic it relays: it records each session.

For each request that asks for a reply, the request's new inputs are queued for the writer
(vybe.proxy.writer) before it is relayed, and a tee rebuilds the reply as it passes; when
the relay is done the reply is queued too, whole or as far as it came. A reply with an
error status is not recorded (the client sends the request again, and its inputs are
recorded once). Nothing of a request's headers is read but the session's name.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from vybe.context.engine import Prepared
from vybe.context.record import Record
from vybe.context.types import check_session_id
from vybe.errors import InvalidInput, VybeError
from vybe.proxy import compaction, inputs, wire
from vybe.proxy import upstream as upstreams
from vybe.proxy.relay import Answer, note
from vybe.proxy.rewrite import Rewriter
from vybe.proxy.tee import UNREADABLE, Tee
from vybe.proxy.writer import Writer, close_record

WAIT = 30.0  # seconds a compaction waits for the session's earlier writes
REBUILD = 900.0  # seconds a rebuild may take (its checkpoint turn calls the model)
CLIENTS = {"claude": "claude", "codex": "codex", "aider": "aider", "gemini": "gemini"}


def client_of(session_id: str) -> str:
    """Who the session's client is, as the harness inputs' source lines name it."""
    return CLIENTS.get(session_id.split(":", 1)[0], "client")


class Step:
    """A point in a session's order of writes: what waits for it runs once it is passed."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.passed = False
        self.waiting: list[Callable[[], None]] = []
        self.event = threading.Event()

    def then(self, job: Callable[[], None]) -> None:
        with self.lock:
            if not self.passed:
                self.waiting.append(job)
                return
        job()

    def passing(self) -> None:
        with self.lock:
            self.passed, waiting, self.waiting = True, self.waiting, []
        for job in waiting:
            job()
        self.event.set()

    def wait(self, timeout: float) -> bool:
        return self.event.wait(timeout)


class Recording:
    """One relayed reply on its way to the record. A session's writes are queued in order:
    a request's inputs after the reply before it (the client had that reply whole before it
    asked again, perhaps on another connection, a moment before the relay queued it), and
    its reply after its inputs."""

    def __init__(self, writer: Writer, session_id: str, api: str) -> None:
        self.writer, self.session_id, self.api = writer, session_id, api
        self.tee = Tee(api)
        self.inputs_queued, self.reply_queued = Step(), Step()
        self.rewrite: Callable[[bytes], tuple[bytes, dict[str, Any]]] | None = None
        self.facts: dict[str, Any] | None = None  # the rewritten request's, for the reply

    def request(self, body: bytes) -> bytes:
        """The body to send upstream: the client's, or in rewrite mode the engine's rebuild
        (the client's when the rebuild failed: the upstream judges it)."""
        if self.rewrite is None:
            return body
        try:
            rebuilt, self.facts = self.rewrite(body)
        except (VybeError, TimeoutError, *UNREADABLE) as error:
            note(f"{self.session_id}: relayed as the client sent it ({type(error).__name__})")
            return body
        return rebuilt

    def piece(self, data: bytes) -> None:
        self.tee.piece(data)

    def done(self, status: int, headers: dict[str, str], cut: str | None) -> None:
        ok = 200 <= status < 300
        reply, why = self.tee.result(cut) if ok else (None, None)

        def queue() -> None:
            if reply is not None:
                self.writer.reply(self.session_id, self.api, reply, why, self.facts)
            self.reply_queued.passing()

        self.inputs_queued.then(queue)


class Recorder:
    """The proxy's observer: every session it sees goes into the record."""

    def __init__(
        self, writer: Writer, upstream: str = "", rewriter: Rewriter | None = None
    ) -> None:
        """``upstream`` (its base URL) and ``rewriter``: rewrite mode (vybe.proxy.rewrite)."""
        self.writer, self.upstream, self.rewriter = writer, upstream, rewriter
        self.latest: dict[str, Recording] = {}  # each session's newest reply
        self.lock = threading.Lock()

    def exchange(self, api: str, path: str, headers: Any, body: dict[str, Any]) -> Recording | None:
        """A tee for the reply; None (relayed, not recorded) for a request with no session or
        of a shape the proxy cannot read."""
        try:
            return self._exchange(api, path, headers, body)
        except UNREADABLE as error:
            note(f"a request the proxy cannot read was relayed unrecorded ({type(error).__name__})")
            return None

    def _exchange(
        self, api: str, path: str, headers: Any, body: dict[str, Any]
    ) -> Recording | None:
        if not wire.is_generation(path):
            return None
        session_id = _session(api, headers, body)
        if session_id is None:
            return None
        client = compaction.client_of(api, path, body)
        if client == compaction.AIDER:
            return None  # its summary comes back as a harness input of the next request
        conversation = compaction.without_prompt(client, body) if client else body
        recording = self._begin(api, session_id, conversation)
        if self.rewriter is not None and not client:
            recording.rewrite = self._rewrite(recording, api, path, headers, body)
        return recording

    def _rewrite(
        self, recording: Recording, api: str, path: str, headers: Any, body: dict[str, Any]
    ) -> Callable[[bytes], tuple[bytes, dict[str, Any]]]:
        """How this request is rebuilt once its inputs are in the record."""
        rewriter = self.rewriter
        assert rewriter is not None
        base = upstreams.base_of(self.upstream, path)
        name = upstreams.model_name(path, body)
        session_id = recording.session_id

        def prepare(record: Record) -> Prepared:
            """The engine's request (in the writer's thread), its model closed after it."""
            model = upstreams.model_for(api, base, name, headers)
            try:
                return rewriter.prepare(record, session_id, api, body, model)
            finally:
                model.transport.close()

        def rebuild(_: bytes) -> tuple[bytes, dict[str, Any]]:
            if not recording.inputs_queued.wait(WAIT):
                raise TimeoutError
            prepared = self.writer.call(prepare, REBUILD)
            facts = {"tokens": prepared.tokens, "checkpoint_id": prepared.checkpoint_id}
            return upstreams.rewritten(api, body, prepared.request), facts

        return rebuild

    def _begin(self, api: str, session_id: str, body: dict[str, Any]) -> Recording:
        """Queue the request's new inputs in the session's order; its reply is the tee's."""
        tail = inputs.tail_of(api, body)
        new, opening = inputs.new_inputs(tail), inputs.opening(tail)
        recording = Recording(self.writer, session_id, api)
        with self.lock:
            previous = self.latest.get(session_id)
            self.latest[session_id] = recording

        def queue() -> None:
            self.writer.inputs(session_id, client_of(session_id), api, body, new, opening)
            recording.inputs_queued.passing()

        if previous is None:
            queue()
        else:
            previous.reply_queued.then(queue)
        return recording

    def settle(self, timeout: float) -> bool:
        """Wait (at most ``timeout`` seconds in all) until every reply in flight is queued for
        the writer: a session's newest reply is queued after all its earlier writes."""
        deadline = time.monotonic() + timeout
        with self.lock:
            newest = list(self.latest.values())
        return all(r.reply_queued.wait(max(deadline - time.monotonic(), 0)) for r in newest)

    def answer(
        self, api: str, path: str, headers: Any, body: dict[str, Any], upstream: str
    ) -> Answer | None:
        """The client's compaction, answered with a checkpoint; None for any other request,
        and for a compaction whose checkpoint failed (relayed then, as it came)."""
        try:
            client = compaction.client_of(api, path, body)
            session_id = _session(api, headers, body) if client else None
        except UNREADABLE:
            return None  # exchange() says so
        if client is None or session_id is None:
            return None
        recording = self._begin(api, session_id, compaction.without_prompt(client, body))
        try:
            if not (recording.inputs_queued.wait(WAIT) and self.writer.flush(WAIT)):
                return None
            base = upstreams.base_of(upstream, path)
            name = upstreams.model_name(path, body)
            model = upstreams.model_for(compaction.API[client], base, name, headers)
            record = self.writer.open_record()
            try:
                text = compaction.checkpoint(record, session_id, client, model, body)
            finally:
                close_record(record)
                model.transport.close()
        except VybeError as error:
            note(f"the checkpoint of {session_id} failed ({error.code}); the client's own ran")
            return None
        finally:
            recording.reply_queued.passing()
        if text is None:
            note(f"the checkpoint of {session_id} was not accepted; the client's own ran")
            return None
        note(f"answered the compaction of {session_id} with a vybe checkpoint")
        return compaction.answer(client, text, session_id, body, path)


def _session(api: str, headers: Any, body: dict[str, Any]) -> str | None:
    """The request's session, or None when it has none the record can take (relayed, not
    recorded)."""
    try:
        return check_session_id(wire.session_of(api, headers, body))
    except InvalidInput:
        return None
