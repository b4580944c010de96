"""What vybe knows about a model: window, input limit, output cap and price steps.

Built-in entries cover well-known models; the config file's ``models:`` section adds or
overrides entries, and ``--window`` / ``--max-output`` override one run. Prices are USD per
million tokens; a price step starting above 0 tokens is a dearer long-context tier, and the
checkpoint engine lowers its threshold below the first such step.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from vybe.errors import InvalidInput

UNKNOWN_WINDOW = 128_000
DEFAULT_REPLY_RESERVE = 8_192
ONE_M_BETA = {"anthropic-beta": "context-1m-2025-08-07"}


@dataclass(frozen=True)
class PriceStep:
    """Prices that apply once the context holds ``from_tokens`` tokens or more."""

    from_tokens: int
    input: float
    output: float
    cache_read: float | None = None


@dataclass(frozen=True)
class ModelInfo:
    name: str
    provider: str
    window: int
    input_limit: int | None = None
    max_output: int | None = None
    prices: tuple[PriceStep, ...] = ()
    api_name: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    known: bool = True
    stream: bool = True

    @property
    def wire_name(self) -> str:
        return self.api_name or self.name

    @property
    def input_tokens_limit(self) -> int:
        return self.input_limit or self.window

    @property
    def price_steps(self) -> tuple[int, ...]:
        """Context sizes above which this model gets dearer, smallest first."""
        return tuple(sorted(p.from_tokens for p in self.prices if p.from_tokens > 0))

    @property
    def reply_reserve(self) -> int:
        """Tokens asked for each reply: the output cap or 8,192, never over a quarter window."""
        return min(self.max_output or DEFAULT_REPLY_RESERVE, self.window // 4)

    def cost(self, input_tokens: int, output_tokens: int, cache_read: int = 0) -> float:
        """USD for one request at the price step its context size falls in."""
        steps = [p for p in self.prices if p.from_tokens <= input_tokens]
        if not steps:
            return 0.0
        step = max(steps, key=lambda p: p.from_tokens)
        read_price = step.input if step.cache_read is None else step.cache_read
        fresh = input_tokens - cache_read
        return (fresh * step.input + cache_read * read_price + output_tokens * step.output) / 1e6


def _m(
    provider: str, window: int, out: int, *prices: tuple[float, ...], **extra: Any
) -> dict[str, Any]:
    return {"provider": provider, "window": window, "max_output": out, "prices": prices, **extra}


_SONNET_PRICES = ((0, 3.0, 15.0, 0.30), (200_000, 6.0, 22.5, 0.60))
BUILTIN: dict[str, dict[str, Any]] = {
    "gpt-4o": _m("openai", 128_000, 16_384, (0, 2.5, 10.0, 1.25)),
    "gpt-4o-mini": _m("openai", 128_000, 16_384, (0, 0.15, 0.60, 0.075)),
    "gpt-4.1": _m("openai", 1_047_576, 32_768, (0, 2.0, 8.0, 0.50)),
    "gpt-4.1-mini": _m("openai", 1_047_576, 32_768, (0, 0.40, 1.60, 0.10)),
    "gpt-4.1-nano": _m("openai", 1_047_576, 32_768, (0, 0.10, 0.40, 0.025)),
    "gpt-5": _m("openai", 400_000, 128_000, (0, 1.25, 10.0, 0.125), input_limit=272_000),
    "gpt-5-mini": _m("openai", 400_000, 128_000, (0, 0.25, 2.0, 0.025), input_limit=272_000),
    "gpt-5-nano": _m("openai", 400_000, 128_000, (0, 0.05, 0.40, 0.005), input_limit=272_000),
    "o1": _m("openai", 200_000, 100_000, (0, 15.0, 60.0, 7.5)),
    "o3": _m("openai", 200_000, 100_000, (0, 2.0, 8.0, 0.50)),
    "o3-mini": _m("openai", 200_000, 100_000, (0, 1.10, 4.40, 0.55)),
    "o4-mini": _m("openai", 200_000, 100_000, (0, 1.10, 4.40, 0.275)),
    "claude-opus-4-5": _m("anthropic", 200_000, 64_000, (0, 5.0, 25.0, 0.50)),
    "claude-opus-4-1": _m("anthropic", 200_000, 32_000, (0, 15.0, 75.0, 1.50)),
    "claude-opus-4": _m("anthropic", 200_000, 32_000, (0, 15.0, 75.0, 1.50)),
    "claude-sonnet-4-5": _m("anthropic", 200_000, 64_000, *_SONNET_PRICES),
    "claude-sonnet-4": _m("anthropic", 200_000, 64_000, *_SONNET_PRICES),
    "claude-sonnet-4-5[1m]": _m(
        "anthropic",
        1_000_000,
        64_000,
        *_SONNET_PRICES,
        api_name="claude-sonnet-4-5",
        headers=ONE_M_BETA,
    ),
    "claude-sonnet-4[1m]": _m(
        "anthropic",
        1_000_000,
        64_000,
        *_SONNET_PRICES,
        api_name="claude-sonnet-4",
        headers=ONE_M_BETA,
    ),
    "claude-3-7-sonnet": _m("anthropic", 200_000, 64_000, (0, 3.0, 15.0, 0.30)),
    "claude-haiku-4-5": _m("anthropic", 200_000, 64_000, (0, 1.0, 5.0, 0.10)),
    "claude-3-5-haiku": _m("anthropic", 200_000, 8_192, (0, 0.80, 4.0, 0.08)),
    "claude-3-haiku": _m("anthropic", 200_000, 4_096, (0, 0.25, 1.25, 0.03)),
}


def guess_provider(name: str) -> str:
    return "anthropic" if name.lower().startswith("claude") else "openai"


def _entry(name: str, table: dict[str, dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """The exact entry, else the longest one whose name prefixes ``name`` (dated ids)."""
    if name in table:
        return name, table[name]
    stem = name.split("[", 1)[0]
    matches = [k for k in table if "[" not in k and stem.startswith(k)]
    if not matches:
        return None
    best = max(matches, key=len)
    return best, table[best]


def _int(value: Any, what: str) -> int | None:
    if value is None:
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise InvalidInput(f"{what} must be a whole number of tokens, not {value!r}") from None
    if number <= 0:
        raise InvalidInput(f"{what} must be positive, not {number}")
    return number


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(f"{what} must be true or false, not {value!r}")
    return value


def _prices(raw: Any, where: str) -> tuple[PriceStep, ...]:
    steps = []
    for item in raw or ():
        if isinstance(item, dict):
            item = (item.get("from", 0), item["input"], item["output"], item.get("cache_read"))
        try:
            steps.append(PriceStep(int(item[0]), float(item[1]), float(item[2]), *item[3:4]))
        except (KeyError, IndexError, TypeError, ValueError):
            raise InvalidInput(
                f"{where}: a price step needs from, input and output",
                suggested_action="write prices as [{from: 0, input: 3.0, output: 15.0}]",
            ) from None
    return tuple(sorted(steps, key=lambda p: p.from_tokens))


def resolve(
    name: str,
    provider: str | None = None,
    overrides: dict[str, Any] | None = None,
    *,
    window: int | None = None,
    max_output: int | None = None,
    stream: bool = True,
) -> ModelInfo:
    """The model's settings: built-in table, then the config's ``models:``, then the flags.

    A model streams its replies unless its entry says ``stream: false`` or ``stream`` is
    False (``--no-stream``), for servers that cannot.
    """
    table = {**BUILTIN}
    for key, value in (overrides or {}).items():
        if not isinstance(value, dict):
            raise InvalidInput(f"config models.{key} must be a mapping of settings")
        table[str(key)] = {**BUILTIN.get(str(key), {}), **value}
    found = _entry(name, table)
    spec = found[1] if found else {}
    where = f"models.{found[0]}" if found else "models"
    info = ModelInfo(
        name=name,
        provider=provider or spec.get("provider") or guess_provider(name),
        window=_int(spec.get("window"), f"{where}.window") or UNKNOWN_WINDOW,
        input_limit=_int(spec.get("input_limit"), f"{where}.input_limit"),
        max_output=_int(spec.get("max_output"), f"{where}.max_output"),
        prices=_prices(spec.get("prices"), where),
        api_name=spec.get("api_name"),
        headers=dict(spec.get("headers") or {}),
        known=found is not None,
        stream=_flag(spec.get("stream", True), f"{where}.stream"),
    )
    if window is not None:
        size = _int(window, "--window") or info.window
        limit = min(info.input_limit, size) if info.input_limit else None
        info = replace(info, window=size, input_limit=limit)
    if max_output is not None:
        info = replace(info, max_output=_int(max_output, "--max-output"))
    if not stream:
        info = replace(info, stream=False)
    return info
