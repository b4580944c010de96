"""A client's fixed scaffolding in a request: the messages it writes itself, never typed.

Recognised from what the pinned client sends (tests/fixtures/proxy/aider-0.86.2-*.json, the
checks in tests/proxy/test_scaffolding.py). Aider (0.86.2, Chat Completions) puts around the
person's turns, each a user message answered by a canned assistant message of its own:

- its worked examples: a made-up exchange after the system prompt, closed by "I switched to
  a new code base…" and "Ok.";
- its repository map, the file listings it adds itself (the files in the chat, read-only
  files, or that there are none);
- its summary of older history (``SUMMARY`` and the weak model's text);
- its notes after an edit it applied ("I updated the files.", "I committed the changes…");
- the output of the shell commands the model suggested, which it ran and added
  (``COMMAND`` and the output, answered by its canned "Ok");

and it appends its system reminder (the system prompt's last part) to the person's newest
message. Its weak model's summary request is a system message starting ``SUMMARIZE`` and
one user message holding the older turns as ``# USER`` / ``# ASSISTANT`` sections.

OpenCode (1.18.33, tests/fixtures/proxy/opencode-1.18.33-*.json) names itself and its
session in its headers (``User-Agent: opencode/…``, ``x-session-id``). Its own messages in a
conversation: after its compaction, the user message asking for the summary it keeps
(``OPENCODE_ASK``, before it) and the synthetic one that sets it going again
(``OPENCODE_CONTINUE``, at the end). Its title request is no turn of the session; its
compaction request is its summarization agent's system prompt and one user message holding
the older turns as ``[User]:`` / ``[Assistant]:`` text (vybe.proxy.compaction: one it does
not recognise is relayed, and not recorded either). Its system prompt (with its
environment listing) is a system message, as Aider's, and stays out of the record.

Each is recorded as a harness input (labelled here), never as the person's words; the
canned replies are no replies of the model and are left out.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from vybe import privacy

AIDER = "aider"
EXAMPLES = "aider worked examples"
SUMMARY_LABEL = "aider history summary"
ACK = ""  # the label of a canned reply: left out of the record
EXAMPLES_END = (
    "I switched to a new code base. Please don't consider the above files"
    " or try to edit them any longer."
)
SUMMARY = "I spoke to you previously about a number of things.\n"
SUMMARIZE = "*Briefly* summarize this partial conversation about programming."
PAIRS = (
    ("Here are summaries of some files present in my git repository.\n", "aider repository map"),
    ("I have *added these files to the chat* so you can go ahead and edit them.", "aider files"),
    ("Here are some READ ONLY files, provided for your reference.\n", "aider files"),
    ("Don't try and edit any existing code without asking me to add the files", "aider files"),
    ("I am not sharing any files that you can edit yet.", "aider files"),
    (SUMMARY, SUMMARY_LABEL),
    ("I committed the changes with git hash ", "aider edit note"),
    ("I updated the files.", "aider edit note"),
    ("I edited the files myself.", "aider edit note"),
    ("I made those changes to the files.", "aider edit note"),
    ("I didn't see any properly formatted edits in your reply?!", "aider edit note"),
)
# The output of the commands it ran, a user message it answers with its canned "Ok" (no
# full stop): only so answered is it taken for one (a person may type these words).
COMMAND, COMMAND_LABEL, COMMAND_ACK = "Output from ", "aider command output", "Ok"
ACKS = frozenset(
    {
        "Ok.",
        "Ok, I won't try and edit those files without asking first.",
        "Ok, any changes I propose will be to those files.",
        "Ok, I will use these files as references.",
        "Ok, based on your requests I will suggest which files need to be edited and then"
        " stop and wait for your approval.",
    }
)
LABELS = frozenset({EXAMPLES, COMMAND_LABEL, *(label for _, label in PAIRS)})
# How vybe's checkpoint names its session when it answers Aider's summary request (or Gemini
# CLI's compression): a session the proxy named (a hash) or Gemini CLI's hooks (its uuid).
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
NAMED = re.compile(rf"vybe checkpoint of session ((?:aider|gemini):(?:{UUID}|[0-9a-f]{{24}}))\b")


OPENCODE = "opencode"
OPENCODE_AGENT = "opencode/"  # how its User-Agent header starts
OPENCODE_SESSION = "x-session-id"  # the header naming its session
OPENCODE_ASK = "What did we do so far?"
OPENCODE_CONTINUE = (
    "Continue if you have next steps, or stop and ask for clarification if you are unsure how"
    " to proceed."
)
OPENCODE_TITLE = "You are a title generator."  # how its title agent's system prompt starts
OPENCODE_LABELS = {"ask": "opencode summary ask", "continue": "opencode continue"}


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return "" if content is None else str(content)


def _role(messages: list[Any], i: int) -> str:
    message = messages[i] if 0 <= i < len(messages) else None
    return str(message.get("role")) if isinstance(message, dict) else ""


def aider(messages: list[Any]) -> dict[int, str]:
    """The place and label of each message of a Chat Completions conversation that Aider
    wrote itself (``ACK`` for its canned replies); empty for a request that is not Aider's."""
    labels: dict[int, str] = {}
    texts = [text_of(m) if isinstance(m, dict) else "" for m in messages]
    ends = [i for i, t in enumerate(texts) if _role(messages, i) == "user" and t == EXAMPLES_END]
    if ends:
        first = next(i for i in range(len(messages)) if _role(messages, i) != "system")
        labels.update((i, EXAMPLES) for i in range(first, ends[0] + 1))
        if _role(messages, ends[0] + 1) == "assistant" and texts[ends[0] + 1] in ACKS:
            labels[ends[0] + 1] = ACK
    for i, text in enumerate(texts):
        label = next((lb for start, lb in PAIRS if text.startswith(start)), None)
        answered = _role(messages, i + 1) == "assistant"
        if text.startswith(COMMAND) and answered and texts[i + 1] == COMMAND_ACK:
            label = COMMAND_LABEL
        if label is None or _role(messages, i) != "user" or i in labels:
            continue
        labels[i] = label
        if answered and (texts[i + 1] in ACKS or label == COMMAND_LABEL):
            labels[i + 1] = ACK
    return labels


