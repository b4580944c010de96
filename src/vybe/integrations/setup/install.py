"""Merge vybe's hook entries into Claude Code, Codex and Gemini CLI settings, and take them
out again."""

from __future__ import annotations

import copy
import os
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from vybe import config
from vybe.errors import InvalidInput
from vybe.integrations.setup import manifest, settings_file
from vybe.integrations.setup.manifest import HookSpec


def gemini_home() -> Path:
    """Gemini CLI's folder: ``~/.gemini``, under ``$GEMINI_CLI_HOME`` when that is set."""
    return Path(os.environ.get("GEMINI_CLI_HOME") or os.path.expanduser("~"), ".gemini")


def settings_path(target: str, project_dir: Path | None) -> Path:
    """Where each agent reads hooks: user scope by default, the project's with --project."""
    if target == "gemini":
        return (project_dir / ".gemini" if project_dir else gemini_home()) / "settings.json"
    if target == "claude":
        if project_dir is not None:
            return project_dir / ".claude" / "settings.json"
        home = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(
            os.path.expanduser("~"), ".claude"
        )
        return Path(home) / "settings.json"
    if project_dir is not None:
        return project_dir / ".codex" / "hooks.json"
    home = os.environ.get("CODEX_HOME") or os.path.expanduser("~/.codex")
    return Path(home) / "hooks.json"


def handler_command(target: str, executable: list[str] | None = None) -> str:
    return shlex.join([*(executable or config.vybe_argv()), "hook", "run", target])


def command_argv(command: str) -> list[str] | None:
    try:
        return shlex.split(command)
    except ValueError:
        return None


def is_ours(handler: object, word: str = "hook") -> bool:
    """A handler that runs some vybe's ``hook`` command (this install, an old path, the Go
    one), or with ``word`` another of its commands (``statusline``)."""
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return False
    argv = command_argv(handler["command"]) or []
    if len(argv) >= 4 and argv[1:3] == ["-m", "vybe"]:
        argv = ["vybe", *argv[3:]]  # `<python> -m vybe hook ...`
    return len(argv) >= 2 and Path(argv[0]).name == "vybe" and argv[1] == word


def status_line_command(executable: list[str] | None = None) -> str:
    return shlex.join([*(executable or config.vybe_argv()), "statusline"])


def offer_status_line(document: dict, outcome: Outcome) -> dict:
    """Claude Code's ``statusLine`` set to ``vybe statusline`` when the user has none (or
    vybe's own, from another path); a status line of the user's own is kept as it is."""
    current = document.get("statusLine")
    wanted = {"type": "command", "command": status_line_command(), "padding": 0}
    if current is not None and not is_ours(current, "statusline"):
        outcome.status_line = "kept_yours"
    elif current == wanted:
        outcome.status_line = "unchanged"
    else:
        outcome.status_line = "installed" if current is None else "updated"
        document["statusLine"] = wanted
    return document


# Gemini CLI reads a hook's timeout in milliseconds, and names it (``/hooks disable vybe``).
MILLISECONDS = frozenset({"gemini"})
NAMED = "vybe"


def _entry(spec: HookSpec, target: str) -> dict:
    timeout = spec.timeout * 1000 if target in MILLISECONDS else spec.timeout
    handler: dict = {"type": "command", "command": handler_command(target), "timeout": timeout}
    if target in MILLISECONDS:
        handler = {"name": NAMED, **handler}
    if spec.is_async:
        handler["async"] = True
    group: dict = {"hooks": [handler]}
    if spec.matcher is not None:
        group = {"matcher": spec.matcher, **group}
    return group


def _without_ours(groups: list) -> tuple[list, int | None]:
    """The groups with vybe's handlers taken out, and where the first of them stood."""
    kept, first = [], None
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list) or not any(is_ours(h) for h in handlers):
            kept.append(group)
            continue
        first = len(kept) if first is None else first
        others = [h for h in handlers if not is_ours(h)]
        if others:
            kept.append({**group, "hooks": others})
    return kept, first


