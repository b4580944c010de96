"""A receipt for every compaction of a session: what it did to the person's messages.

vybe's own checkpoints have theirs in the audit of checkpoint attempts (mode, outcome,
tokens before and after, the checks that failed, the fallbacks taken) and the checkpoint
it made: the messages its MEMO ticked are given back verbatim (cut short when the memo was
over its budget), the unticked ones stay in the record only, and those of the recent tail
and of the turn in progress stay in the context as they are. Claude Code's and Codex's
compactions have the receipts their hooks recorded (vybe.integrations.hooks.compaction).

Each receipt lists record numbers (``seq``) under ``verbatim``, ``kept``, ``cut`` and
``released``, and reads them back: ``words`` holds the text of each message it kept or gave
back (``as``: verbatim, cut or kept; up to WORDS_CHARS characters of it, ``chars`` its whole
length), ``redacted`` how many secrets the words it gave back (verbatim or cut) had replaced
by ``[REDACTED:<rule>]`` before they were written (vybe.privacy: the one change to the
person's words), ``left_in_record`` how many of the person's messages it left in the record only
(those it released and those older than the ones the choice read), and ``search`` the
command that finds them. ``as_text`` renders them for a person (``--format text``).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from vybe import clock, config, limits
from vybe.errors import NotFound
from vybe.privacy import MARK
from vybe.store import Store
from vybe.store import checkpoints as checkpoint_rows
from vybe.store import receipts as receipt_rows
from vybe.store import record as record_rows
from vybe.store import sessions as session_rows

SHORTENED = "memo_over_budget_shortened"
WORDS_CHARS = 2000
LINE_CHARS = 100
GIVEN = ("verbatim", "cut", "kept")
COMPACTORS = {"vybe": "vybe", "claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}


def _vybe_receipt(
    attempt: checkpoint_rows.Attempt, checkpoint: checkpoint_rows.Checkpoint | None, users: list
) -> dict:
    lists: dict[str, list[int]] = {"verbatim": [], "kept": [], "cut": [], "released": []}
    typed = 0
    if checkpoint is not None:
        ticked = {m.seq for m in checkpoint.memo if m.checked}
        given = "cut" if SHORTENED in attempt.fallbacks else "verbatim"
        inputs = set(checkpoint.kept_inputs)
        for row in users:
            if row.created_at > checkpoint.created_at:
                break
            typed += 1
            if row.seq >= checkpoint.first_kept_seq or row.seq in inputs:
                lists["kept"].append(row.seq)
            elif row.seq in ticked:
                lists[given].append(row.seq)
            else:
                lists["released"].append(row.seq)
    return {
        "compactor": "vybe",
        "at": attempt.created_at,
        "attempt_id": attempt.id,
        "trigger": attempt.reason,
        "mode": attempt.mode,
        "outcome": attempt.outcome,
        "tokens_before": attempt.tokens_before,
        "tokens_after": attempt.tokens_after,
        "failed_checks": list(attempt.problems),
        "repair_ran": attempt.repair_ran,
        "fallbacks": list(attempt.fallbacks),
        "error": attempt.error,
        "typed": typed,
        **lists,
    }


def _harness_receipt(row: dict, typed: int) -> dict:
    return {
        "compactor": row["compactor"],
        "at": row["created_at"],
        "receipt_id": row["id"],
        "trigger": row["trigger"],
        "mode": None,
        "outcome": "completed" if row["completed"] else "started",
        "tokens_before": row["tokens_before"],
        "tokens_after": row["tokens_after"],
        "failed_checks": [],
        "repair_ran": False,
        "fallbacks": [],
        "error": None,
        "typed": typed,
        **{name: row[name] for name in receipt_rows.LISTS},
    }


def session_receipts(store: Store, session_id: str, limit: int) -> dict:
    """The newest ``limit`` receipts of a session, oldest first, each numbered."""
    limits.text("session_id", session_id, limits.PATH_MAX, required=True)
    with store.snapshot() as conn:
        if not session_rows.exists(conn, session_id):
            raise NotFound(
                f"no session {session_id!r} in the record",
                context={"entity": "session", "id": session_id},
                suggested_action="run `vybe session list` to see session ids",
            )
        attempts = checkpoint_rows.list_attempts(conn, session_id)
        harness = [
            _harness_receipt(r, receipt_rows.typed_then(conn, session_id, r))
            for r in receipt_rows.harness_receipts(conn, session_id)
        ]
        users = record_rows.messages_of_type(conn, session_id, "user")
        made: dict[int | None, checkpoint_rows.Checkpoint | None] = {
            a.checkpoint_id: checkpoint_rows.checkpoint_by_id(conn, a.checkpoint_id)
            for a in attempts
            if a.checkpoint_id is not None
        }
    receipts = [_vybe_receipt(a, made.get(a.checkpoint_id), users) for a in attempts]
    receipts += harness
    receipts.sort(key=lambda r: r["at"])
    for number, receipt in enumerate(receipts, 1):
        receipt["number"] = number
    shown = receipts[-limit:]
    texts = {row.seq: row.text for row in users}
    search = config.command_line(None, "search", "<words>", "--session-id", session_id)
    for receipt in shown:
        _read_back(receipt, texts, search)
    return {
        "session_id": session_id,
        "count": len(receipts),
        "compactions": sum(r["outcome"] in ("accepted", "completed") for r in receipts),
        "receipts": shown,
    }


def _read_back(receipt: dict, texts: dict[int, str], search: str) -> None:
    """The receipt's words (the texts of the messages it kept or gave back), how many it
    left in the record only, and the search that finds them."""
    words = []
    for kind in GIVEN:
        for seq in receipt[kind]:
            text = texts.get(seq, "")
            words.append({"seq": seq, "as": kind, "text": text[:WORDS_CHARS], "chars": len(text)})
    receipt["words"] = words
    given = (texts.get(seq, "") for kind in ("verbatim", "cut") for seq in receipt[kind])
    receipt["redacted"] = sum(text.count(MARK) for text in given)
    receipt["left_in_record"] = max(receipt["typed"] - len(words), 0)
    receipt["search"] = search


def _count(tokens: int | None) -> str:
    return "?" if tokens is None else f"{tokens:,}"


def _line(text: str) -> str:
    first = " ".join(text.split())
    return first if len(first) <= LINE_CHARS else first[: LINE_CHARS - 1] + "…"


def _words_text(words: list[dict], who: str) -> list[str]:
    """The messages a compaction gave back or kept, one line each, by how."""
    labels = {
        "verbatim": "given back verbatim",
        "cut": "given back cut",
        "kept": f"kept in {who}'s own context",
    }
    lines = []
    for kind in GIVEN:
        these = [w for w in words if w["as"] == kind]
        lines.append(f"  {labels[kind]} ({len(these)})" + (":" if these else ""))
        for word in these:
            whole = f"  [cut; whole: {word['chars']} chars]" if kind == "cut" else ""
            lines.append(f"    #{word['seq']}  {_line(word['text'])}{whole}")
    return lines


def _receipt_text(receipt: dict) -> list[str]:
    who = COMPACTORS.get(receipt["compactor"], receipt["compactor"])
    head = f"#{receipt['number']} · {who} · {receipt['trigger']} · {receipt['at']}"
    lines = [f"{head} · {receipt['outcome']}"]
    before, after = (receipt[k] for k in ("tokens_before", "tokens_after"))
    if before is not None or after is not None:
        lines.append(f"  tokens: {_count(before)} -> {_count(after)}")
    if receipt["failed_checks"] or receipt["fallbacks"] or receipt["error"]:
        repair = "ran" if receipt["repair_ran"] else "not run"
        lines.append(
            f"  failed checks: {', '.join(receipt['failed_checks']) or 'none'}; repair {repair}"
        )
        lines.append(f"  fallbacks: {', '.join(receipt['fallbacks']) or 'none'}")
        if receipt["error"]:
            lines.append(f"  error: {_line(receipt['error'])}")
    lines += _words_text(receipt["words"], who)
    if receipt["redacted"]:
        lines.append(f"  secrets redacted in the words given back: {receipt['redacted']}")
    lines.append(f"  left in the record only: {receipt['left_in_record']} of your messages")
    return lines


def as_text(result: dict) -> str:
    """``vybe session receipts --format text``: each compaction, what became of the person's
    words, and the search that finds what it let go."""
    count = result["count"]
    lines = [
        f"session {result['session_id']}: {result['compactions']} compaction"
        f"{'s' if result['compactions'] != 1 else ''}, {count} receipt{'s' if count != 1 else ''}"
    ]
    for receipt in result["receipts"]:
        lines += ["", *_receipt_text(receipt)]
    if result["receipts"]:
        lines += ["", f"find what was let go: {result['receipts'][-1]['search']}"]
    return "\n".join(lines)


# A receipt the hooks opened this long before an imported compaction's time (or this long
# after it) is taken for the same compaction: PreCompact opens it before the harness
# summarises, which can take minutes.
SEEN_LIVE_BEFORE = timedelta(minutes=15)
SEEN_LIVE_AFTER = timedelta(minutes=1)


def from_import(store: Store, session_id: str, agent: str, compactions: list) -> int:
    """A receipt for each compaction an imported transcript marks (a transcript's
    ``Compaction``s), once: the person's messages before it are those the harness kept in
    its context (``kept``) or left in the record only (``released``); nothing was given
    back, no hook ran. How many receipts were added."""
    timed = [c for c in compactions if c.at]
    if not timed:
        return 0
    with store.snapshot() as conn:
        users = record_rows.messages_of_type(conn, session_id, "user")

    def body(conn: Any) -> int:
        added = 0
        for found in timed:
            kept_texts = set(found.kept)
            before = [u for u in users if u.created_at <= found.at]
            lists = {
                "kept": [u.seq for u in before if u.text.strip() in kept_texts],
                "released": [u.seq for u in before if u.text.strip() not in kept_texts],
            }
            moment = clock.parse_iso(found.at)
            window = (clock.iso(moment - SEEN_LIVE_BEFORE), clock.iso(moment + SEEN_LIVE_AFTER))
            added += receipt_rows.imported(conn, session_id, agent, found, lists, window)
        return added

    return store.transact(body)