def system_text(messages: list[Any]) -> str:
    return "\n".join(
        text_of(m) for m in messages if isinstance(m, dict) and m.get("role") == "system"
    )


def without_reminder(text: str, system: str) -> str:
    """The person's words without the system reminder Aider appends to them (``\\n\\n`` and
    the system prompt's last part)."""
    tail = system.rstrip()
    start = text.find("\n\n")
    while start >= 0:
        rest = text[start + 2 :].rstrip()
        if rest and tail.endswith("\n" + rest):
            return text[:start]
        start = text.find("\n\n", start + 1)
    return text


def is_summary_request(messages: Any) -> bool:
    """Whether a conversation is Aider's weak model's summary request."""
    return (
        isinstance(messages, list)
        and len(messages) == 2
        and _role(messages, 0) == "system"
        and _role(messages, 1) == "user"
        and text_of(messages[0]).startswith(SUMMARIZE)
    )


SECTION = re.compile(r"(?m)^# (USER|ASSISTANT)\n")


def summarised_turns(messages: Any) -> list[dict[str, Any]]:
    """The turns Aider's summary request holds as text (``# USER`` / ``# ASSISTANT``
    sections), as its messages again, but for the person's: its newest ones may be in no
    request before it (the output of the commands it ran after the last reply), while each
    of the person's messages was sent in a request of its own before (or, in a session
    restored from Aider's chat history file, in an earlier run, as Markdown rewrote it: its
    lines end in two spaces there, and its replies may differ). None when it asks again
    about vybe's own checkpoint alone."""
    if not is_summary_request(messages) or resummarising(messages):
        return []
    parts = SECTION.split(text_of(messages[1]))
    turns = [
        {"role": role.lower(), "content": content.removesuffix("\n")}
        for role, content in zip(parts[1::2], parts[2::2], strict=True)
    ]
    return [t for t in turns if t["role"] == "assistant" or t["content"].startswith(COMMAND)]


def resummarising(messages: Any) -> bool:
    """Whether a summary request summarises nothing but vybe's own checkpoint (Aider asks
    again when the summary it got is longer than its history budget)."""
    if not is_summary_request(messages):
        return False
    text = text_of(messages[1])
    only = text.startswith("# USER\n" + SUMMARY) and "\n# ASSISTANT\n" not in text
    return only and NAMED.search(text) is not None


def _digest(text: str) -> str:
    return hashlib.sha256(text.strip().encode("utf-8", "replace")).hexdigest()[:24]