def _take_off(hooks: dict, event: str, outcome: Outcome) -> None:
    """Remove vybe's handlers from one event; drop the event when only they filled it."""
    kept, first = _without_ours(hooks[event])
    if first is None:
        return
    outcome.removed.append(event)
    if kept:
        hooks[event] = kept
    else:
        del hooks[event]


@dataclass
class Outcome:
    path: Path
    installed: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    written: bool = False
    # Claude Code's statusLine: installed, updated, unchanged, kept_yours or removed.
    status_line: str | None = None

    def as_dict(self) -> dict:
        return {
            "path": str(self.path),
            "installed": self.installed,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "written": self.written,
            "status_line": self.status_line,
        }


def merge(document: dict, target: str, specs: tuple[HookSpec, ...], outcome: Outcome) -> dict:
    """Put exactly one vybe entry on each event of ``specs`` (the target agent's), in place of
    any earlier one, and take vybe's entries off the events the manifest no longer names."""
    hooks = document.setdefault("hooks", {})
    wanted_events = {spec.event for spec in specs}
    for event in [e for e in hooks if e not in wanted_events and isinstance(hooks[e], list)]:
        _take_off(hooks, event, outcome)
    for spec in specs:
        groups = hooks.get(spec.event, [])
        if not isinstance(groups, list):
            raise InvalidInput(
                f"hooks.{spec.event} is not a list of hook groups; vybe will not overwrite it",
                code="SETTINGS_UNREADABLE",
                context={"event": spec.event},
                suggested_action="fix that entry by hand, then install again",
            )
        kept, first = _without_ours(groups)
        wanted = _entry(spec, target)
        if first is None:
            outcome.installed.append(spec.event)
            kept.append(wanted)
        else:
            kept.insert(first, wanted)
            same = kept == groups
            (outcome.unchanged if same else outcome.updated).append(spec.event)
        hooks[spec.event] = kept
    return document


def unmerge(document: dict, outcome: Outcome) -> dict:
    """Take out only vybe's handlers (and its status line); drop what only they filled."""
    if is_ours(document.get("statusLine"), "statusline"):
        del document["statusLine"]
        outcome.status_line = "removed"
    hooks = document.get("hooks")
    if not isinstance(hooks, dict):
        return document
    for event in [e for e in hooks if isinstance(hooks[e], list)]:
        _take_off(hooks, event, outcome)
    if not hooks and outcome.removed:
        del document["hooks"]
    return document


def install(target: str, project_dir: Path | None, *, dry_run: bool = False) -> Outcome:
    specs, _ = manifest.load()
    path = settings_path(target, project_dir)
    outcome = Outcome(path)

    def change(document: dict) -> dict:
        merged = merge(document, target, specs[target], outcome)
        return offer_status_line(merged, outcome) if target == "claude" else merged

    outcome.written = settings_file.update(path, change, dry_run=dry_run) and not dry_run
    return outcome


def uninstall(target: str, project_dir: Path | None, *, dry_run: bool = False) -> Outcome:
    path = settings_path(target, project_dir)
    outcome = Outcome(path)

    def change(document: dict) -> dict:
        return unmerge(document, outcome)

    outcome.written = settings_file.update(path, change, dry_run=dry_run) and not dry_run
    return outcome


def _executable(command: str) -> str | None:
    argv = command_argv(command)
    return argv[0] if argv else None


def _runnable(executable: str | None) -> bool:
    """A path that can run, or a bare name found on PATH (`vybe hook run claude`)."""
    if not executable:
        return False
    if os.sep not in executable:
        return shutil.which(executable) is not None
    return os.access(executable, os.X_OK)


