#!/bin/sh
# `vybe.sh AGENT EVENT` (AGENT: claude or codex) runs `vybe hook run AGENT` when vybe is on
# PATH; otherwise says once, at SessionStart, how to install it, and exits 0 so no hook of
# the session fails.
if command -v vybe >/dev/null 2>&1; then
    exec vybe hook run "$1"
fi
cat >/dev/null
if [ "$2" = "SessionStart" ]; then
    echo "vybe: the vybe command is not on PATH; install it from a clone of vybe with: pipx install '.[mcp,postgres]'"
fi
exit 0
