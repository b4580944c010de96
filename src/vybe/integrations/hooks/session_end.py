"""SessionEnd: the session's end noted, the end of a last turn imported, and housekeeping
(`vybe maintain`) handed to a detached process when it is due."""

from __future__ import annotations

import os

from vybe.actions import hooks as hook_actions
from vybe.integrations.hooks.hook import Hook
from vybe.integrations.hooks.transcript import catch_up

MAINTAIN_STAMP = "maintain.stamp"

MAINTAIN_EVERY_SECONDS = 6 * 3600


def maintain_if_due(hook: Hook) -> bool:
    """Start ``vybe maintain`` detached when the last run is older than MAINTAIN_EVERY, and
    forget the commit looks of sessions long gone. subprocess (with re, enum, locale,
    threading and selectors, a large part of a bare interpreter's start) is imported only
    then."""
    import time

    from vybe import config

    folder = config.config_dir()
    stamp = os.path.join(folder, MAINTAIN_STAMP)
    if os.path.exists(stamp) and time.time() - os.stat(stamp).st_mtime < MAINTAIN_EVERY_SECONDS:
        return False
    import subprocess
    import sys

    config.make_private_dir(folder)
    with open(stamp, "a", opener=config.private_opener):
        os.utime(stamp)
    from vybe.integrations.hooks import commits

    commits.forget_stale_looks(hook.settings.db_path)
    subprocess.Popen(
        [
            sys.executable,
            "-m",
            "vybe",
            "maintain",
            "--agent",
            hook.agent,
            *([] if hook.settings.db_url else ["--db-path", hook.settings.db_path]),
        ],
        # A server's URL goes by the environment, where no process listing shows a password.
        env={**os.environ, "VYBE_DB_URL": hook.settings.db_url} if hook.settings.db_url else None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return True


def transcript_size(hook: Hook) -> int:
    try:
        return os.path.getsize(hook.text("transcript_path"))
    except OSError:
        return -1


def was_a_conversation(hook: Hook) -> bool:
    """Whether the record holds anything of this session (a prompt the hooks kept)."""

    return hook_actions.last_text(hook.store, hook.record_session, "user") is not None


def session_end(hook: Hook) -> str | None:
    """Note the end of the session (one small write, inside Claude's 1.5 s budget), and hand
    housekeeping to a detached process when it is due. Then the end of a last turn a Stop
    found unflushed is imported (``catch_up``).

    Each end of a resumed session is its own event: the request id names the transcript's
    size, which every run of the session grows (a retried hook still replays). An end with
    no transcript and nothing recorded was never a conversation (``claude mcp list`` fires
    SessionEnd too): nothing is logged."""
    size = transcript_size(hook)
    if size < 0 and not was_a_conversation(hook):
        return None
    hook_actions.log_event(
        hook.store,
        hook.agent,
        hook_actions.request_id(
            hook.target, hook.session_id, hook.event, hook.text("reason"), size
        ),
        kind="session_end",
        message=hook.text("reason") or "ended",
        project_id=hook.project,
        metadata={"session_id": hook.session_id},
    )
    if size >= 0:
        catch_up(hook)
    maintain_if_due(hook)
    return None