def registry_check() -> tuple[dict, dict[str, tuple[HookSpec, ...]] | None]:
    """Doctor's check of the hook registry (hooks.json in the config dir), and its hooks;
    None when it cannot be read: no defaults stand in for a registry the person broke."""
    where = manifest.path()
    old = where.with_name(config.OLD_HOOK_MANIFEST)
    detail: dict[str, object] = {"path": str(where), "exists": where.is_file()}
    problems = []
    try:
        specs: dict[str, tuple[HookSpec, ...]] | None = manifest.load()[0]
    except InvalidInput as exc:
        specs = None
        problems.append(f"{exc} (the agents' hooks are not compared with it)")
    if not where.is_file():
        detail["note"] = "absent: the defaults apply (vybe init or vybe hook export writes them)"
    if old.is_file():
        problems.append(f"{old} is no longer read: move its entries into {where.name}")
    detail["problems"] = problems
    return {"name": "hook_registry", "ok": not problems, "detail": detail}, specs


def _differs(target: str, document: dict, specs: dict[str, tuple[HookSpec, ...]] | None) -> list:
    """The events whose vybe entry `vybe hook install` would change now: what the registry
    says and an agent's settings hold no longer agree."""
    if specs is None or not any(is_ours(h) for g in _groups(document) for h in g.get("hooks", [])):
        return []
    outcome = Outcome(Path())
    merge(copy.deepcopy(document), target, specs[target], outcome)
    return sorted({*outcome.installed, *outcome.updated, *outcome.removed})


def inspect(target: str, path: Path, specs: dict[str, tuple[HookSpec, ...]] | None = None) -> dict:
    """What vybe has installed in one settings file: events, stale paths, duplicates, and
    the events that differ from the registry ``specs``."""
    try:
        document = settings_file.read(path)
    except Exception as exc:
        return {
            "path": str(path),
            "error": str(exc),
            "events": {},
            "stale": [],
            "duplicates": [],
            "differs": [],
        }
    current = handler_command(target)
    events: dict[str, list[str]] = {}
    for event, groups in (document.get("hooks") or {}).items():
        for group in groups if isinstance(groups, list) else []:
            for handler in group.get("hooks", []) if isinstance(group, dict) else []:
                if is_ours(handler):
                    events.setdefault(event, []).append(handler["command"])
    commands = {c for listed in events.values() for c in listed}
    stale = sorted(c for c in commands if not _runnable(_executable(c)))
    return {
        "path": str(path),
        "events": events,
        "stale": stale,
        "other_vybe": sorted(commands - {current} - set(stale)),
        "duplicates": sorted(event for event, listed in events.items() if len(listed) > 1),
        "differs": _differs(target, document, specs),
    }


def codex_setup(project_dir: Path, db_path: str) -> dict:
    """Doctor's check of what Codex needs besides hooks.json or the vybe plugin (trust,
    sandbox, MCP entry)."""
    from vybe.integrations.setup import codex_config

    sources = []  # the trust keys of each set of vybe's Codex hooks
    for path in dict.fromkeys(settings_path("codex", d) for d in (None, project_dir)):
        try:
            document = settings_file.read(path)
        except Exception:
            continue  # hooks_codex reports the file
        if any(is_ours(h) for g in _groups(document) for h in g.get("hooks", [])):
            sources.append(codex_config.trust_keys(str(path), document, is_ours))
    config = codex_config.read(codex_config.config_path())
    plugins = codex_config.plugins(config) if "error" not in config else {}
    sources += [codex_config.plugin_trust_keys(key, root) for key, root in plugins.items()]
    problems: list[str] = []
    configs = []
    for keys in sources:
        found = codex_config.setup(keys, db_path, project_dir)
        configs.append(found["config"])
        problems += [p for p in found["problems"] if p not in problems]
    detail: dict[str, object] = {"config": sorted(set(configs)), "problems": problems}
    if not configs:
        detail["note"] = "vybe's Codex hooks are not installed"
    return {"name": "codex_setup", "ok": not problems, "detail": detail}


