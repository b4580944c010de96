"""The checkpoint turn: the same model revises mind.md, ticks memo.md and writes the NOW.

Same system prompt, tool list and message prefix as the conversation, so a provider's prompt
cache (tools are part of an Anthropic prefix) hits; ``read`` and ``edit`` are added only when
the conversation lacks them. Only those two run, and only on the two scratch files: every
other call gets a refusal. At most MAX_ROUNDS rounds of tool calls, checks, one repair request
naming every problem, then the fallbacks of docs/architecture.md.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from vybe.context import memo, mind, now
from vybe.context.budget import (
    Budget,
    cut,
    estimate,
    message_tokens,
    tools_tokens,
)
from vybe.context.checkpoints import MemoMark
from vybe.context.prompt import checkpoint_request
from vybe.context.protocol import REPAIR_LEAD, REQUEST_CLOSE, REQUEST_OPEN
from vybe.context.scratch import Scratch
from vybe.errors import ModelError
from vybe.llm.base import Message, Model, Reply, Request, ToolCall, ToolSpec

MAX_ROUNDS = 5
MAX_REPLY = 64_000
TOOL_RESERVE = 1_000
READ = ToolSpec(
    "read",
    "Read mind.md or memo.md in the checkpoint scratch folder.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
EDIT = ToolSpec(
    "edit",
    "Replace the one occurrence of old_text with new_text in mind.md or memo.md.",
    {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "old_text": {"type": "string"},
            "new_text": {"type": "string"},
        },
        "required": ["path", "old_text", "new_text"],
    },
)
REFUSAL = (
    "This is a checkpoint turn: only read and edit on mind.md and memo.md are available. "
    "Revise those two files with edit and write your now as your reply text."
)
BUDGET_USED = (
    "This checkpoint turn's tool budget is used up. Write your now as your reply text; "
    "mind.md and memo.md stay as they are. Calling a tool again fails the checkpoint."
)
TOO_LARGE = "the checkpoint turn's request cannot fit"
FIRST_NOW = "now_of_first_reply"
NO_NOW = "no usable now after the repair"
MEMO_EDITED = (
    "memo.md was changed beyond its checkboxes: change only a [ ] to [x] or back, and nothing else"
)


@dataclass(frozen=True)
class TurnInput:
    """Everything one checkpoint turn needs, gathered by the engine."""

    system: str
    tools: tuple[ToolSpec, ...]
    prefix: tuple[Message, ...]
    previous_mind: str
    marks: tuple[MemoMark, ...]
    memo_texts: dict[int, str]
    kept_digest: str
    summarized_to: int
    budget: Budget


@dataclass
class TurnResult:
    """What the turn produced, and the audit facts of how."""

    now: str | None = None
    mind: str = ""
    marks: tuple[MemoMark, ...] = ()
    problems: tuple[str, ...] = ()
    repair_ran: bool = False
    fallbacks: list[str] = field(default_factory=list)
    rounds: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    flagged: tuple[str, ...] = ()


def _add_usage(total: dict[str, int], reply: Reply) -> None:
    if reply.usage is not None:
        for key, value in asdict(reply.usage).items():
            total[key] = total.get(key, 0) + value


class _Files:
    """The tools of the turn over the scratch folder."""

    def __init__(self, scratch: Scratch) -> None:
        self.scratch = scratch

    def run(self, call: ToolCall, room: int) -> str:
        if call.name not in ("read", "edit"):
            return REFUSAL
        name = self.scratch.resolve(call.arguments.get("path", ""))
        if name is None:
            return "Only mind.md and memo.md of the checkpoint scratch folder can be used here."
        text = self.scratch.read(name)
        if call.name == "read":
            size = estimate(text)
            if size <= room:
                return text
            shown = cut(text, max(room, 0))
            return (
                f"{shown}\n[Output truncated to fit this checkpoint turn: showing about "
                f"{estimate(shown)} of {size} tokens.]"
            )
        old, new = str(call.arguments.get("old_text", "")), str(call.arguments.get("new_text", ""))
        count = text.count(old) if old else 0
        if count != 1:
            return (
                f"edit failed: old_text occurs {count} times in {name}; it must occur exactly once"
            )
        self.scratch.write(name, text.replace(old, new, 1))
        return f"edited {name}"


def turn_tools(conversation: tuple[ToolSpec, ...]) -> tuple[ToolSpec, ...]:
    """The conversation's own tools, plus ``read`` and ``edit`` when it has no tool of that name."""
    names = {t.name for t in conversation}
    return conversation + tuple(t for t in (READ, EDIT) if t.name not in names)


