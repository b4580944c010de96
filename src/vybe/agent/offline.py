"""The offline consolidator: deterministic, no network, no key (``--scripted``, the demo).

``Consolidator`` answers checkpoint turns the way an obedient model should (read, edit, write a
valid NOW) and any other request with a short text. It knows the checkpoint protocol, so it
lives beside the runner, over the engine and the model interface (a model adapter knows
nothing of the engine); the misbehaving ones the tests use are in tests/context/zoo.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from vybe.context import mind
from vybe.context.protocol import HARNESS_PREFIX, RECOLLECTION_OPEN, is_request
from vybe.llm.base import Message, Reply, Request, ToolCall, Watch
from vybe.llm.scripted import stream_words, usage_of

DIRECTIVE = re.compile(
    r"\b(never|always|must|don't|do not|only|prefer|please|avoid|keep|may|allowed|constraint)\b",
    re.IGNORECASE,
)
REFERENCE = re.compile(r"(?<![\w/])(?:[\w.-]+/)+[\w.-]+\.\w+|\b[a-z]+_[0-9a-f]{4,}\b")
USER_MESSAGE = re.compile(r'<user-message number="\d+">\n(.*?)\n</user-message>', re.DOTALL)


def _calls(*specs: tuple[str, dict]) -> tuple[ToolCall, ...]:
    return tuple(ToolCall(f"call_{i}", name, args) for i, (name, args) in enumerate(specs))


def edit_call(path: str, old: str, new: str) -> tuple[str, dict]:
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
        conversation, after = request.messages[:start], request.messages[start + 1 :]
        replies = [m for m in after if m.role == "assistant"]
        if not replies:
            return self.opening(request)
        if len(replies) == 1 and replies[0].tool_calls:
            files = _read_back(replies[0], after)
            edits = self.edits(conversation, files.get("mind.md", ""), files.get("memo.md", ""))
            if edits:
                return Reply("", _calls(*edits), "tool_use", usage_of(request, ""))
        return self.final(request, conversation)

    def opening(self, request: Request) -> Reply:
        """The first reply of a turn: read both files."""
        calls = _calls(("read", {"path": "mind.md"}), ("read", {"path": "memo.md"}))
        return Reply("", calls, "tool_use", usage_of(request, ""))

    def final(self, request: Request, conversation: Sequence[Message]) -> Reply:
        """The final reply: the now in one block."""
        text = "<checkpoint>\n" + self.now(conversation) + "\n</checkpoint>"
        return Reply(text, usage=usage_of(request, text))

    # --- what the model writes ----------------------------------------------------------

    def edits(self, conversation: Sequence[Message], mind_text: str, memo_text: str) -> list:
        return self.mind_edits(conversation, mind_text) + self.memo_edits(memo_text)

    def mind_edits(self, conversation: Sequence[Message], mind_text: str) -> list:
        if mind.MISSION not in mind_text.splitlines():
            return []
        body = section(mind_text, "## Mission", "## Workstreams")
        entries = [ln for ln in body.splitlines() if ln.startswith("- ")]
        wanted = list(entries)
        for text in user_texts(conversation):
            line = "- " + first_line(text)
            fresh = all(mind.strip_status(e) != line for e in wanted)
            if fresh and (not wanted or text.lower().startswith("correction:")):
                wanted = [*(_mark(e) for e in wanted), line]
        edits = []
        if wanted != entries:
            edits.append(
                edit_call(
                    "mind.md",
                    f"## Mission\n{body}\n## Workstreams",
                    "## Mission\n" + "\n".join(wanted) + "\n## Workstreams",
                )
            )
        if "(none yet: workstreams)" in mind_text:
            edits.append(
                edit_call(
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
                edits.append(
                    edit_call("memo.md", f"- [ ] {match.group(1)}", f"- [x] {match.group(1)}")
                )
        return edits

    def now(self, conversation: Sequence[Message]) -> str:
        texts = [
            m.content + " " + " ".join(str(c.arguments) for c in m.tool_calls) for m in conversation
        ]
        users = [
            u for u in user_texts(conversation) if u.strip().lower() not in ("continue", "go on")
        ]
        latest = first_line(users[-1]) if users else "(none)"
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


def _request_index(messages: Sequence[Message]) -> int | None:
    for index in range(len(messages) - 1, -1, -1):
        m = messages[index]
        if m.role == "user" and is_request(m.content):
            return index
    return None


def _read_back(reply: Message, after: Sequence[Message]) -> dict[str, str]:
    """What each ``read`` call of ``reply`` returned, by the path it named."""
    results = {m.tool_call_id: m.content for m in after if m.role == "tool"}
    return {
        str(c.arguments.get("path")): results.get(c.id, "")
        for c in reply.tool_calls
        if c.name == "read"
    }


def user_texts(conversation: Sequence[Message]) -> list[str]:
    """What the user typed: plain user turns and the user's words of a recollection."""
    found = []
    for m in conversation:
        if m.role != "user" or m.content.startswith(HARNESS_PREFIX):
            continue
        if m.content.startswith(RECOLLECTION_OPEN):
            found += USER_MESSAGE.findall(m.content)
        else:
            found.append(m.content)
    return found


def section(text: str, heading: str, until: str) -> str:
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


def first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")[:200]


def _mark(entry: str) -> str:
    return entry if "(status:" in entry else entry + " (status: replaced by a later entry)"


def _unique(items) -> list[str]:
    return list(dict.fromkeys(items))