def gemini_setup(project_dir: Path) -> dict:
    """Doctor's check of what turns vybe's Gemini CLI hooks off besides settings.json's
    ``hooks``: ``hooksConfig.enabled`` false, or ``vybe`` (their name) in
    ``hooksConfig.disabled`` (`/hooks disable vybe`), in the user's or the project's
    settings."""
    problems: list[str] = []
    installed = False
    for path in dict.fromkeys(settings_path("gemini", d) for d in (None, project_dir)):
        try:
            document = settings_file.read(path)
        except Exception:
            continue  # hooks_gemini reports the file
        installed = installed or any(is_ours(h) for g in _groups(document) for h in g["hooks"])
        switches = document.get("hooksConfig")
        switches = switches if isinstance(switches, dict) else {}
        if switches.get("enabled") is False:
            problems.append(f"{path}: hooksConfig.enabled is false (Gemini CLI runs no hook)")
        disabled = switches.get("disabled")
        if isinstance(disabled, list) and NAMED in disabled:
            problems.append(f"{path}: {NAMED!r} is in hooksConfig.disabled (/hooks enable vybe)")
    detail: dict[str, object] = {"problems": problems}
    if not installed:
        detail["note"] = "vybe's Gemini CLI hooks are not installed"
    return {"name": "gemini_setup", "ok": not problems, "detail": detail}


def _groups(document: dict) -> list[dict]:
    hooks = document.get("hooks") or {}
    return [g for gs in hooks.values() if isinstance(gs, list) for g in gs if isinstance(g, dict)]


def health(project_dir: Path, db_path: str) -> list[dict]:
    """Doctor checks: one per agent, over its user and project settings files, and what
    Codex and Gemini CLI need besides."""
    registry, specs = registry_check()
    checks = [registry]
    for target in manifest.TARGETS:
        paths = dict.fromkeys(settings_path(target, d) for d in (None, project_dir))
        files = [inspect(target, p, specs) for p in paths]
        installed = sorted({e for f in files for e in f["events"]})
        wanted = specs[target] if specs else ()
        missing = [s.event for s in wanted if installed and s.event not in installed]
        both = [
            event
            for event in set(files[0]["events"]) & set(files[-1]["events"])
            if files[0]["events"][event] != files[-1]["events"][event]
        ]
        problems = [
            f for f in files if f.get("error") or f["stale"] or f["duplicates"] or f["differs"]
        ]
        checks.append(
            {
                "name": f"hooks_{target}",
                "ok": not problems and not both and not missing,
                "detail": {
                    "installed": installed,
                    "missing": missing,
                    "in_user_and_project": sorted(both),
                    "files": files,
                },
            }
        )
    return [
        *checks,
        codex_setup(project_dir, db_path),
        gemini_setup(project_dir),
        *client_versions(),
    ]


# The agent CLI versions `make e2e` (pinned) and `make e2e-latest` (the newest published
# when last run) have proven vybe against: docs/integrations.md says the same.
TESTED = {
    "claude": ((2, 1, 197), (2, 1, 332)),
    "codex": ((0, 171, 0), (0, 171, 0)),
    "gemini": ((0, 61, 0), (0, 61, 0)),
}


def _version(text: str) -> tuple[int, ...] | None:
    import re

    found = re.search(r"(\d+)\.(\d+)\.(\d+)", text)
    return tuple(int(n) for n in found.groups()) if found else None


def client_versions() -> list[dict]:
    """Doctor checks: each agent CLI on PATH, its version against the tested range; one
    older than tested fails, a newer one passes with a note (run `make e2e-latest`)."""
    import subprocess

    checks = []
    for target, (low, high) in TESTED.items():
        executable = shutil.which(target)
        if executable is None:
            continue
        try:
            done = subprocess.run(
                [executable, "--version"], capture_output=True, text=True, timeout=10
            )
            version = _version(done.stdout + done.stderr)
        except (OSError, subprocess.SubprocessError):
            version = None
        tested = f"{'.'.join(map(str, low))} to {'.'.join(map(str, high))}"
        detail = {
            "version": ".".join(map(str, version)) if version else None,
            "tested": tested,
        }
        if version is None:
            detail["note"] = f"`{target} --version` printed no version"
        elif version < low:
            detail["note"] = f"older than vybe is tested with ({tested}): update {target}"
        elif version > high:
            detail["note"] = f"newer than vybe is tested with ({tested})"
        ok = version is not None and version >= low
        checks.append({"name": f"version_{target}", "ok": ok, "detail": detail})
    return checks