def _named(first: str) -> str:
    """The session a conversation's first words belong to: the one vybe's checkpoint names
    (a history Aider summarised with vybe's answer), else the hash of the words."""
    found = NAMED.search(first) if first.startswith(SUMMARY) else None
    return found.group(1) if found else f"{AIDER}:{_digest(first)}"


def aider_session(messages: list[Any]) -> str | None:
    """The record session of an Aider request: ``aider:<hash of the first typed prompt>``
    (or of its summary), so every request of a session names it alike; None when the
    request is not Aider's."""
    if is_summary_request(messages):
        sections = text_of(messages[1]).split("\n# ASSISTANT\n", 1)[0]
        return _named(sections.removeprefix("# USER\n"))
    labels = aider(messages)
    if not labels:
        return None
    system = system_text(messages)
    for i, message in enumerate(messages):
        typed_or_summary = labels.get(i) in (None, SUMMARY_LABEL)
        if _role(messages, i) == "user" and typed_or_summary:
            return _named(without_reminder(text_of(message), system))
    return None


def opencode(messages: list[Any]) -> dict[int, str]:
    """The place and label of each message of a conversation that OpenCode wrote itself: the
    ask before the summary it keeps (a user message answered by it) and its continue."""
    labels: dict[int, str] = {}
    for i, message in enumerate(messages):
        if _role(messages, i) != "user" or not isinstance(message, dict):
            continue
        text = text_of(message)
        if text == OPENCODE_ASK and _role(messages, i + 1) == "assistant":
            labels[i] = OPENCODE_LABELS["ask"]
        elif text.endswith(OPENCODE_CONTINUE):
            labels[i] = OPENCODE_LABELS["continue"]
    return labels


def systems(body: dict[str, Any]) -> list[str]:
    """The system prompts of a request on any of the wires OpenCode speaks: Chat's system
    messages, Responses' instructions and system or developer items, Anthropic's system."""
    listed = body.get("messages") or body.get("input")
    texts = [
        text_of(m)
        for m in (listed if isinstance(listed, list) else ())
        if isinstance(m, dict) and m.get("role") in ("system", "developer")
    ]
    system = body.get("system")
    if isinstance(system, list):
        texts.append(text_of({"content": system}))
    for given in (system, body.get("instructions")):
        if isinstance(given, str):
            texts.append(given)
    return texts


def opencode_session(headers: Any, body: dict[str, Any]) -> str | None:
    """``opencode:<its session id>`` for a request OpenCode sent, "" for its title request
    (no turn of the session); None when OpenCode did not send it."""
    agent, named = headers.get("user-agent"), headers.get(OPENCODE_SESSION)
    if not (isinstance(agent, str) and agent.startswith(OPENCODE_AGENT) and named):
        return None
    if any(t.lstrip().startswith(OPENCODE_TITLE) for t in systems(body)):
        return ""
    return f"{OPENCODE}:{named}"


# Where a client's request names the folder it works in: Claude Code's system prompt (its
# environment's " - Primary working directory: …", 2.1.197), OpenCode's (its <env> block's
# "Working directory: …", 1.18.33), Codex's environment context (``<cwd>…</cwd>``), Gemini
# CLI's session context (its first workspace directory, 0.61.0). Aider's requests name none.
FOLDER = re.compile(
    r"(?m)^\s*(?:- )?(?:Primary w|W)orking directory: (/[^\n]*?)\s*$"
    r"|<cwd>(/[^<\n]*)</cwd>"
    r"|\*\*Workspace Directories:\*\*\n\s*- (/[^\n]*?)\s*$"
)
FOLDER_ENTRIES = 4  # the first entries of a conversation, where the contexts above stand


def folder(body: dict[str, Any]) -> str | None:
    """The folder (an absolute path) a request says its client works in, or None: a session
    the proxy starts is in that folder's project. Read from the texts as the record keeps
    them (a private span's words are no folder) and scrubbed, as every text vybe keeps."""
    texts = systems(body)
    listed = body.get("messages") or body.get("input") or body.get("contents")
    for entry in (listed if isinstance(listed, list) else ())[:FOLDER_ENTRIES]:
        if isinstance(entry, dict):
            parts = entry.get("parts")
            texts.append(text_of({"content": parts}) if isinstance(parts, list) else text_of(entry))
    for text in texts:
        found = FOLDER.search(privacy.strip_private(text))
        if found:
            return privacy.scrub(next(group for group in found.groups() if group))
    return None
