"""Budgets of one request, from the model's limits, and the default token estimate.

W window, L input limit, O reply reserve, M margin = min(max(8000, 3%W), W/8),
T threshold = min(L - O - M, 0.9 W), lowered to 0.9 s for the first price step s below W;
keep = min(20000, T/4). Section and memo limits scale by W/192000 below 192k; a NOW is shown
up to the MIND's total (6000 tokens, scaled alike), whatever its length.
"""

from __future__ import annotations

from dataclasses import dataclass

from vybe.context.tokens import compact, reply_tokens
from vybe.context.tokens import estimate as estimate  # the default estimate, named here too
from vybe.llm.base import Message, Request, ToolSpec

DEFAULT_WINDOW = 128_000
DEFAULT_MAX_OUTPUT = 8_192
FULL_SCALE_WINDOW = 192_000
MIND_LIMITS = {"Where I stand": 1000, "Goals": 2000, "Key decisions": 1500, "Lessons": 1500}
MEMO_PER_MESSAGE = 300
MEMO_TOTAL = 3000
SKILL_EACH = 5000
SKILLS_TOTAL = 25_000


@dataclass(frozen=True)
class ModelLimits:
    """What is known of a model: unknown values get the defaults of docs/architecture.md."""

    window: int | None = None
    input_limit: int | None = None
    max_output: int | None = None
    price_steps: tuple[int, ...] = ()


@dataclass(frozen=True)
class Budget:
    """Every figure one request is judged by; recomputed for each request."""

    window: int
    input_limit: int
    reply_reserve: int
    margin: int
    threshold: int
    keep: int
    mind_limits: dict[str, int]
    memo_per_message: int
    memo_total: int
    now_min: int
    now_max: int
    skill_each: int
    skills_total: int

    def can_fit(self, tokens: int) -> bool:
        """Room for the request and the reply, with no margin left.

        The margin M is kept by the threshold (T <= L - O - M), not by a fit test: a checkpoint
        turn taken at T carries the whole conversation, so it never fits with M to spare."""
        return tokens + self.reply_reserve <= self.input_limit

    def due(self, tokens: int) -> bool:
        """A checkpoint is due at the threshold."""
        return tokens >= self.threshold


def _scaled(limit: int, window: int) -> int:
    """``limit`` scaled by window / 192000 below 192k, never under one token."""
    return limit if window >= FULL_SCALE_WINDOW else max(1, limit * window // FULL_SCALE_WINDOW)


def compute(limits: ModelLimits) -> Budget:
    """The budget of docs/architecture.md for a model with these limits."""
    w = limits.window or DEFAULT_WINDOW
    big_l = limits.input_limit or w
    o = min(limits.max_output or DEFAULT_MAX_OUTPUT, w // 4)
    m = min(max(8000, -(-3 * w // 100)), w // 8)
    t = min(big_l - o - m, 9 * w // 10)
    steps = sorted(s for s in limits.price_steps if 0 < s < w)
    if steps:
        t = min(t, 9 * steps[0] // 10)
    return Budget(
        window=w,
        input_limit=big_l,
        reply_reserve=o,
        margin=m,
        threshold=t,
        keep=min(20_000, t // 4),
        mind_limits={name: _scaled(v, w) for name, v in MIND_LIMITS.items()},
        memo_per_message=_scaled(MEMO_PER_MESSAGE, w),
        memo_total=_scaled(MEMO_TOTAL, w),
        now_min=min(128, max(32, w // 2000)),
        now_max=sum(_scaled(v, w) for v in MIND_LIMITS.values()),
        skill_each=SKILL_EACH,
        skills_total=min(SKILLS_TOTAL, w // 10),
    )


def message_tokens(message: Message) -> int:
    """Text, plus each tool call's name and compact JSON arguments."""
    return reply_tokens(message.content, message.tool_calls)


def tools_tokens(tools: tuple[ToolSpec, ...]) -> int:
    return sum(estimate(t.name + t.description + compact(t.parameters)) for t in tools)


def request_tokens(request: Request) -> int:
    """A request counts its system prompt, tool definitions and messages."""
    return (
        estimate(request.system)
        + tools_tokens(request.tools)
        + sum(message_tokens(m) for m in request.messages)
    )


def cut(text: str, tokens: int) -> str:
    """The longest prefix of ``text`` within ``tokens`` by the default estimate."""
    return text.encode("utf-8")[: max(tokens, 0) * 4].decode("utf-8", errors="ignore")
