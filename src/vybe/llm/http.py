"""One JSON POST or one event stream with retries, shared by both wire formats, so they
fail the same way.

Retries back off exponentially with jitter on 429, 5xx, timeouts, dropped connections and
streams cut short, and honour ``Retry-After``. A context-length refusal becomes
``ContextLengthExceeded`` (the engine's overflow ladder handles it); every other failure is
a ``ModelError`` that says what happened. httpx is imported here only, never at a CLI
module's top level.
"""

from __future__ import annotations

import json
import os
import random
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, NoReturn, Protocol, TypeVar

from vybe.errors import ModelError
from vybe.llm.base import ContextLengthExceeded, Reply, Watch, shown
from vybe.llm.sse import Event, events

T = TypeVar("T")
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
NO_RETRY_CODES = frozenset({"insufficient_quota", "billing_hard_limit_reached"})
OVERFLOW_TYPES = frozenset({"exceed_context_size_error", "request_too_large"})
OVERFLOW_TEXT = re.compile(
    r"context[_ ]length|context window|maximum context|prompt is too long|input is too long"
    r"|exceeds? (?:the )?(?:available )?context|exceed context limit|too many (?:input )?tokens"
    r"|reduce the length of the (?:messages|prompt)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a request is retried."""

    attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 120.0
    timeout: float = 600.0
    connect_timeout: float = 10.0

    def delay(self, attempt: int, hinted: float | None) -> float:
        """The pause before retry ``attempt`` (0-based): the server's hint, else backoff."""
        if hinted is not None:
            return min(max(hinted, 0.0), self.max_retry_after)
        pause: float = min(self.max_delay, self.base_delay * 2**attempt) * random.uniform(0.5, 1.0)
        return pause


@dataclass(frozen=True)
class Failure:
    """A non-2xx answer: its status, the provider's error fields and the raw text."""

    status: int
    message: str
    type: str
    code: str
    retry_after: float | None

    @property
    def overflow(self) -> bool:
        if self.code == "context_length_exceeded" or self.type in OVERFLOW_TYPES:
            return True
        return self.status in (400, 413, 422, 500) and bool(OVERFLOW_TEXT.search(self.message))

    @property
    def retryable(self) -> bool:
        return self.status in RETRY_STATUSES and self.code not in NO_RETRY_CODES


def retry_after(headers: Any) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms``, or ``Retry-After`` secs/date)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return float(millis) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(value).timestamp() - time.time()
    except (TypeError, ValueError):
        return None


def _failure(response: Any) -> Failure:
    text = response.text
    try:
        body = response.json()
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        message = str(error.get("message") or text)
        kind, code = str(error.get("type") or ""), str(error.get("code") or "")
    else:
        message, kind, code = (str(error) if error else text.strip()[:500]), "", ""
    return Failure(response.status_code, message, kind, code, retry_after(response.headers))


def _raise_final(failure: Failure, provider: str, url: str) -> NoReturn:
    context = {"provider": provider, "url": url, "status": failure.status}
    if failure.code:
        context["code"] = failure.code
    if failure.overflow:
        raise ContextLengthExceeded(
            f"{provider} refused the request as too long: {failure.message}", context=context
        )
    if failure.status in (401, 403):
        raise ModelError(
            f"{provider} rejected the API key ({failure.status}): {failure.message}",
            context=context,
            suggested_action="check the key in the variable named by --api-key-env",
        )
    if failure.status == 404:
        raise ModelError(
            f"{provider} has no such model or endpoint (404): {failure.message}",
            context=context,
            suggested_action="check --model and --base-url",
        )
    raise ModelError(
        f"{provider} request failed ({failure.status}): {failure.message}", context=context
    )


