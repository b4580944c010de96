"""The checkpoint request: what the model is asked to do in the checkpoint turn."""

from __future__ import annotations

from vybe.context import now
from vybe.context.budget import Budget, estimate
from vybe.context.projection import Unit
from vybe.context.protocol import HARNESS_PREFIX, REQUEST_CLOSE, REQUEST_OPEN

DIGEST_LINE_CHARS = 160

_REQUEST = """{request_open}
This request comes from vybe, the harness that keeps this conversation inside the model's
window, not from the user. Never record it, or anything it asks, as the user's words or as a
goal. Pause the task and consolidate, the way a person sorts through a day's experience in
sleep: look back over the work, revise your understanding layer by layer, let go of details.

After this checkpoint, the conversation up to message #{summarized_to} is replaced by your
mind, the user's messages you keep ticked in the memo (vybe copies their text from the
record), your now, and the recent messages listed under "What stays" below, which stay
word for word. Do not list as next steps anything those recent messages show finished.

Files: mind.md and memo.md, the checkpoint's scratch files (vybe holds them for this turn;
name them by these bare names). Their current text is given below word for word, so there is
no need to read them. Change them only with the edit tool:
edit {{"path": "mind.md", "old_text": "...", "new_text": "..."}}, where old_text
is a short piece that occurs exactly once (a placeholder, or "- [ ] (#12)"). Make all your
edit calls in one reply. You have at most {rounds} rounds of tool calls; no other tool works.

Step 1. Look back at what happened since the previous checkpoint.

Step 2. Revise mind.md. Change only what changed; leave the rest word for word. Keep every
heading line exactly as it is, in order, and out of old_text. Replace placeholders. A line
under "## Mission" that starts with "- " is a Mission entry: the ultimate purpose in your
own words. Never delete or reword a Mission entry; when it is done, withdrawn or replaced,
append its status to the line itself, e.g. " (status: done)". Write every mission as such
an entry, never as prose. Keep condensing: fold a finished workstream into one line, merge
recurring lessons, fold an overturned decision into the one that replaced it. Limits, in
tokens: Where I stand {l1}, Goals {l2}, Key decisions {l3}, Lessons {l4}.

Step 3. Check memo.md: one line per message the user typed. Tick [x] a message that sets or
changes the direction, states a constraint or a prohibition, a preference or a permission.
Untick one that is withdrawn, done or fully held by the mind. Leave "continue"-like
messages unticked. Change only the brackets, nothing else. The ticked messages may total
{memo_total} tokens.

Step 4. Write your now as your final reply text, in exactly one block: a line
<checkpoint>, the now, a line </checkpoint>, each tag written once and nowhere else. Use
these headings, "(none)" under an empty one, at least {now_min} tokens in all:
{template}
The now: the current step and its workstream; progress; what you are waiting on (background
commands, watches, tasks, runs, questions to the user) with their ids; next steps tied to
the user's latest explicit request, quoting their words; pitfalls with the exact error
text; the exact paths, ids, commands, links and values needed to continue, each quoted in
backticks, each one that occurs in the conversation (vybe checks them against the record).

Rules. An input whose first line is {harness} ...] came from a watch, task, callback or
agent run, not from the user, even where it quotes them: never attribute it to the user.
Keep exact paths, ids and error texts. Invent nothing. Write no secrets. Use the user's
language.

What stays (read-only, the recent messages after the checkpoint):
{digest}

Current memo.md:
{memo}
Current mind.md (exactly what the file holds now, word for word):
{mind}{request_close}"""


def digest(units: list[Unit], room: int) -> str:
    """One line per recent row, newest kept when room runs out: what is already done."""
    lines: list[str] = []
    for unit in units:
        for row in unit.rows:
            calls = ", ".join(c["name"] for c in row.data.get("tool_calls", ()))
            text = " ".join(row.text.split())[:DIGEST_LINE_CHARS]
            lines.append(f"#{row.seq} {row.type}: {text}" + (f" [calls: {calls}]" if calls else ""))
    shown: list[str] = []
    for line in reversed(lines):
        room -= estimate(line) + 1
        if room < 0:
            shown.append("(earlier recent messages left out here)")
            break
        shown.append(line)
    return "\n".join(reversed(shown)) or "(nothing: the checkpoint covers every message)"


def checkpoint_request(
    budget: Budget,
    summarized_to: int,
    mind_text: str,
    memo_text: str,
    kept_digest: str,
    rounds: int,
) -> str:
    limits = list(budget.mind_limits.values())
    return _REQUEST.format(
        request_open=REQUEST_OPEN,
        request_close=REQUEST_CLOSE,
        harness=HARNESS_PREFIX,
        summarized_to=summarized_to,
        rounds=rounds,
        l1=limits[0],
        l2=limits[1],
        l3=limits[2],
        l4=limits[3],
        memo_total=budget.memo_total,
        now_min=budget.now_min,
        template=now.TEMPLATE,
        digest=kept_digest,
        memo=memo_text,
        mind=mind_text,
    )
