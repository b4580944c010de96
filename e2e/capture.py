"""Capture mode: the real payloads of an e2e run become the unit tests' fixtures.

The first payload of each kind is kept as ``tests/integrations/fixtures/<target>/<name>.json``
(``<target>@<version>/`` when the CLI is not the version package.json pins: ``make
e2e-latest``'s) with machine-specific paths scrubbed: ``cwd`` becomes ``{cwd}``, ``transcript_path``
``{transcript}`` (the unit tests fill both in), the sandbox folder anywhere else
``/home/user``, and vybe's own folder ``/home/user/.venv/bin``. The rollouts of the headless
and compact Codex scenarios are kept too (``codex/rollout.jsonl``, ``rollout-compact.jsonl``),
and the first transcript of the gemini-hooks scenario (``gemini/transcript.jsonl``),
and the newest JSON the interactive Claude Code piped to its ``statusLine`` command in the
claude-plan scenario (``tests/fixtures/statusline/<target>[@<version>].json``; the scenario
wraps the command vybe installs in a ``tee`` of its stdin).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from sandbox import REPO, VYBE, Sandbox

FIXTURES = REPO / "tests" / "integrations" / "fixtures"
STATUS_LINE_FIXTURES = REPO / "tests" / "fixtures" / "statusline"
ROLLOUT_FIXTURES = ("codex-headless", "codex-compact")  # the scenarios whose rollout is kept
GEMINI_TRANSCRIPT = "gemini-hooks"  # the scenario whose first Gemini CLI transcript is kept
PACKAGES = {
    "claude": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "gemini": "@google/gemini-cli",
}


def version_of(shown: str) -> str | None:
    """``2.1.332`` of ``2.1.332 (Claude Code)``, ``0.171.0`` of ``codex-cli 0.171.0``."""
    found = re.search(r"\d+\.\d+\.\d+", shown)
    return found[0] if found else None


def folder(target: str, versions: dict[str, str | None]) -> str:
    """``claude`` for the version package.json pins, ``claude@2.1.332`` for another."""
    pinned = json.loads((REPO / "package.json").read_text())["dependencies"][PACKAGES[target]]
    version = versions.get(target)
    return target if version in (None, pinned) else f"{target}@{version}"


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def fixture_name(payload: dict[str, Any]) -> str | None:
    """``session_start_startup``, ``post_tool_use_failed_bash``, …; None: not a fixture."""
    event = str(payload.get("hook_event_name") or "")
    name = snake(event)
    if event == "SessionStart":
        return f"{name}_{payload.get('source')}"
    if event == "PreCompress":  # Gemini CLI's: auto before every model call, manual /compress
        return f"{name}_{payload.get('trigger')}"
    if event == "AfterTool":  # Gemini CLI's, a failure with its ``error``
        response = payload.get("tool_response")
        failed = isinstance(response, dict) and response.get("error")
        return f"{name}_{'failed' if failed else 'ok'}_{snake(str(payload.get('tool_name')))}"
    if event in ("PostToolUse", "PostToolUseFailure"):
        tool = str(payload.get("tool_name") or "tool")
        if tool.startswith("mcp__") or tool in ("Task", "TaskCreate", "TaskUpdate"):
            return None
        text = json.dumps(payload.get("tool_input"))
        outcome = "failed_" if "/nonexistent" in text or event.endswith("Failure") else "ok_"
        return f"{name}_{outcome}{snake(tool)}" if event == "PostToolUse" else name
    return name or None


def scrub_text(text: str, box: Sandbox) -> str:
    """The sandbox's folders and vybe's own path (the brief's command lines name it) as a
    user's machine would have them."""
    text = text.replace(str(Path(VYBE).parent), "/home/user/.venv/bin")
    return text.replace(str(box.project), "/home/user/project").replace(str(box.root), "/home/user")


def scrub(value: Any, box: Sandbox) -> Any:
    if isinstance(value, dict):
        return {k: scrub(v, box) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v, box) for v in value]
    if isinstance(value, str):
        return scrub_text(value, box)
    return value


def scrubbed(payload: dict[str, Any], box: Sandbox) -> dict[str, Any]:
    clean = scrub(payload, box)
    if payload.get("cwd") == str(box.project):
        clean["cwd"] = "{cwd}"
    if payload.get("transcript_path"):
        clean["transcript_path"] = "{transcript}"
    return clean


def status_line_fixture(path: Path, box: Sandbox, name: str) -> Path:
    out = STATUS_LINE_FIXTURES / f"{name}.json"
    payload = scrubbed(json.loads(path.read_text()), box)
    out.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    return out


def refresh_fixtures(boxes: list[Sandbox], versions: dict[str, str | None]) -> str:
    """Write the first payload of each (target, name), in the folder of the CLI's version;
    say what was written."""
    written: dict[tuple[str, str], Path] = {}
    claude, codex = folder("claude", versions), folder("codex", versions)
    for box in boxes:
        for path in sorted(box.captured.glob("*.json")):
            payload = json.loads(path.read_text())
            name = fixture_name(payload)  # None for the status line's JSON
            target = folder(path.stem.split("-")[1], versions) if name else ""
            if name is None or (target, name) in written:
                continue
            out = FIXTURES / target / f"{name}.json"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(scrubbed(payload, box), indent=2, ensure_ascii=False) + "\n")
            written[(target, name)] = out
    for box in (b for b in boxes if b.name in ROLLOUT_FIXTURES):
        rollouts = sorted((box.home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
        name = "rollout" + box.name.removeprefix("codex").replace("-headless", "")
        if rollouts and (codex, name) not in written:
            out = FIXTURES / codex / f"{name}.jsonl"
            out.write_text(scrub_text(rollouts[0].read_text(), box))
            written[(codex, name)] = out
    for box in (b for b in boxes if b.name == GEMINI_TRANSCRIPT):
        chats = sorted((box.home / ".gemini" / "tmp").rglob("session-*.jsonl"))
        if chats and ("gemini", "transcript") not in written:
            out = FIXTURES / "gemini" / "transcript.jsonl"
            out.write_text(scrub_text(chats[0].read_text(), box))
            written[("gemini", "transcript")] = out
    for box in boxes:
        shown = sorted(box.captured.glob("statusline-*.json"))
        if shown and ("statusline", claude) not in written:
            written[("statusline", claude)] = status_line_fixture(shown[-1], box, claude)
    lines = [f"captured {t}/{n}" for t, n in sorted(written)]
    return "\n".join(lines) or "captured nothing"