class Broken(Exception):
    """A streamed reply that stopped short: cut off, unreadable, or an error event in a 200.

    ``failure`` is the error the stream carried, judged like a non-2xx answer; without one
    the stream was cut and is retried like a dropped connection.
    """

    def __init__(self, reason: str, failure: Failure | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.failure = failure


def event_json(data: str) -> dict[str, Any]:
    """One event's data as a JSON object; anything else is a broken stream."""
    try:
        parsed = json.loads(data)
    except ValueError:
        raise Broken(f"an unreadable event in the stream: {data[:120]!r}") from None
    if not isinstance(parsed, dict):
        raise Broken(f"an event that is not a JSON object: {data[:120]!r}")
    return parsed


class NotStreamed(Exception):
    """The server answered a streaming request with one whole JSON body: it cannot stream,
    but the answer is here and complete."""

    def __init__(self, body: dict[str, Any]) -> None:
        super().__init__("the server answered with one JSON body, not an event stream")
        self.body = body


class _Again(Exception):
    """One attempt failed in a way worth retrying; ``hinted`` is the server's Retry-After."""

    def __init__(self, reason: str, hinted: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.hinted = hinted


def _describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


# The TLS context of every client in the process, per CA setting (httpx reads these two
# variables): loading the CA bundle costs ~20 ms of CPU, which `vybe proxy` would otherwise
# pay for every checkpoint it asks a model for, and each chat turn's client again.
_TLS: dict[tuple[str | None, str | None], Any] = {}


def _tls(httpx: Any) -> Any:
    key = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    if key not in _TLS:
        _TLS[key] = httpx.create_ssl_context()
    return _TLS[key]


class Transport:
    """An HTTP client for one provider: JSON in, JSON or events out, retries inside.

    The read timeout bounds each wait for bytes, so on a stream it is the longest silence
    allowed between two chunks, however long the whole reply takes.
    """

    def __init__(self, provider: str, headers: dict[str, str], policy: RetryPolicy) -> None:
        import httpx

        self.provider = provider
        self.policy = policy
        self._httpx = httpx
        self.client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(policy.timeout, connect=policy.connect_timeout),
            verify=_tls(httpx),
        )

    def post(self, url: str, payload: dict[str, Any], watch: Watch | None = None) -> dict[str, Any]:
        """POST ``payload``; the parsed JSON reply, after retries, or a ModelError."""
        return self._retrying(url, lambda: self._post_once(url, payload), watch)

    def stream(
        self,
        url: str,
        payload: dict[str, Any],
        read: Callable[[Iterator[Event]], T],
        watch: Watch | None = None,
    ) -> T:
        """POST ``payload`` and hand its events to ``read``; a stream that breaks is retried.

        ``read`` raises ``Broken`` when the events stop short. Each attempt is a new stream
        read by a new call of ``read``, so nothing of a broken attempt reaches the result.
        """
        return self._retrying(url, lambda: self._stream_once(url, payload, read), watch)

    def _retrying(self, url: str, once: Callable[[], T], watch: Watch | None) -> T:
        last = ""
        for attempt in range(self.policy.attempts):
            try:
                return once()
            except _Again as again:
                last, hinted = again.reason, again.hinted
            if attempt + 1 < self.policy.attempts:
                if watch is not None:
                    watch.retry(last)
                time.sleep(self.policy.delay(attempt, hinted))
        raise ModelError(
            f"{self.provider} request failed after {self.policy.attempts} attempts: {last}",
            context={"provider": self.provider, "url": url},
            suggested_action="check that the server is up and reachable, then retry",
        )

    def _post_once(self, url: str, payload: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self.client.post(url, json=payload)
        except self._httpx.TransportError as exc:
            raise _Again(_describe(exc)) from None
        if not response.is_success:
            self._judge(_failure(response), url)
        return self._json(response, url)

    def _stream_once(
        self, url: str, payload: dict[str, Any], read: Callable[[Iterator[Event]], T]
    ) -> T:
        try:
            with self.client.stream("POST", url, json=payload) as response:
                if not response.is_success:
                    response.read()
                    self._judge(_failure(response), url)
                self._expect_events(response, url)
                return read(events(response.iter_lines()))
        except self._httpx.TransportError as exc:
            raise _Again(_describe(exc)) from None
        except Broken as broken:
            if broken.failure is not None:
                self._judge(broken.failure, url)
            raise _Again(broken.reason) from None

    def _judge(self, failure: Failure, url: str) -> NoReturn:
        """Raise the final error for ``failure``, or ``_Again`` when it is worth a retry."""
        if failure.overflow or not failure.retryable:
            _raise_final(failure, self.provider, url)
        raise _Again(f"{failure.status}: {failure.message}", failure.retry_after)

    def _expect_events(self, response: Any, url: str) -> None:
        """A server that ignores ``stream`` answers with one JSON body: that is the reply."""
        if response.headers.get("content-type", "").startswith("application/json"):
            response.read()
            raise NotStreamed(self._json(response, url))

    def _json(self, response: Any, url: str) -> dict[str, Any]:
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise ModelError(
                f"{self.provider} answered with something that is not a JSON object",
                context={"provider": self.provider, "url": url, "body": response.text[:300]},
            )
        return body

    def probe(self, url: str) -> None:
        """Reach the server once, before any turn: unreachable or a refused key is an error."""
        try:
            response = self.client.get(url, timeout=self.policy.connect_timeout)
        except self._httpx.TransportError as exc:
            raise ModelError(
                f"cannot reach {self.provider} at {url}: {type(exc).__name__}: {exc}",
                context={"provider": self.provider, "url": url},
                suggested_action="start the server or fix --base-url",
            ) from None
        if response.status_code in (401, 403):
            _raise_final(_failure(response), self.provider, url)

    def close(self) -> None:
        self.client.close()


class Folds(Protocol):
    """A fold of one streamed reply: its events in, the whole body out."""

    def read(self, stream: Iterator[Event]) -> dict[str, Any]: ...


def ask(
    model: Any,
    url: str,
    body: dict[str, Any],
    fold: Callable[[Watch | None], Folds],
    parse: Callable[[dict[str, Any]], Reply],
    watch: Watch | None,
) -> Reply:
    """One reply from ``model`` (its ``stream`` flag and ``transport``): streamed and folded,
    or whole from a server that cannot stream (asked whole from then on)."""
    if model.stream:

        def read(stream: Iterator[Event]) -> dict[str, Any]:
            return fold(watch).read(stream)  # a fresh fold for every attempt

        try:
            return parse(model.transport.stream(url, {**body, "stream": True}, read, watch))
        except NotStreamed as whole:
            model.stream = False  # this server answers whole: ask it so from now on
            return shown(parse(whole.body), watch)
    return shown(parse(model.transport.post(url, body, watch)), watch)
