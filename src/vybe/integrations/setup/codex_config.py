"""What Codex needs besides vybe's entries in its hooks.json, read from its config.toml.

vybe writes only hooks.json; the rest is the person's to decide, so `vybe doctor` (and
`vybe hook install --codex`) say what is missing, with the lines that set it:

- **Trust.** Codex runs a hook only once it is trusted (the TUI's `/hooks`, "Trust all"),
  recorded as ``[hooks.state."<hooks.json>:<event>:<group>:<handler>"] trusted_hash``;
  `codex exec` silently skips a hook that is not. vybe cannot vouch for its own hooks.
- **The sandbox.** Under ``workspace-write`` (Codex's default) a command can write only
  inside the project, the temp folders and ``[sandbox_workspace_write] writable_roots``: the
  brief's commands cannot open a store outside them.
- **The MCP server.** Codex passes a server only a few environment variables and does not
  wait for one unless ``required = true``: vybe's entry needs ``env`` naming the store the
  hooks use, or the two write different stores.

vybe's Codex plugin (plugin/.codex-plugin) brings the hooks and the MCP server instead of
hooks.json and ``[mcp_servers.vybe]``; its hooks need the same trust, recorded under the
plugin's key (``vybe@MARKETPLACE:hooks/codex.json:<event>:<group>:<handler>``).
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

FULL_ACCESS = "danger-full-access"
READ_ONLY = "read-only"
PLUGIN = "vybe"  # the plugin's name in plugin/.codex-plugin/plugin.json
PLUGIN_HOOKS = "hooks/codex.json"  # its hooks file, as the manifest names it


def home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or os.path.expanduser("~/.codex"))


def config_path() -> Path:
    return home() / "config.toml"


def read(path: Path) -> dict[str, Any]:
    """The config as a table; empty when there is none; ``{"error": …}`` when unreadable."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        return {"error": f"cannot read {path}: {exc}"}


def _snake(event: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def plugins(config: dict[str, Any]) -> dict[str, Path]:
    """The vybe plugins Codex loads (``vybe@MARKETPLACE``) and the folder of each one's
    installed copy, as `codex plugin add` records them: ``[plugins."vybe@M"]`` not disabled
    in config.toml, and its copy in ``plugins/cache/M/vybe/VERSION`` (an update removes the
    older one)."""
    table = config.get("plugins")
    found = {}
    for key, entry in (table if isinstance(table, dict) else {}).items():
        name, _, market = key.partition("@")
        if name != PLUGIN or not isinstance(entry, dict) or entry.get("enabled") is False:
            continue
        base = home() / "plugins" / "cache" / market / PLUGIN
        copies = sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []
        if copies:
            found[key] = copies[-1]
    return found


def plugin_trust_keys(key: str, root: Path) -> dict[str, str]:
    """Event -> the key Codex records the trust of an installed vybe plugin's hook under."""
    try:
        document = json.loads((root / PLUGIN_HOOKS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return trust_keys(f"{key}:{PLUGIN_HOOKS}", document, lambda handler: True)


def trust_keys(source: str, document: dict[str, Any], ours: Any) -> dict[str, str]:
    """Event -> the key Codex records its trust under, for each of vybe's handlers in the
    hooks ``document`` Codex knows as ``source`` (a hooks.json's path, a plugin's file)."""
    keys = {}
    for event, groups in (document.get("hooks") or {}).items():
        for g, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks", []) if isinstance(group, dict) else []
            for h, handler in enumerate(handlers):
                if ours(handler):
                    keys[event] = f"{source}:{_snake(event)}:{g}:{h}"
    return keys


def untrusted(config: dict[str, Any], keys: dict[str, str]) -> list[str]:
    """The events whose vybe handler Codex has no trust recorded for."""
    state = (config.get("hooks") or {}).get("state") or {}
    return sorted(e for e, key in keys.items() if not (state.get(key) or {}).get("trusted_hash"))


def _within(path: str, roots: list[str]) -> bool:
    real = os.path.realpath(path)
    return any(
        os.path.commonpath([real, os.path.realpath(os.path.expanduser(r))])
        == os.path.realpath(os.path.expanduser(r))
        for r in roots
    )


def store_writable(config: dict[str, Any], db_path: str, project_dir: Path) -> str | None:
    """Why the brief's commands, run by Codex's shell tool, cannot open the store (or None)."""
    mode = config.get("sandbox_mode") or "workspace-write"
    if mode == FULL_ACCESS:
        return None
    folder = os.path.dirname(os.path.abspath(db_path))
    if mode == READ_ONLY:
        return f"sandbox_mode is {READ_ONLY}: Codex's commands cannot write the store in {folder}"
    table = config.get("sandbox_workspace_write") or {}
    roots = [str(project_dir), *(table.get("writable_roots") or [])]
    if not table.get("exclude_slash_tmp"):
        roots.append("/tmp")
    if os.environ.get("TMPDIR") and not table.get("exclude_tmpdir_env_var"):
        roots.append(os.environ["TMPDIR"])
    if _within(folder, roots):
        return None
    return (
        f"the store's folder {folder} is outside Codex's writable roots: add it under "
        f'[sandbox_workspace_write] as writable_roots = ["{folder}"]'
    )


def mcp_problems(config: dict[str, Any], db_path: str) -> list[str]:
    """What vybe's MCP entry lacks (nothing when there is no entry: MCP is optional)."""
    entry = (config.get("mcp_servers") or {}).get("vybe")
    if not isinstance(entry, dict):
        return []
    problems = []
    env = entry.get("env") or {}
    wanted = os.environ.get("VYBE_DB_PATH")  # else the server finds the store as hooks do
    if wanted and os.path.abspath(os.path.expanduser(str(env.get("VYBE_DB_PATH", "")))) != db_path:
        problems.append(
            f'[mcp_servers.vybe] env has no VYBE_DB_PATH = "{db_path}": the server would '
            "write another store than the hooks (Codex passes servers few variables)"
        )
    if entry.get("required") is not True:
        problems.append(
            "[mcp_servers.vybe] has no required = true: Codex may send its first request "
            "before vybe's tools are listed"
        )
    return problems


def setup(keys: dict[str, str], db_path: str, project: Path) -> dict[str, Any]:
    """What Codex still needs for vybe's hooks (their trust ``keys``) to run and reach the
    store."""
    config = read(config_path())
    if "error" in config:
        return {"config": str(config_path()), "problems": [config["error"]]}
    problems = []
    pending = untrusted(config, keys)
    if pending:
        problems.append(
            f"Codex has not trusted vybe's hooks ({', '.join(pending)}): `codex exec` skips "
            "them silently; start `codex`, open /hooks and choose Trust all"
        )
    sandbox = store_writable(config, os.path.abspath(db_path), project)
    if sandbox:
        problems.append(sandbox)
    problems += mcp_problems(config, os.path.abspath(db_path))
    return {"config": str(config_path()), "problems": problems}
