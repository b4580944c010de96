"""The reply of one relayed request, rebuilt from the bytes that went to the client.

A streamed reply (server-sent events) is folded by the model adapters' own folds
(Anthropic Messages, Chat Completions, Responses, Gemini): its pieces are kept as they pass and
folded once the last went out (or at every ``FOLD_AT`` bytes), so no piece waits for
parsing and a reply cut short is known as far as it came; a whole JSON reply is parsed at
its end by the adapters' ``parse``, up to ``WHOLE_LIMIT`` bytes (a larger one is recorded as
too large, never held whole).
"""

from __future__ import annotations

import json
from typing import Any

from vybe.llm import anthropic, gemini, openai_compat, responses, sse
from vybe.llm.base import Reply
from vybe.llm.http import Broken
from vybe.proxy import wire

WHOLE_LIMIT = 8 * 1024 * 1024
# Streamed pieces are kept and folded after the last one went out (the client's next piece
# waits for no parsing), or whenever this much is kept.
FOLD_AT = 1024 * 1024
LINE_LIMIT = 8 * 1024 * 1024
# What reading hostile JSON may raise (a wrong type where a list was, text that is not
# UTF-8, nesting past the recursion limit, a broken stream).
UNREADABLE = (
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    AttributeError,
    RecursionError,
    Broken,
)
PARSE = {
    wire.ANTHROPIC: anthropic.parse,
    wire.CHAT: openai_compat.parse,
    wire.RESPONSES: responses.parse,
    wire.GEMINI: gemini.parse,
}


class Events:
    """Server-sent events from bytes that arrive in arbitrary pieces: each complete event
    (up to its blank line) is read by the adapters' own reader (vybe.llm.sse)."""

    def __init__(self) -> None:
        self.rest = b""

    def feed(self, piece: bytes) -> list[sse.Event]:
        joined = (self.rest + piece).replace(b"\r\n", b"\n")
        complete, mark, self.rest = joined.rpartition(b"\n\n")
        if len(self.rest) > LINE_LIMIT:
            raise Broken("an event over its limit")
        if not mark:
            return []
        return list(sse.events(complete.decode("utf-8", errors="replace").split("\n")))


class Fold:
    """One API's fold: ``add`` each event, ``reply`` what came, ``whole`` once it ended."""

    def __init__(self, api: str) -> None:
        self.api = api
        self.ended = False
        if api == wire.ANTHROPIC:
            self.fold: Any = anthropic.Fold(None)
        elif api == wire.CHAT:
            self.fold = openai_compat.Fold(None)
        elif api == wire.GEMINI:
            self.fold = gemini.Fold(None)
        else:
            self.fold = responses.Fold(None)

    def add(self, name: str, data: str) -> None:
        if self.api == wire.CHAT and data.strip() == "[DONE]":
            self.ended = True
            return
        event = json.loads(data)
        if not isinstance(event, dict):
            return
        if self.api == wire.GEMINI:  # each event a whole response with the next parts
            self.fold.add(event)
            self.ended = self.fold.finished
            return
        kind = str(event.get("type") or name)
        if self.api == wire.ANTHROPIC:
            if kind == "message_stop":
                self.ended = True
            elif kind != "error":
                self.fold.add(kind, event)
        elif self.api == wire.CHAT:
            self.fold.add(event)
        else:
            self.fold.add(kind, event)
            self.ended = self.fold.finished

    def reply(self) -> Reply:
        return PARSE[self.api](self.fold.body())


class Tee:
    """Watches one reply go by; ``result`` says what it was once the relay is done."""

    def __init__(self, api: str) -> None:
        self.api = api
        self.streamed: bool | None = None
        self.events = Events()
        self.fold = Fold(api)
        self.whole: list[bytes] = []
        self.size = 0
        self.kept: list[bytes] = []
        self.kept_size = 0
        self.broken: str | None = None

    def piece(self, data: bytes) -> None:
        if self.broken:
            return
        if self.streamed is None:
            self.streamed = not data.lstrip().startswith((b"{", b"["))
        try:
            if self.streamed:
                self.kept.append(data)
                self.kept_size += len(data)
                if self.kept_size >= FOLD_AT:
                    self._fold_kept()
            else:
                self.size += len(data)
                if self.size > WHOLE_LIMIT:
                    self.broken, self.whole = "the reply was too large to record", []
                else:
                    self.whole.append(data)
        except UNREADABLE as error:
            self.broken = f"the reply could not be read ({type(error).__name__})"

    def _fold_kept(self) -> None:
        kept, self.kept, self.kept_size = b"".join(self.kept), [], 0
        for event in self.events.feed(kept):
            self.fold.add(event.name, event.data)

    def result(self, cut: str | None) -> tuple[Reply, str | None]:
        """The reply as far as it came, and why it is not whole (None when it is)."""
        if self.streamed and not self.broken:
            try:
                self._fold_kept()
            except UNREADABLE as error:
                self.broken = f"the reply could not be read ({type(error).__name__})"
        if self.broken:
            return Reply(""), self.broken
        try:
            if self.streamed is False:
                body = json.loads(b"".join(self.whole))
                self.whole = []
                return PARSE[self.api](body if isinstance(body, dict) else {}), cut
            reply = self.fold.reply()
        except UNREADABLE as error:
            return Reply(""), cut or f"the reply could not be read ({type(error).__name__})"
        if cut is None and self.streamed and not self.fold.ended:
            cut = "the stream ended early"
        return reply, cut
