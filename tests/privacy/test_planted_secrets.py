"""Secrets and private spans pushed through vybe's entry paths never reach the store's files:
the raw bytes of the SQLite database, its -wal and -shm, or a ``pg_dump`` of the PostgreSQL
store, are searched for each of them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.integrations.conftest import Agent
from tests.privacy.planted import needles, planted

PRIVATE = "my-private-phrase-17f3"
TRANSCRIPT = Path(__file__).parents[1] / "integrations" / "fixtures" / "claude" / "transcript.jsonl"


def words(batch: list[tuple[str, str, str]]) -> str:
    lines = "\n".join(line for _, _, line in batch)
    return f"please look at these:\n{lines}\n<private>{PRIVATE}</private> thanks"


def store_bytes(vybe) -> bytes:
    """The SQLite files' bytes (database, -wal, -shm), or a server store's ``pg_dump``."""
    if hasattr(vybe, "pg_dump"):
        return vybe.pg_dump()
    folder = vybe.db_path.parent
    return b"".join(
        path.read_bytes() for path in folder.iterdir() if path.name.startswith(vybe.db_path.name)
    )


def home_bytes(vybe, *written: Path) -> bytes:
    """Every file under the test's HOME (the config folder, the store's folder, logs, kept
    prompts, locks) but those the test wrote itself (``written``): what vybe left on disk."""
    skipped = {path.resolve() for path in written}
    files = [p for p in sorted(vybe.home.rglob("*")) if p.is_file() and p.resolve() not in skipped]
    assert any(p.is_relative_to(vybe.config_dir) for p in files)
    return b"".join(path.read_bytes() for path in files)


def transcript_with(tmp_path: Path, text: str, output: str = "") -> Path:
    """The real Claude Code transcript with its first typed prompt's words replaced and,
    given ``output``, its first tool result's output too."""
    lines = TRANSCRIPT.read_text().splitlines()
    typed = False
    for index, line in enumerate(lines):
        entry = json.loads(line)
        content = entry.get("message", {}).get("content") if entry.get("type") == "user" else 0
        if isinstance(content, str) and not typed:
            entry["message"]["content"], typed = text, True
        elif output and isinstance(content, list) and content[0]["type"] == "tool_result":
            content[0]["content"] = entry["toolUseResult"]["stdout"] = output
            output = ""
        lines[index] = json.dumps(entry)
    path = tmp_path / "transcript.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_no_planted_secret_or_private_span_reaches_the_store_or_a_file_vybe_writes(vybe, tmp_path):
    secrets = planted()
    assert len(secrets) == 40 and len({shape for shape, _, _ in secrets}) == 20
    batches = [secrets[i::5] for i in range(5)]
    project = tmp_path / "proj"
    project.mkdir()
    agent = Agent(vybe, project)
    assert agent.send("claude", "user_prompt_submit", prompt=words(batches[0])).code == 0
    assert agent.send("codex", "user_prompt_submit", prompt=words(batches[1])).code == 0
    # A tool's output: in a transcript's tool result, and in Claude Code's failed-tool hook.
    agent.transcript = transcript_with(tmp_path, words(batches[2]), words(secrets))
    assert agent.send("claude", "stop", session_id="imported-session").code == 0
    failure = agent.send("claude", "post_tool_use_failure", error=words(batches[3]))
    assert failure.code == 0
    vybe.ok("memory", "set", "-k", "creds", "-v", words(batches[3]))
    vybe.ok("task", "create", "--title", "rotate keys", "--description", words(batches[4]))

    found = store_bytes(vybe) + home_bytes(vybe, agent.transcript)
    assert b"please look at these" in found  # the words around them were kept
    assert b"[REDACTED:" in found
    for shape, secret, _ in secrets:
        for needle in needles(secret):
            assert needle.encode() not in found, (shape, where(vybe, needle))
    assert PRIVATE.encode() not in found
    typed = vybe.sql("SELECT content_text FROM messages WHERE type = 'user'")
    assert sum("please look at these" in text for (text,) in typed) == 3
    (output,) = vybe.sql("SELECT content_text FROM messages WHERE type = 'tool'")[0]
    assert output.startswith("please look at these") and "[REDACTED:" in output
    (failure,) = vybe.sql("SELECT message FROM events WHERE kind = 'tool_failure'")[0]
    assert failure.startswith("Bash: please look at these")


def where(vybe, needle: str) -> list[str]:
    """The store's rows that hold ``needle``: what a failure names."""
    return [line[:120] for line in vybe.dump().splitlines() if needle in line]
