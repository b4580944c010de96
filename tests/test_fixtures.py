"""The real transcripts the tests read are the upstream files, byte for byte."""

from __future__ import annotations

import hashlib

import pytest

from tests.conftest import TRANSCRIPTS

SHA256 = {
    "claude-codemie-code-624a4a58-compaction.jsonl": (
        "487cba2d5d6a86d009641e5c071d1f0488ed90659a4afba74cf31b2dde6ac722"
    ),
    "claude-codemie-code-196820da.jsonl": (
        "14a148e2d8bc64ef8c9ff7f3879b01b23c6816f623c084aeed6a69a8129e9b30"
    ),
    "claude-codemie-code-9eda1058-summaries.jsonl": (
        "79122bdc2014f7d907d8b86932c40e68cdd9cbff6cf054bac4f9ddd5565cf3db"
    ),
    "claude-claude-code-viewer-fe5e1c67-v1.0.98.jsonl": (
        "8cce2fac5f598346c277e071e1a410a4f12b96dfde1581c9722d32b54dd613e6"
    ),
    "codex-codemie-code-019b7f94-v0.77.jsonl": (
        "8106ce5b2afdd3e6f8ba87801a08101b624004eed7d82eceddaadc0b9b7cd59a"
    ),
    "codex-codemie-code-019e1625-v0.125.jsonl": (
        "8cb269b4fbbdda6eb74a2c0a14b58fbb43f8f1a67d648d63bec00e974969fe18"
    ),
}


@pytest.mark.parametrize("name", sorted(SHA256))
def test_each_transcript_is_the_upstream_blob(name: str) -> None:
    assert hashlib.sha256((TRANSCRIPTS / name).read_bytes()).hexdigest() == SHA256[name]


def test_every_transcript_is_listed_with_its_license() -> None:
    readme = (TRANSCRIPTS / "README.md").read_text()
    assert sorted(p.name for p in TRANSCRIPTS.glob("*.jsonl")) == sorted(SHA256)
    assert all(name in readme for name in SHA256)
    assert (
        (TRANSCRIPTS / "licenses" / "codemie-code-LICENSE")
        .read_text()
        .startswith(" " * 33 + "Apache License")
    )
    assert (TRANSCRIPTS / "licenses" / "claude-code-viewer-LICENSE").read_text().startswith("MIT")
