"""An imported transcript keeps the times it gives its lines, on both stores, so a time
range over imported history answers by when things happened; the time of import is kept
beside it."""

from __future__ import annotations

import json

from tests.conftest import TRANSCRIPTS
from tests.integrations.conftest import FIXTURES


def _times(vybe, session: str) -> list[tuple[str, str, str]]:
    rows = vybe.sql(
        "SELECT type, created_at, content_json FROM messages WHERE session_id = ?"
        " ORDER BY context_seq",
        (session,),
    )
    return [(kind, at, json.loads(data or "{}")) for kind, at, data in rows]


def test_imported_rows_are_written_at_the_transcripts_times_with_the_import_time_beside(vybe):
    path = FIXTURES / "claude" / "transcript.jsonl"
    session = vybe.ok("session", "import", "--claude-transcript", str(path))["session_id"]
    rows = _times(vybe, session)
    first_user = next(at for kind, at, _ in rows if kind == "user")
    assert first_user == "2026-08-01T10:00:00.000000Z"
    assert all(at.startswith("2026-08-01T10:") for _, at, _ in rows)
    stamps = [
        d for _, _, d in rows if any("imported_at" in v for v in d.values() if isinstance(v, dict))
    ]
    assert len(stamps) == len(rows)
    imported = next(v for v in stamps[0].values() if isinstance(v, dict))["imported_at"]
    assert imported > "2026-08-01T11"  # now, not the transcript's time


def test_a_time_range_finds_imported_history_by_when_it_happened(vybe):
    path = FIXTURES / "claude" / "transcript.jsonl"
    vybe.ok("session", "import", "--claude-transcript", str(path))
    before = vybe.ok("search", "flaky login", "--until", "2026-08-01T11:00:00Z")
    assert before["count"] >= 1
    assert vybe.ok("search", "flaky login", "--since", "2026-08-02")["count"] == 0


def test_a_codex_rollout_keeps_its_times_too(vybe):
    path = next(TRANSCRIPTS.glob("codex-*-v0.125.jsonl"))
    session = vybe.ok("session", "import", "--codex-rollout", str(path))["session_id"]
    first = json.loads(path.read_text().splitlines()[0])["timestamp"]
    times = [at for _, at, _ in _times(vybe, session)]
    assert times and min(times) >= first[:19] and max(times) < "2026-12-02"