class _Conversation:
    """The turn's messages and their size, kept as they grow: each round adds, never re-sums."""

    def __init__(self, inp: TurnInput, tools: tuple[ToolSpec, ...], request_text: str) -> None:
        self.inp, self.tools = inp, tools
        self.messages = [*inp.prefix, Message("user", request_text)]
        self.size = (
            estimate(inp.system)
            + tools_tokens(tools)
            + sum(message_tokens(m) for m in self.messages)
        )

    def add(self, message: Message) -> None:
        self.messages.append(message)
        self.size += message_tokens(message)

    def request(self) -> Request:
        reply = min(MAX_REPLY, self.inp.budget.reply_reserve)
        return Request(self.inp.system, tuple(self.messages), self.tools, reply)

    def room(self) -> int:
        budget = self.inp.budget
        return budget.input_limit - self.size - budget.reply_reserve - TOOL_RESERVE

    def seen(self) -> str:
        """Everything the model was shown: a reference found nowhere here was invented."""
        calls = (str(c.arguments) for m in self.messages for c in m.tool_calls)
        return "\n".join([self.inp.system, *(m.content for m in self.messages), *calls])


def _problems(inp: TurnInput, reply_text: str, scratch: Scratch, memo_file: str) -> list[str]:
    extracted = now.extract(reply_text, inp.budget.now_min)
    problems = list(extracted.problems)
    if extracted.now is not None:
        missing = now.missing_headings(extracted.now)
        if missing:
            problems.append("the now lacks the heading lines " + ", ".join(missing))
        long = now.too_long(extracted.now, inp.budget.now_max)
        if long:
            problems.append(long)
    problems += mind.review(scratch.read("mind.md"), inp.previous_mind, inp.budget)
    marks = memo.read_file(memo_file, scratch.read("memo.md"))
    if marks is None:
        problems.append(MEMO_EDITED)
    else:
        size = memo.checked_tokens(marks, inp.memo_texts, inp.budget.memo_per_message)
        if size > inp.budget.memo_total:
            problems.append(
                f"the checked memo messages total about {size} tokens, at most "
                f"{inp.budget.memo_total}: uncheck those the mind now holds"
            )
    return problems


def repair_text(problems: list[str], closed: bool) -> str:
    how = (
        "the tool budget is used up, so give only your final reply again"
        if closed
        else "revise the files that need it with edit, then give your final reply again"
    )
    return (
        f"{REQUEST_OPEN}\n{REPAIR_LEAD}: "
        + "; ".join(problems)
        + f". Correct it as asked above: {how}, with your now in exactly one <checkpoint> "
        "block. Like the "
        "request, this message comes from vybe, not the user: keep it, and what it asks, out "
        f"of your mind, your memo and your now.\n{REQUEST_CLOSE}"
    )


