"""A deterministic model for tests and benchmarks: no network, no key.

``ScriptedModel`` answers each request with the next step of a script. It knows nothing of
the checkpoint engine (the offline consolidator that does is vybe.agent.offline).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from vybe.errors import ModelError
from vybe.llm.base import Reply, Request, Usage, Watch

Step = Reply | Exception | Callable[[Request], Reply]
WORD = re.compile(r"\S+\s*|\s+")


def stream_words(watch: Watch | None, reply: Reply) -> Reply:
    """Show ``reply``'s text to ``watch`` a word at a time, as a streaming server would."""
    if watch is not None:
        for word in WORD.findall(reply.text):
            watch.text(word)
    return reply


def usage_of(request: Request, text: str) -> Usage:
    """A plausible usage report: the default estimate of what went in and came out."""
    size = len(request.system) + sum(len(m.content) for m in request.messages)
    return Usage(input_tokens=size // 4, output_tokens=len(text) // 4)


@dataclass
class ScriptedModel:
    """Answers request i with step i: a Reply, an exception to raise, or a function."""

    steps: Sequence[Step]
    name: str = "scripted"
    requests: list[Request] = field(default_factory=list)

    def complete(self, request: Request, watch: Watch | None = None) -> Reply:
        self.requests.append(request)
        if len(self.requests) > len(self.steps):
            raise ModelError("the script has no reply left for this request")
        step = self.steps[len(self.requests) - 1]
        if isinstance(step, Exception):
            raise step
        return stream_words(watch, step(request) if callable(step) else step)
