"""The proxy's record: one writer thread appends every session's inputs and replies.

The handlers of the connections only queue what they saw; the writer owns the record (its
own store connection, opened in its thread) and appends in the order things were queued,
so a request's new inputs come before its reply, and a reply before the next request's
inputs. It writes through the engine's recorder (vybe.context.recorder), as the hooks and
the importers do, each row marked ``data["proxy"]`` with its input's key.

A session's rows are read once, when the proxy first sees the session: the keys of the
inputs recorded before (a proxy started again records nothing twice), and whether anyone
else records it (a row without the proxy's mark: the hooks of Claude Code or Codex, or an
import), in which case the proxy leaves the session to them.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from vybe.context.labels import Dispatch, harness_text, user_text
from vybe.context.record import MessageRow, Record
from vybe.context.recorder import record_harness, record_reply, record_tool, record_user
from vybe.llm.base import Reply, ToolCall
from vybe.proxy import scaffolding
from vybe.proxy.inputs import Item, items_of, keyed

MARK = "proxy"


class Marked:
    """The record, each appended row carrying the proxy's mark (and its input's key)."""

    def __init__(self, record: Record, mark: dict[str, Any]) -> None:
        self.record, self.mark = record, mark

    def append(self, message: MessageRow) -> MessageRow:
        return self.record.append(message._replace(data={**message.data, MARK: self.mark}))


class Seen:
    """What the proxy knows of one session: the keys recorded, the person's words there, and
    whether another writer records it."""

    def __init__(self, rows: list[MessageRow]) -> None:
        self.keys = {r.data[MARK].get("key") for r in rows if isinstance(r.data.get(MARK), dict)}
        self.texts = {r.text for r in rows if r.type in ("user", "harness")}
        self.foreign = any(not isinstance(r.data.get(MARK), dict) for r in rows)


class Writer:
    """The one thread that writes the record; ``open_record`` is called in it."""

    def __init__(self, open_record: Callable[[], Record], on_error: Callable[[str], None]) -> None:
        self.open_record, self.on_error = open_record, on_error
        self.jobs: queue.SimpleQueue[Callable[[Record], Any] | None] = queue.SimpleQueue()
        self.sessions: dict[str, Seen] = {}  # touched by the writer thread only
        # the folder each session's first request named (scaffolding.folder), where it did
        self.folders: dict[str, str | None] = {}
        self.thread = threading.Thread(target=self._run, name="vybe-proxy-writer", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        record = self.open_record()
        try:
            while (job := self.jobs.get()) is not None:
                try:
                    job(record)
                except Exception as error:  # one bad write must not stop the record
                    self.on_error(f"a write to the record failed ({type(error).__name__})")
        finally:
            close_record(record)

    def submit(self, job: Callable[[Record], Any]) -> None:
        self.jobs.put(job)

    def call(self, job: Callable[[Record], Any], timeout: float) -> Any:
        """Run ``job`` in the writer, after everything queued so far; its result (or its
        exception, raised here)."""
        future: Future[Any] = Future()

        def run(record: Record) -> None:
            try:
                future.set_result(job(record))
            except BaseException as error:  # handed to the caller, who judges it
                future.set_exception(error)

        self.submit(run)
        return future.result(timeout)

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until everything queued so far is written."""
        done = threading.Event()
        self.jobs.put(lambda record: done.set())
        return done.wait(timeout)

    def close(self) -> None:
        self.jobs.put(None)
        self.thread.join(30)

    def folder(self, session_id: str) -> str | None:
        """The folder the session's first request the proxy saw named (in the writer's
        thread, once that request's inputs are being written): a session it starts is in
        that folder's project."""
        return self.folders.get(session_id)

    def seen(self, record: Record, session_id: str) -> Seen:
        if session_id not in self.sessions:
            self.sessions[session_id] = Seen(record.messages(session_id))
        return self.sessions[session_id]

    def inputs(
        self,
        session_id: str,
        client: str,
        api: str,
        body: dict[str, Any],
        new: list[tuple[str, Item]],
        opening: bool,
    ) -> None:
        """Queue a request's new inputs (those already recorded are left out in the writer);
        ``opening``: the request holds no reply (a first request, or one after a compaction).
        A session the record does not hold yet gets the whole conversation of ``body``, its
        replies too (a session begun before the proxy was in the way), read here. A client's
        fixed scaffolding it sends with every request is recorded once, as it first came."""

        def write(record: Record) -> None:
            seen = self.seen(record, session_id)
            if seen.foreign:
                return
            if session_id not in self.folders:
                self.folders[session_id] = scaffolding.folder(body)
            for key, item in new if seen.keys else keyed(items_of(api, body)):
                fixed = opening or item.label in scaffolding.LABELS
                if key in seen.keys or (fixed and _resent(client, item, seen)):
                    continue
                row = _append(Marked(record, {"key": key}), session_id, client, item)
                seen.keys.add(key)
                seen.texts.add(row.text)

        self.submit(write)

    def reply(
        self,
        session_id: str,
        api: str,
        reply: Reply,
        cut: str | None,
        request: dict[str, Any] | None = None,
    ) -> None:
        """Queue a reply (as far as it came: ``cut`` says why it stopped short); ``request``:
        the rewritten request's estimate and checkpoint, which anchor the engine's next."""

        def write(record: Record) -> None:
            if self.seen(record, session_id).foreign or not (reply.text or reply.tool_calls):
                return
            data: dict[str, Any] = {"cut": cut} if cut else {}
            if request is not None:
                data["request"] = request
            if reply.usage is not None:
                data["usage"] = {
                    "input_tokens": reply.usage.input_tokens,
                    "output_tokens": reply.usage.output_tokens,
                }
            marked = Marked(record, {"api": api})
            text, calls = reply.text, reply.tool_calls
            if cut:
                text, calls = finished(text), tuple(_finished_call(c) for c in calls)
            record_reply(marked, session_id, text, calls, data)

        self.submit(write)


