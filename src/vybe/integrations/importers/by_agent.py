"""The agents' own files by the agent's name: Claude Code's transcript, Codex's rollout, and
their import into the record without what the hooks already recorded there. Each importer
is loaded only when its agent's file is imported (by a hook, or `vybe session import`)."""

from __future__ import annotations

from vybe.integrations.importers.transcript_import import SkipHooked, import_skipping_hooked

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def importer(target: str) -> tuple[str, Any, Any]:
    """The stamp, the import function and the file-to-session-id function of the agent's
    own file (Claude's transcript, Codex's rollout)."""
    if target == "codex":
        from vybe.integrations.importers import codex_rollout

        return codex_rollout.STAMP, codex_rollout.import_rollout, codex_rollout.rollout_id
    from vybe.integrations.importers import claude_transcript

    return (
        claude_transcript.STAMP,
        claude_transcript.import_transcript,
        claude_transcript.transcript_id,
    )


def import_agent_file(record: Any, kind: str, given: str, session_id: str | None) -> SkipHooked:
    """A Claude Code transcript (``kind`` claude) or a Codex rollout (codex) at ``given``
    into ``session_id``, by default the session its hooks record into (``claude:<id>``,
    ``codex:<id>``), leaving out what the hooks recorded there; the wrapper, its result set."""
    from pathlib import Path

    stamp, run, name = importer(kind)
    path = Path(given).expanduser()
    session = session_id or (f"{kind}:{name(path)}" if path.is_file() else "")
    return import_skipping_hooked(record, session, path, stamp, run)


def folder_of(kind: str, path: Any) -> str | None:
    """The working folder an agent's file says its session ran in (its project's id)."""
    from vybe.integrations.importers.transcript_import import first_field

    def pick(line: dict[str, Any]) -> Any:
        if kind != "codex":
            return line.get("cwd")
        payload = line.get("payload")
        return (
            payload.get("cwd")
            if line.get("type") == "session_meta" and isinstance(payload, dict)
            else None
        )

    return first_field(path, pick)


def not_recorded(folder: str | None) -> str | None:
    """Why nothing of an agent's file is imported (None: it is): ``VYBE_RECORD=off``, or a
    session whose working ``folder`` privacy.exclude_projects names."""
    from vybe import config

    if config.recording_off():
        return "VYBE_RECORD=off"
    return "privacy.exclude_projects" if folder and config.excluded_project(folder) else None
