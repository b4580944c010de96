"""Deterministic models for tests, benchmarks and the offline demo: no network, no key.

``ScriptedModel`` answers each request with the next step of a script. ``Consolidator``
answers checkpoint turns the way an obedient model should (read, edit, write a valid NOW) and
any other request with a short text; ``SloppyConsolidator`` makes the mistakes real models
make: it rewrites the Mission, unticks the memo, forgets references and invents one, and
takes a harness message for the user's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from vybe.errors import ModelError
from vybe.llm.base import Message, Reply, Request, ToolCall, Usage, Watch

Step = Reply | Exception | Callable[[Request], Reply]
REQUEST_TAG = "<context-checkpoint-request>"
REPAIR_START = REQUEST_TAG + "\nThis consolidation cannot be used yet"
DIRECTIVE = re.compile(
    r"\b(never|always|must|don't|do not|only|prefer|please|avoid|keep|may|allowed|constraint)\b",
    re.IGNORECASE,
)
REFERENCE = re.compile(r"(?<![\w/])(?:[\w.-]+/)+[\w.-]+\.\w+|\b[a-z]+_[0-9a-f]{4,}\b")
USER_MESSAGE = re.compile(r'<user-message number="\d+">\n(.*?)\n</user-message>', re.DOTALL)
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


def _calls(*specs: tuple[str, dict]) -> tuple[ToolCall, ...]:
    return tuple(ToolCall(f"call_{i}", name, args) for i, (name, args) in enumerate(specs))


def _edit(path: str, old: str, new: str) -> tuple[str, dict]:
    return ("edit", {"path": path, "old_text": old, "new_text": new})


@dataclass
class Consolidator:
    """An obedient model: a valid checkpoint from what the request shows."""

    name: str = "consolidator"
    requests: list[Request] = field(default_factory=list)

    def complete(self, request: Request, watch: Watch | None = None) -> Reply:
        return stream_words(watch, self.reply(request))

    def reply(self, request: Request) -> Reply:
        self.requests.append(request)
        start = _request_index(request.messages)
        if start is None:
            return Reply("Done.", usage=usage_of(request, "Done."))
        after = request.messages[start + 1 :]
        replies = [m for m in after if m.role == "assistant"]
        if not replies:
            calls = _calls(("read", {"path": "mind.md"}), ("read", {"path": "memo.md"}))
            return Reply("", calls, "tool_use", usage_of(request, ""))
        if len(replies) == 1 and replies[0].tool_calls:
            reads = [m.content for m in after if m.role == "tool"]
            conversation = request.messages[:start]
            edits = self.edits(conversation, reads[0], reads[1])
            if edits:
                return Reply("", _calls(*edits), "tool_use", usage_of(request, ""))
        text = "<checkpoint>\n" + self.now(request.messages[:start]) + "\n</checkpoint>"
        return Reply(text, usage=usage_of(request, text))

    # --- what the model writes ----------------------------------------------------------

    def edits(self, conversation: Sequence[Message], mind_text: str, memo_text: str) -> list:
        return self.mind_edits(conversation, mind_text) + self.memo_edits(memo_text)

    def mind_edits(self, conversation: Sequence[Message], mind_text: str) -> list:
        from vybe.context import mind

        if mind.MISSION not in mind_text.splitlines():
            return []
        body = _block(mind_text, "## Mission", "## Workstreams")
        entries = [ln for ln in body.splitlines() if ln.startswith("- ")]
        wanted = list(entries)
        for text in user_texts(conversation):
            line = "- " + _first_line(text)
            fresh = all(mind.strip_status(e) != line for e in wanted)
            if fresh and (not wanted or text.lower().startswith("correction:")):
                wanted = [*(_mark(e) for e in wanted), line]
        edits = []
        if wanted != entries:
            edits.append(
                _edit(
                    "mind.md",
                    f"## Mission\n{body}\n## Workstreams",
                    "## Mission\n" + "\n".join(wanted) + "\n## Workstreams",
                )
            )
        if "(none yet: workstreams)" in mind_text:
            edits.append(
                _edit(
                    "mind.md",
                    "(none yet: workstreams)",
                    "- The user's requests, in order (status: in progress)",
                )
            )
        return edits

    def memo_edits(self, memo_text: str) -> list:
        edits = []
        for line in memo_text.splitlines():
            match = re.match(r"- \[ \] (\(#\d+\)) (.*)", line)
            if (
                match
                and DIRECTIVE.search(match.group(2))
                and "continue" not in match.group(2).lower()
            ):
                edits.append(_edit("memo.md", f"- [ ] {match.group(1)}", f"- [x] {match.group(1)}"))
        return edits

    def now(self, conversation: Sequence[Message]) -> str:
        texts = [
            m.content + " " + " ".join(str(c.arguments) for c in m.tool_calls) for m in conversation
        ]
        users = [
            u for u in user_texts(conversation) if u.strip().lower() not in ("continue", "go on")
        ]
        latest = _first_line(users[-1]) if users else "(none)"
        waiting = _unique(
            ln.strip("- ").strip()
            for t in texts
            for ln in t.splitlines()
            if "waiting on" in ln.lower() and not ln.startswith("#")
        )
        refs = self.references(texts)
        return "\n".join(
            [
                "# 6. Now",
                "## Current step",
                f"Working on the user's latest request: {latest}",
                "## Progress",
                "### Done",
                f"- Went through {len(conversation)} messages of this conversation so far.",
                "### In progress",
                f"- {latest}",
                "### Blocked or open",
                "(none)",
                "## Waiting on",
                *([f"- {w}" for w in waiting[-5:]] or ["(none)"]),
                "## Next steps",
                f'- Continue with the user\'s latest request: "{latest}"',
                "## Pitfalls",
                "(none)",
                "## Exact references",
                *([f"- `{r}`" for r in refs] or ["(none)"]),
            ]
        )

    def references(self, texts: list[str]) -> list[str]:
        found = [m.group(0) for t in texts for m in REFERENCE.finditer(t)]
        return list(reversed(_unique(reversed(found))))[-25:]


class SloppyConsolidator(Consolidator):
    """Rewrites the Mission in its own words, unticks the memo, loses and invents references,
    and takes a harness message for the user's; it ignores a repair request."""

    name = "sloppy"

    def mind_edits(self, conversation: Sequence[Message], mind_text: str) -> list:
        body = _block(mind_text, "## Mission", "## Workstreams")
        users = user_texts(conversation)
        mission = "- " + _first_line(users[-1]).lower()[:40] if users else "- keep going"
        edits = [
            _edit(
                "mind.md",
                f"## Mission\n{body}\n## Workstreams",
                f"## Mission\n{mission}\n## Workstreams",
            )
        ]
        agreements = _block(mind_text, "## Agreements", "")
        orders = [
            _first_line(m.content.split("\n", 1)[-1])
            for m in conversation
            if m.role == "user" and m.content.startswith("[Harness:")
        ]
        if orders:
            new = "\n".join(f"- The user asked: {o}" for o in orders[-2:])
            edits.append(
                _edit("mind.md", f"## Agreements\n{agreements}\n", f"## Agreements\n{new}\n")
            )
        return edits

    def memo_edits(self, memo_text: str) -> list:
        return [
            _edit("memo.md", f"- [x] {m}", f"- [ ] {m}")
            for m in re.findall(r"- \[x\] (\(#\d+\))", memo_text)
        ]

    def references(self, texts: list[str]) -> list[str]:
        return [*super().references(texts)[-3:], "src/imagined/module.py"]


def _request_index(messages: Sequence[Message]) -> int | None:
    for index in range(len(messages) - 1, -1, -1):
        m = messages[index]
        if (
            m.role == "user"
            and m.content.startswith(REQUEST_TAG)
            and not m.content.startswith(REPAIR_START)
        ):
            return index
    return None


def user_texts(conversation: Sequence[Message]) -> list[str]:
    """What the user typed: plain user turns and the user's words of a recollection."""
    found = []
    for m in conversation:
        if m.role != "user" or m.content.startswith("[Harness:"):
            continue
        if m.content.startswith("<context-checkpoint>"):
            found += USER_MESSAGE.findall(m.content)
        else:
            found.append(m.content)
    return found


def _block(text: str, heading: str, until: str) -> str:
    lines = text.splitlines()
    start = lines.index(heading) + 1
    end = next(
        (
            i
            for i in range(start, len(lines))
            if (until and lines[i] == until) or lines[i].startswith("#")
        ),
        len(lines),
    )
    return "\n".join(lines[start:end])


def _first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")[:200]


def _mark(entry: str) -> str:
    return entry if "(status:" in entry else entry + " (status: replaced by a later entry)"


def _unique(items) -> list[str]:
    return list(dict.fromkeys(items))
