"""PreCompact: the receipt of the compaction about to happen is opened
(vybe.integrations.hooks.compaction)."""

from __future__ import annotations

from vybe.integrations.hooks.hook import Hook, log_failure


def pre_compact(hook: Hook) -> None:
    """Open the receipt of the compaction about to happen (a failure loses only that)."""
    from vybe.integrations.hooks import compaction

    try:
        compaction.opened(hook)
    except Exception as error:
        log_failure(hook.target, hook.event, error)
