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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from vybe.jsonio import JSONObject

DIRECTIVE = re.compile(
    r"\b(never|always|must|don't|do not|only|prefer|please|avoid|keep|may|allowed|constraint)\b",
    re.IGNORECASE,
)
# What the consolidator lists as exact references: the matches, leftmost first, of
# REFERENCE (a path ending in a file name, or an id such as job_7c41e9). Its cost is the square
# of a run of [\w./-] (a row of dashes, dotted names, a long path): every "." or "-" in it
# starts another scan to the run's end. Runs up to SHORT_RUN characters are left to it (a
# bounded cost a character); a longer run is read by ``run_references`` in time linear in its
# length, with no backtracking.
PATH = r"(?<![\w/])(?:[\w.-]+/)+[\w.-]+\.\w+"
ID = re.compile(r"\b[a-z]+_[0-9a-f]{4,}\b")
REFERENCE = re.compile(rf"{PATH}|{ID.pattern}")
SHORT_RUN = 80
LONG_RUN = re.compile(rf"(?<![\w./-])[\w./-]{{{SHORT_RUN + 1},}}+")
LAST_PART = re.compile(r".+\.\w", re.DOTALL)  # up to the last "." with a word character after
WORD = re.compile(r"\w+")
DONE_EACH = 80  # characters of each earlier request the NOW's progress names
USER_MESSAGE = re.compile(r'<user-message number="\d+">\n(.*?)\n</user-message>', re.DOTALL)


def _calls(*specs: tuple[str, JSONObject]) -> tuple[ToolCall, ...]:
    return tuple(ToolCall(f"call_{i}", name, args) for i, (name, args) in enumerate(specs))


def edit_call(path: str, old: str, new: str) -> tuple[str, JSONObject]:
    return ("edit", {"path": path, "old_text": old, "new_text": new})


@dataclass
class Consolidator:
    """An obedient model: a valid checkpoint from what the request shows."""

    name: str = "consolidator"
    requests: list[Request] = field(default_factory=list)
    # The references of each text of the last checkpoint turn's conversation: the next turn
    # shows most of them again, so only what is new to it is read.
    found: dict[str, list[str]] = field(default_factory=dict, repr=False)

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

    def edits(
        self, conversation: Sequence[Message], mind_text: str, memo_text: str
    ) -> list[tuple[str, JSONObject]]:
        return self.mind_edits(conversation, mind_text) + self.memo_edits(memo_text)

    def mind_edits(
        self, conversation: Sequence[Message], mind_text: str
    ) -> list[tuple[str, JSONObject]]:
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

    def memo_edits(self, memo_text: str) -> list[tuple[str, JSONObject]]:
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
        heard = [f"- Heard the user's request: {first_line(u)[:DONE_EACH]}" for u in users[-4:-1]]
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
                *heard,
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
        self.found = {t: self.found[t] if t in self.found else references_in(t) for t in texts}
        found = [ref for t in texts for ref in self.found[t]]
        return list(reversed(_unique(reversed(found))))[-25:]


def references_in(text: str) -> list[str]:
    """The matches of REFERENCE in ``text``, leftmost first, in time linear in its length."""
    found, pos = [], 0
    for run in LONG_RUN.finditer(text):
        found += [m.group(0) for m in REFERENCE.finditer(text, pos, run.start())]
        found += run_references(text, *run.span())
        pos = run.end()
    return found + [m.group(0) for m in REFERENCE.finditer(text, pos)]


def run_references(text: str, start: int, end: int) -> list[str]:
    """The matches of REFERENCE in one whole run of [\\w./-] of ``text``: the paths of
    ``_paths``, and the ids, which are whole words, so either inside a path or apart."""
    paths = _paths(text, start, end)
    found, index = [], 0
    for match in ID.finditer(text, start, end):
        while index < len(paths) and paths[index][1] <= match.start():
            found.append(paths[index])
            index += 1
        if index == len(paths) or match.end() <= paths[index][0]:
            found.append(match.span())
    found += paths[index:]
    return [text[lo:hi] for lo, hi in found]


def _paths(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The path matches in one run of [\\w./-] from ``start`` to ``end``, leftmost first.

    The run is segments between slashes. A match starts at the run's start or after a "." or
    "-", takes its own segment's rest and whole segments each followed by a "/", and ends in a
    later segment at the end of the word after that segment's last "." that has one; the
    greedy pattern takes the farthest such segment reachable without passing an empty one or
    the run's last. So every start in a segment ends at the same place, found from the right.
    """
    bounds = _segments(text, start, end)
    ends: list[int | None] = [None] * len(bounds)
    for i in range(len(bounds) - 2, -1, -1):
        after = i + 1
        passes = after < len(bounds) - 1 and bounds[after][0] < bounds[after][1]
        ends[i] = (
            ends[after] if passes and ends[after] is not None else _part_end(text, *bounds[after])
        )
    found: list[tuple[int, int]] = []
    resume = start
    for i, (lo, hi) in enumerate(bounds[:-1]):
        stop = ends[i]
        if stop is None or hi <= resume:
            continue
        at_run_start = i == 0 and resume == start and lo < hi
        first = lo if at_run_start else _start_after(text, max(lo, resume), hi)
        if first is not None:
            found.append((first, stop))
            resume = stop
    return found


def _segments(text: str, start: int, end: int) -> list[tuple[int, int]]:
    bounds, lo = [], start
    while (slash := text.find("/", lo, end)) != -1:
        bounds.append((lo, slash))
        lo = slash + 1
    bounds.append((lo, end))
    return bounds


def _part_end(text: str, lo: int, hi: int) -> int | None:
    """Where a path's last part in this segment ends, if one fits: ``[\\w.-]+\\.\\w+``."""
    part = LAST_PART.match(text, lo, hi)
    if part is None:
        return None
    word = WORD.match(text, part.end() - 1, hi)
    assert word is not None
    return word.end()


def _start_after(text: str, lo: int, hi: int) -> int | None:
    """The first position in [lo, hi) right after a "." or "-" of the segment, if any."""
    found = [
        at for at in (text.find(".", lo - 1, hi - 1), text.find("-", lo - 1, hi - 1)) if at >= 0
    ]
    return min(found) + 1 if found else None


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


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))
