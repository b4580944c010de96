"""Importing real Claude Code transcripts: the person's words verbatim, nothing twice."""

from __future__ import annotations

import json

import pytest

from tests.conftest import TRANSCRIPTS
from vybe.context.record import MemoryRecord
from vybe.integrations.claude_transcript import import_transcript
from vybe.store.record import SqliteRecord

DATA = TRANSCRIPTS
COMPACTION = DATA / "claude-codemie-code-624a4a58-compaction.jsonl"
PLAIN = DATA / "claude-codemie-code-196820da.jsonl"
SUMMARIES = DATA / "claude-codemie-code-9eda1058-summaries.jsonl"
SIDECHAINS = DATA / "claude-claude-code-viewer-fe5e1c67-v1.0.98.jsonl"


def users(record: MemoryRecord, session: str = "s") -> list[str]:
    return [r.text for r in record.messages(session) if r.type == "user"]


@pytest.mark.parametrize(
    ("path", "typed"), [(COMPACTION, 14), (PLAIN, 13), (SUMMARIES, 3), (SIDECHAINS, 2)]
)
def test_human_typed_prompts_are_the_only_user_rows(path, typed):
    record = MemoryRecord()
    result = import_transcript(record, "s", path)
    assert result.counts["user"] == typed
    assert len(users(record)) == typed


def test_compact_summary_and_commands_are_not_the_persons_words():
    record = MemoryRecord()
    import_transcript(record, "s", COMPACTION)
    texts = users(record)
    assert not any(t.startswith("This session is being continued") for t in texts)
    assert not any("<command-name>" in t or "Caveat:" in t for t in texts)
    assert not any(t.startswith("[Request interrupted") for t in texts)
    assert texts[-1] == "update phase 4.1 document"


def test_typed_prompt_is_kept_verbatim():
    first = next(
        json.loads(line)
        for line in PLAIN.read_text().splitlines()
        if '"ultrathink' in line and '"type":"user"' in line
    )
    record = MemoryRecord()
    import_transcript(record, "s", PLAIN)
    assert users(record)[0] == first["message"]["content"]


def test_slash_command_with_arguments_is_kept_as_typed():
    record = MemoryRecord()
    import_transcript(record, "s", SIDECHAINS)
    assert users(record)[0].startswith("/orchestrator create TODO a")
    assert users(record)[1].startswith("Thanks! Please update CLAUDE.md")


def test_every_tool_call_gets_exactly_one_result_right_after_its_reply():
    record = MemoryRecord()
    result = import_transcript(record, "s", COMPACTION)
    rows = record.messages("s")
    assert result.counts["tool"] == 48
    calls = [c["id"] for r in rows if r.type == "assistant" for c in r.data.get("tool_calls", ())]
    answered = [r.data["tool_call_id"] for r in rows if r.type == "tool"]
    assert sorted(calls) == sorted(answered)
    for index, row in enumerate(rows):
        if row.type == "tool":
            assert rows[index - 1].type in ("assistant", "tool")


def test_sidechain_threads_are_left_out():
    record = MemoryRecord()
    import_transcript(record, "s", SIDECHAINS)
    texts = " ".join(r.text for r in record.messages("s"))
    assert "Create TypeScript types and interfaces for a TODO app" not in users(record)
    assert "TodoItem component" not in " ".join(users(record))
    assert texts


def test_reimport_adds_nothing(store):
    record = SqliteRecord(store)
    first = import_transcript(record, "s", PLAIN)
    again = import_transcript(record, "s", PLAIN)
    assert first.lines > 0
    assert again.lines == 0
    assert sum(again.counts.values()) == 0


def test_import_since_the_last_line_continues_a_growing_file(tmp_path):
    lines = COMPACTION.read_bytes().splitlines(keepends=True)
    growing = tmp_path / "t.jsonl"
    growing.write_bytes(b"".join(lines[:100]) + lines[100][:50])
    whole, parts = MemoryRecord(), MemoryRecord()
    import_transcript(whole, "s", COMPACTION)
    import_transcript(parts, "s", growing)
    growing.write_bytes(b"".join(lines))
    import_transcript(parts, "s", growing)
    assert users(parts) == users(whole)
    tools = [r.data["tool_call_id"] for r in parts.messages("s") if r.type == "tool"]
    assert len(tools) == len(set(tools)) == 48


def test_an_odd_line_is_skipped_and_counted_and_every_later_line_still_imports(vybe, tmp_path):
    """A line of a shape no release writes (content holding a bare string) must not stop the
    import at that line on every later run."""
    good = {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user"}}
    odd = {**good, "uuid": "u2", "message": {"role": "user", "content": ["a bare string"]}}
    path = tmp_path / "s.jsonl"
    lines = [
        {**good, "message": {"role": "user", "content": "before"}},
        odd,
        {**good, "uuid": "u3", "message": {"role": "user", "content": "after"}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    first = vybe.ok("session", "import", "--claude", str(path))
    with path.open("a") as handle:
        handle.write(json.dumps({**good, "uuid": "u4", "message": {"content": "appended"}}) + "\n")
    second = vybe.ok("session", "import", "--claude", str(path))
    assert (first["imported"]["user"], first["skipped_lines"]) == (2, 1)
    assert second["imported"]["user"] == 1


class Counted(SqliteRecord):
    """A store's record that counts the rows an import asks for."""

    read = 0

    def messages(self, session_id, from_seq=1, to_seq=None):
        rows = super().messages(session_id, from_seq, to_seq)
        self.read += len(rows)
        return rows


def test_an_import_that_finds_nothing_new_reads_no_row_of_the_session(store):
    record = Counted(store)
    assert import_transcript(record, "s", COMPACTION).lines > 0
    record.read = 0
    again = import_transcript(record, "s", COMPACTION)
    assert (again.lines, record.read) == (0, 0)


def test_a_resumed_import_reads_only_the_last_reply_and_what_came_after(store, tmp_path):
    lines = COMPACTION.read_bytes().splitlines(keepends=True)
    growing = tmp_path / "t.jsonl"
    growing.write_bytes(b"".join(lines[:-40]))
    record = Counted(store)
    import_transcript(record, "s", growing)
    before, record.read = len(record.messages("s")), 0
    growing.write_bytes(b"".join(lines))
    import_transcript(record, "s", growing)
    assert 0 < record.read < before / 10


def test_a_budgeted_import_stops_between_messages_and_the_next_goes_on_losing_nothing(tmp_path):
    from vybe.integrations.transcript_import import Budget

    whole, parts = MemoryRecord(), MemoryRecord()
    import_transcript(whole, "s", COMPACTION)
    runs = 0
    while True:
        runs += 1
        done = import_transcript(parts, "s", COMPACTION, budget=Budget(200_000, 60.0))
        if not done.more:
            break
    assert runs > COMPACTION.stat().st_size // 200_000 // 2  # it did stop, many times
    shape = [(r.type, r.text, r.data.get("tool_call_id")) for r in whole.messages("s")]
    assert [(r.type, r.text, r.data.get("tool_call_id")) for r in parts.messages("s")] == shape