def finished(text: str) -> str:
    """A reply's text that stopped inside a word (the stream ended early), without that
    word: a secret cut in two is one no rule knows by its shape (``ghp_`` and 16 of its 36
    characters), and what the word was is not known anyway."""
    if not text or text[-1].isspace():
        return text
    return text[: len(text) - len(text.split()[-1])] + "…"


def _finished_call(call: ToolCall) -> ToolCall:
    """A tool call whose arguments stopped short (kept as ``_raw``, unparsed), without the
    word they stopped inside."""
    raw = call.arguments.get("_raw")
    if not isinstance(raw, str):
        return call
    return ToolCall(call.id, call.name, {**call.arguments, "_raw": finished(raw)})


def _resent(client: str, item: Item, seen: Seen) -> bool:
    """An input a client resends after its compaction, with no reply before it (Codex keeps
    the user's messages verbatim, and sends its instructions and context again), that the
    record already holds."""
    if item.kind == "user":
        return user_text("user", item.text) in seen.texts
    return item.kind == "harness" and harness_text(_dispatch(client, item), item.text) in seen.texts


def _dispatch(client: str, item: Item) -> Dispatch:
    return Dispatch("context", client, item.label)


def _append(record: Marked, session_id: str, client: str, item: Item) -> MessageRow:
    if item.kind == "assistant":
        calls = [ToolCall(i, n, a) for i, n, a in item.calls]
        return record_reply(record, session_id, item.text, calls)
    if item.kind == "user":
        return record_user(record, session_id, item.text)
    if item.kind == "harness":
        return record_harness(record, session_id, _dispatch(client, item), item.text)
    return record_tool(record, session_id, ToolCall(item.call_id, item.name, {}), item.text)


def close_record(record: Any) -> None:
    """Close the store a record was opened on (the writer's, a checkpoint's)."""
    close = getattr(getattr(record, "store", None), "close", None)
    if close is not None:
        close()