def run_turn(model: Model, inp: TurnInput) -> TurnResult:
    """Run the turn; a result with ``now is None`` is a failed checkpoint that changes nothing."""
    scratch = Scratch()
    seeded = mind.seed(inp.previous_mind)
    scratch.write("mind.md", seeded)
    memo_file = memo.render_file(list(inp.marks), inp.memo_texts)
    scratch.write("memo.md", memo_file)
    request_text = checkpoint_request(
        inp.budget, inp.summarized_to, seeded, memo_file, inp.kept_digest, MAX_ROUNDS
    )
    files = _Files(scratch)
    talk = _Conversation(inp, turn_tools(inp.tools), request_text)
    result = TurnResult()
    closed = False
    first: str | None = None  # the reply a repair was asked for

    def finish(last: str | None, error: str) -> TurnResult:
        text = _chosen(inp, last, first, result)
        if text is None:
            result.error = error
            return result
        return _settled(inp, text, scratch, memo_file, closed, result, talk)

    while True:
        request = talk.request()
        if talk.size + request.max_tokens > inp.budget.input_limit:
            # no room to repair: the reply it was asked for, with the fallbacks
            return finish(
                None,
                f"{TOO_LARGE}: about {talk.size} tokens and a {request.max_tokens}-token reply,"
                f" over the input limit of {inp.budget.input_limit}; the model was not called",
            )
        try:
            reply = model.complete(request)
        except ModelError as exc:
            return finish(None, f"model error: {exc.message}")
        _add_usage(result.usage, reply)
        if reply.stop_reason in ("length", "refusal") or (
            reply.stop_reason == "tool_use" and not reply.tool_calls
        ):
            return finish(None, f"the reply stopped with {reply.stop_reason}")
        if reply.tool_calls:
            if closed:
                return finish(None, "tools were called after the tool budget was used up")
            closed = result.rounds >= MAX_ROUNDS
            result.rounds += 0 if closed else 1
            talk.add(Message("assistant", reply.text, reply.tool_calls))
            for call in reply.tool_calls:
                answer = BUDGET_USED if closed else files.run(call, talk.room())
                talk.add(Message("tool", answer, tool_call_id=call.id))
            continue
        problems = _problems(inp, reply.text, scratch, memo_file)
        if problems and not result.repair_ran:
            result.repair_ran, result.problems = True, tuple(problems)
            first = reply.text
            talk.add(Message("assistant", reply.text))
            talk.add(Message("user", repair_text(problems, closed)))
            continue
        return finish(reply.text, NO_NOW)


def _chosen(inp: TurnInput, last: str | None, first: str | None, result: TurnResult) -> str | None:
    """The reply whose NOW the turn uses: the last usable one of the turn. A repair answered
    without a usable block ("Done."), or cut short, leaves the NOW of the reply it was asked
    for standing (``now_of_first_reply``): a repair can only improve a checkpoint, never lose
    the one the model had written. None when no reply holds a usable NOW."""
    for text in (last, first):
        if text is not None and now.extract(text, inp.budget.now_min).now is not None:
            if text is not last:
                result.fallbacks.append(FIRST_NOW)
            return text
    return None


def _settled(
    inp: TurnInput,
    text: str,
    scratch: Scratch,
    memo_file: str,
    closed: bool,
    result: TurnResult,
    talk: _Conversation,
) -> TurnResult:
    settled = _settle(inp, text, scratch, memo_file, closed, result)
    if settled.now is not None:
        settled.flagged = tuple(now.flag_references(settled.now, talk.seen().__contains__))
    return settled


def _settle(
    inp: TurnInput, text: str, scratch: Scratch, memo_file: str, closed: bool, result: TurnResult
) -> TurnResult:
    """After the repair only the block decides (``text`` holds a usable one); file problems
    fall back, keeping more."""
    result.now = now.extract(text, inp.budget.now_min).now
    settled = mind.settle(scratch.read("mind.md"), inp.previous_mind, inp.budget)
    result.mind = settled.mind
    if settled.fallback:
        result.fallbacks.append(settled.fallback)
    edited = scratch.read("memo.md")
    marks = memo.read_file(memo_file, edited)
    undecided = any(not m.ticked for m in inp.marks)
    if marks is None:
        result.fallbacks.append("memo_edited_kept_all")
        marks = _kept_all(inp.marks)
    elif closed and edited == memo_file and undecided:
        result.fallbacks.append("memo_untouched_kept_all")
        marks = _kept_all(inp.marks)
    if (
        memo.checked_tokens(marks, inp.memo_texts, inp.budget.memo_per_message)
        > inp.budget.memo_total
    ):
        result.fallbacks.append("memo_over_budget_shortened")
    result.marks = tuple(marks)
    return result


def _kept_all(marks: tuple[MemoMark, ...]) -> list[MemoMark]:
    """Every candidate kept, each ticked only if the model had ticked it before: the fallback
    keeps what the model did not choose behind what it did (vybe.context.memo)."""
    return [MemoMark(m.seq, True, m.ticked) for m in marks]
