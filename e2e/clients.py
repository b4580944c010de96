"""The two real CLIs, driven headless against a fake server inside a sandbox."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from sandbox import BIN, FAKE_KEY, Sandbox

CLAUDE_TOOLS = (
    "Bash,TaskCreate,TaskUpdate,ExitPlanMode,WaitForMcpServers,ToolSearch,mcp__vybe,"
    "mcp__plugin_vybe_vybe"  # the same server, brought by the plugin
)
TEXT: dict[str, Any] = {"capture_output": True, "text": True}


def wait_for(ready: Any, seconds: float, shown: Any = None) -> None:
    """Poll ``ready`` (a TUI drawing its screen) until it holds; TimeoutError after, with
    what ``shown`` returns (the screen)."""
    import time

    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError(f"not ready after {seconds} s: {shown() if shown else ''}")
        time.sleep(0.2)


class Claude:
    """``claude -p --output-format json`` with ANTHROPIC_BASE_URL at the fake server (the
    sandbox's, or ``server`` where both CLIs share a sandbox); ``executable``: another
    Claude Code than E2E_CACHE's (the benchmark of both versions)."""

    def __init__(self, box: Sandbox, server: Any = None, executable: Any = None) -> None:
        self.box, self.executable = box, str(executable or BIN / "claude")
        box.env.update(
            ANTHROPIC_BASE_URL=(server or box.server).url,
            ANTHROPIC_API_KEY=FAKE_KEY,
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_TELEMETRY="1",
            DISABLE_AUTOUPDATER="1",
        )

    def onboarded(self) -> None:
        """~/.claude.json as after a first interactive start (onboarding done, the key
        approved, the folder trusted): otherwise that start tries the network."""
        state = {
            "hasCompletedOnboarding": True,
            "theme": "dark",
            "customApiKeyResponses": {"approved": [FAKE_KEY[-20:]], "rejected": []},
            "projects": {
                str(self.box.project): {
                    "hasTrustDialogAccepted": True,
                    "hasCompletedProjectOnboarding": True,
                }
            },
        }
        (self.box.home / ".claude.json").write_text(json.dumps(state))

    def turn(self, prompt: str, resume: str | None = None, *extra: str) -> dict[str, Any]:
        argv = [self.executable, "-p", "--output-format", "json"]
        # Manual mode, as 2.1.197 starts: 2.1.332 starts in auto mode, whose server-side check
        # a fake server cannot answer (the turn would stop at the first tool call).
        argv += ["--permission-mode", "default", f"--allowedTools={CLAUDE_TOOLS}", *extra]
        if resume:
            argv += ["--resume", resume]
        done = self.box.run([*argv, prompt])
        try:
            return json.loads(done.stdout)
        except ValueError:
            return {"error": done.stderr[-500:], "exit": done.returncode}


class Tmux:
    """An interactive CLI in a detached tmux session of the sandbox: keys in, screen out."""

    def __init__(self, box: Sandbox, name: str, argv: list[str]) -> None:
        import subprocess

        self.session = f"vybe-e2e-{box.name}-{name}"
        env = [f"{k}={v}" for k, v in box.env.items()]
        tmux = ["tmux", "new-session", "-d", "-s", self.session, "-x", "160", "-y", "45"]
        # Only the sandbox's environment, as in its headless runs: a pane inherits the tmux
        # server's, and a CI machine's CI or CI_* variable makes Ink (Gemini CLI's renderer)
        # draw nothing until the program exits.
        subprocess.run([*tmux, "-c", str(box.project), "env", "-i", *env, *argv], check=True)

    def screen(self) -> str:
        import subprocess

        done = subprocess.run(["tmux", "capture-pane", "-p", "-t", self.session], **TEXT)
        return done.stdout

    def keys(self, *typed: str, literal: bool = False) -> None:
        import subprocess
        import time

        for key in typed:
            flags = ["-l"] if literal else []
            subprocess.run(["tmux", "send-keys", "-t", self.session, *flags, key], check=True)
            time.sleep(0.4)

    def wait_for(self, text: str, seconds: float = 30) -> None:
        wait_for(lambda: text in self.screen(), seconds, self.screen)

    def submit(self, until: str, seconds: float = 30, again_after: float = 5) -> None:
        """Enter, and Enter again each ``again_after`` seconds while ``until`` is not shown:
        Claude Code at its start sometimes drops the first Enter, leaving the prompt typed
        (claude-plan failed so in 2 of 6 runs); an Enter on an empty prompt does nothing."""
        import time

        deadline = time.monotonic() + seconds
        while True:
            self.keys("Enter")
            left = deadline - time.monotonic()
            try:
                return wait_for(lambda: until in self.screen(), min(again_after, left), self.screen)
            except TimeoutError:
                if left <= again_after:
                    raise

    def close(self) -> None:
        import subprocess

        subprocess.run(["tmux", "kill-session", "-t", self.session], check=False, **TEXT)


class Codex:
    """``codex exec --json`` with a ``fake`` model provider at the fake server (the
    sandbox's, or ``server`` where both CLIs share a sandbox)."""

    def __init__(self, box: Sandbox, compact_limit: int | None = None, server: Any = None) -> None:
        self.box = box
        self.home = box.home / ".codex"
        self.home.mkdir(exist_ok=True)
        box.env["FAKE_OPENAI_KEY"] = FAKE_KEY
        limit = f"model_auto_compact_token_limit = {compact_limit}\n" if compact_limit else ""
        config = (
            'model = "gpt-fake"\nmodel_provider = "fake"\n' + limit + "\n"
            "[model_providers.fake]\n"
            f'name = "fake"\nbase_url = "{(server or box.server).url}/v1"\n'
            'env_key = "FAKE_OPENAI_KEY"\nwire_api = "responses"\n\n'
            "[features]\nplugins = false\n\n"
            f'[projects."{box.project}"]\ntrust_level = "trusted"\n'
        )
        (self.home / "config.toml").write_text(config)

    def with_plugins(self) -> None:
        """Codex's plugins on (off elsewhere: no scenario but the plugin's needs them)."""
        path = self.home / "config.toml"
        path.write_text(path.read_text().replace("plugins = false", "plugins = true"))

    def configure(self, text: str) -> None:
        """Append TOML to config.toml (top-level keys go first: ``prepend``)."""
        with (self.home / "config.toml").open("a") as handle:
            handle.write("\n" + text)

    def prepend(self, text: str) -> None:
        path = self.home / "config.toml"
        path.write_text(text + "\n" + path.read_text())

    def turn(
        self, prompt: str, resume: str | None = None, bypass_trust: bool = True, *extra: str
    ) -> dict[str, Any]:
        argv = [str(BIN / "codex"), *extra, "exec"]  # extra: options of codex itself (-c)
        if resume:
            argv += ["resume", resume]
        argv += ["--skip-git-repo-check", "--json"]
        argv += ["--dangerously-bypass-hook-trust"] if bypass_trust else []
        argv.append(prompt)
        done = self.box.run(argv)
        events = []
        for line in done.stdout.splitlines():
            with contextlib.suppress(ValueError):
                events.append(json.loads(line))
        thread = next((e["thread_id"] for e in events if e.get("type") == "thread.started"), None)
        return {"thread_id": thread, "events": events, "exit": done.returncode}

    def trust_hooks_in_the_tui(self) -> str:
        """Start the TUI in tmux and choose "Trust all" in its review of new hooks (as /hooks
        does); what the screen showed. ``--no-daemon``: no app server outlives the test."""
        tui = Tmux(self.box, "trust", [str(BIN / "codex"), "--no-daemon"])
        try:
            # New hooks: the TUI opens its "Hooks need review" prompt by itself at start.
            tui.wait_for("Trust all")
            shown = tui.screen()
            trusted = lambda: "trusted_hash" in (self.home / "config.toml").read_text()  # noqa: E731
            for _ in range(3):  # on a loaded machine the first keys can land before the menu
                tui.keys("Down", "Enter")
                with contextlib.suppress(TimeoutError):
                    wait_for(trusted, 10)
                if trusted() or "Trust all" not in tui.screen():
                    break
            # With a required MCP server the TUI starts it first, and writes the trust after.
            wait_for(trusted, 30, tui.screen)
            return shown
        finally:
            tui.close()

    def rollout(self, thread: str) -> str | None:
        found = sorted((self.home / "sessions").rglob(f"rollout-*{thread}.jsonl"))
        return str(found[0]) if found else None
