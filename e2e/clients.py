"""The two real CLIs, driven headless against a fake server inside a sandbox."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from sandbox import BIN, FAKE_KEY, Sandbox

CLAUDE_TOOLS = "Bash,TaskCreate,TaskUpdate,ExitPlanMode,mcp__vybe"


class Claude:
    """``claude -p --output-format json`` with ANTHROPIC_BASE_URL at the fake server."""

    def __init__(self, box: Sandbox) -> None:
        self.box = box
        box.env.update(
            ANTHROPIC_BASE_URL=box.server.url,
            ANTHROPIC_API_KEY=FAKE_KEY,
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_TELEMETRY="1",
            DISABLE_AUTOUPDATER="1",
        )

    def turn(self, prompt: str, resume: str | None = None, *extra: str) -> dict[str, Any]:
        argv = [str(BIN / "claude"), "-p", "--output-format", "json"]
        argv += [f"--allowedTools={CLAUDE_TOOLS}", *extra]
        if resume:
            argv += ["--resume", resume]
        done = self.box.run([*argv, prompt])
        try:
            return json.loads(done.stdout)
        except ValueError:
            return {"error": done.stderr[-500:], "exit": done.returncode}


class Codex:
    """``codex exec --json`` with a ``fake`` model provider at the fake server."""

    def __init__(self, box: Sandbox, compact_limit: int | None = None) -> None:
        self.box = box
        self.home = box.home / ".codex"
        self.home.mkdir(exist_ok=True)
        box.env["FAKE_OPENAI_KEY"] = FAKE_KEY
        limit = f"model_auto_compact_token_limit = {compact_limit}\n" if compact_limit else ""
        config = (
            'model = "gpt-fake"\nmodel_provider = "fake"\n' + limit + "\n"
            "[model_providers.fake]\n"
            f'name = "fake"\nbase_url = "{box.server.url}/v1"\n'
            'env_key = "FAKE_OPENAI_KEY"\nwire_api = "responses"\n\n'
            "[features]\nplugins = false\n\n"
            f'[projects."{box.project}"]\ntrust_level = "trusted"\n'
        )
        (self.home / "config.toml").write_text(config)

    def turn(self, prompt: str, resume: str | None = None) -> dict[str, Any]:
        argv = [str(BIN / "codex"), "exec"]
        if resume:
            argv += ["resume", resume]
        argv += ["--skip-git-repo-check", "--json", "--dangerously-bypass-hook-trust", prompt]
        done = self.box.run(argv)
        events = []
        for line in done.stdout.splitlines():
            with contextlib.suppress(ValueError):
                events.append(json.loads(line))
        thread = next((e["thread_id"] for e in events if e.get("type") == "thread.started"), None)
        return {"thread_id": thread, "events": events, "exit": done.returncode}

    def rollout(self, thread: str) -> str | None:
        found = sorted((self.home / "sessions").rglob(f"rollout-*{thread}.jsonl"))
        return str(found[0]) if found else None
