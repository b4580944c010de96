"""Replay of real Claude Code transcripts through the engine, offline, in a copy session."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import TRANSCRIPTS
from vybe.agent.offline import Consolidator
from vybe.agent.replay import replay
from vybe.context import assemble
from vybe.context.budget import ModelLimits, compute
from vybe.context.engine import Engine
from vybe.context.memo import CUT_NOTE
from vybe.integrations.importers.claude_transcript import import_transcript
from vybe.store.checkpoints import checkpoint_by_id
from vybe.store.record import SqliteRecord

COMPACTION = str(TRANSCRIPTS / "claude-codemie-code-624a4a58-compaction.jsonl")
REAL = [COMPACTION, str(TRANSCRIPTS / "claude-codemie-code-196820da.jsonl")]
LIMITS = ModelLimits(window=32_000)
SHOWN = re.compile(r'<user-message number="(\d+)">\n(.*?)\n</user-message>', re.DOTALL)
META = ("Caveat:", "<command-name>", "<local-command-stdout>", "This session is being continued")


def replayed(store, tmp_path, path: str) -> tuple[SqliteRecord, dict]:
    record = SqliteRecord(store)
    import_transcript(record, "src", Path(path))
    engine = Engine(record, Consolidator(), LIMITS)
    return record, replay(engine, "src", tmp_path)


def accepted(store, report: dict) -> list:
    ids = [c["kept"]["checkpoint_id"] for c in report["checkpoints"] if c["kept"]]
    return [checkpoint_by_id(store.conn, i) for i in ids]


@pytest.mark.parametrize("path", REAL, ids=["624a4a58-compaction", "196820da"])
def test_replay_of_a_real_transcript_takes_several_checkpoints(store, tmp_path, path):
    _, report = replayed(store, tmp_path, path)
    assert report["accepted"] >= 5 and report["stopped"] is None
    taken = [c for c in report["checkpoints"] if c["outcome"] == "accepted"]
    assert all(c["tokens_after"] < c["tokens_before"] for c in taken)
    assert all(c["kept"]["mission"] and c["kept"]["now_tokens"] > 0 for c in taken)


def test_replay_leaves_the_source_session_as_it_was(store, tmp_path):
    record = SqliteRecord(store)
    import_transcript(record, "src", Path(COMPACTION))
    before = record.messages("src")
    engine = Engine(record, Consolidator(), LIMITS)
    report = replay(engine, "src", tmp_path)
    assert record.messages("src") == before
    assert record.latest_checkpoint("src") is None and record.attempts("src") == []
    copy = record.messages(report["session_id"])
    assert [(r.seq, r.type, r.text) for r in copy] == [(r.seq, r.type, r.text) for r in before]


@pytest.mark.parametrize("path", REAL, ids=["624a4a58-compaction", "196820da"])
def test_every_kept_user_message_is_byte_identical_to_its_record_row(store, tmp_path, path):
    record, report = replayed(store, tmp_path, path)
    source = {r.seq: r for r in record.messages("src")}
    budget, shown = compute(LIMITS), 0
    for checkpoint in accepted(store, report):
        view = assemble.View(report["session_id"], checkpoint, [], source)
        for number, text in SHOWN.findall(assemble.recollection(view, budget)):
            original = source[int(number)].text
            note = "\n" + CUT_NOTE.format(seq=number)
            assert text == original or (
                text.endswith(note) and original.startswith(text[: -len(note)])
            )
            shown += 1
    assert shown >= 3


def test_no_harness_or_meta_text_enters_the_memo(store, tmp_path):
    record, report = replayed(store, tmp_path, COMPACTION)
    source = {r.seq: r for r in record.messages("src")}
    users = [r for r in source.values() if r.type == "user"]
    assert len(users) == 14
    for checkpoint in accepted(store, report):
        for mark in checkpoint.memo:
            assert source[mark.seq].type == "user"
            assert not source[mark.seq].text.startswith(META)
    assert not any(marker in r.text for r in users for marker in META)
