"""Importing real Codex rollouts: the person's words verbatim, never Codex's injected context."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import TRANSCRIPTS
from vybe.context.record import MemoryRecord
from vybe.errors import NotFound
from vybe.integrations.importers.codex_rollout import import_rollout, rollout_id
from vybe.store.record import SqliteRecord

V77 = TRANSCRIPTS / "codex-codemie-code-019b7f94-v0.77.jsonl"
V125 = TRANSCRIPTS / "codex-codemie-code-019e1625-v0.125.jsonl"


def users(record: MemoryRecord, session: str = "s") -> list[str]:
    return [r.text for r in record.messages(session) if r.type == "user"]


def typed_events(path: Path) -> list[str]:
    """The ``user_message`` texts of the file, read independently of the importer."""
    lines = [json.loads(raw) for raw in path.read_text().splitlines()]
    return [
        line["payload"]["message"]
        for line in lines
        if line["type"] == "event_msg" and line["payload"]["type"] == "user_message"
    ]


@pytest.mark.parametrize(("path", "typed"), [(V77, 1), (V125, 2)])
def test_human_prompts_are_the_only_user_rows(path, typed):
    record = MemoryRecord()
    result = import_rollout(record, "s", path)
    assert result.counts["user"] == typed
    assert users(record) == typed_events(path)


def test_prompts_are_kept_verbatim():
    record = MemoryRecord()
    import_rollout(record, "s", V125)
    assert users(record) == [
        "show tools",
        "let's update the defailt context compart to 90 in env var",
    ]


@pytest.mark.parametrize("path", [V77, V125])
def test_environment_context_and_agents_md_are_not_the_persons_words(path):
    record = MemoryRecord()
    import_rollout(record, "s", path)
    texts = users(record)
    assert not any("<environment_context>" in t or "AGENTS.md" in t for t in texts)
    assert not any("<permissions instructions>" in t or "<INSTRUCTIONS>" in t for t in texts)


def test_user_role_messages_without_a_user_message_event_are_not_typed(tmp_path):
    lines = [json.loads(raw) for raw in V77.read_text().splitlines()]
    rollout = tmp_path / "r.jsonl"
    rollout.write_text("".join(json.dumps(line) + "\n" for line in lines[:4]))
    record = MemoryRecord()
    import_rollout(record, "s", rollout)
    assert lines[3]["payload"]["role"] == "user"
    assert users(record) == []


def test_assistant_messages_and_every_call_with_its_output():
    record = MemoryRecord()
    result = import_rollout(record, "s", V125)
    rows = record.messages("s")
    replies = [r.text for r in rows if r.type == "assistant" and r.text]
    assert len(replies) == 13
    assert replies[-1].startswith("Implemented the default context compaction setting")
    calls = [c for r in rows if r.type == "assistant" for c in r.data.get("tool_calls", ())]
    assert result.counts["tool"] == len(calls) == 102  # 99 function calls, 3 apply_patch
    assert sum(c["name"] == "apply_patch" for c in calls) == 3
    answered = [r.data["tool_call_id"] for r in rows if r.type == "tool"]
    assert sorted(c["id"] for c in calls) == sorted(answered)
    for index, row in enumerate(rows):
        if row.type == "tool":
            assert rows[index - 1].type in ("assistant", "tool")


def test_call_arguments_are_parsed_and_a_non_zero_exit_is_an_error():
    record = MemoryRecord()
    import_rollout(record, "s", V125)
    rows = record.messages("s")
    first = next(c for r in rows for c in r.data.get("tool_calls", ()))
    assert first["name"] == "exec_command" and first["arguments"]["cmd"].startswith("sed -n")
    failed = [r.text for r in rows if r.type == "tool" and r.data.get("is_error")]
    assert len(failed) == 4
    assert all("Process exited with code " in t for t in failed)


def test_a_shell_output_wrapped_in_json_is_unwrapped():
    record = MemoryRecord()
    import_rollout(record, "s", V77)
    tools = [r for r in record.messages("s") if r.type == "tool"]
    assert tools[1].text == "docs/AGENTS.md\n"
    assert tools[1].source == "shell" and not tools[1].data.get("is_error")


def test_the_session_is_named_by_its_session_meta():
    assert rollout_id(V77) == "019b7f94-51b4-7593-922e-ba12b5b73b52"


def test_reimport_adds_nothing(store):
    record = SqliteRecord(store)
    first = import_rollout(record, "s", V125)
    again = import_rollout(record, "s", V125)
    assert first.lines == 386 and first.offset == V125.stat().st_size
    assert again.lines == 0 and sum(again.counts.values()) == 0


def test_import_since_the_last_line_continues_a_growing_file(tmp_path):
    lines = V125.read_bytes().splitlines(keepends=True)
    growing = tmp_path / "rollout.jsonl"
    growing.write_bytes(b"".join(lines[:22]) + lines[22][:40])
    whole, parts = MemoryRecord(), MemoryRecord()
    import_rollout(whole, "s", V125)
    first = import_rollout(parts, "s", growing)
    assert first.lines == 22 and users(parts) == ["show tools"]
    growing.write_bytes(b"".join(lines))
    import_rollout(parts, "s", growing)
    assert [(r.type, r.text) for r in parts.messages("s")] == [
        (r.type, r.text) for r in whole.messages("s")
    ]


def test_malformed_and_unknown_lines_are_skipped(tmp_path):
    rollout = tmp_path / "bad.jsonl"
    typed = {"type": "event_msg", "payload": {"type": "user_message", "message": "keep me"}}
    rollout.write_text(
        "{not json\n"
        + json.dumps({"type": "world_state", "payload": {"x": 1}})
        + "\n"
        + json.dumps({"type": "response_item", "payload": "not an object"})
        + "\n"
        + json.dumps(typed)
        + "\n"
    )
    record = MemoryRecord()
    result = import_rollout(record, "s", rollout)
    assert (result.lines, result.skipped) == (4, 1)
    assert users(record) == ["keep me"]


def test_a_missing_rollout_is_not_found(tmp_path):
    with pytest.raises(NotFound):
        import_rollout(MemoryRecord(), "s", tmp_path / "gone.jsonl")
