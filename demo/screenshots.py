"""`make screenshots`: the demo's store (demo/run.py's scenes, the checkpoint scene in the
same file) shown by `vybe ui` in Debian's Chromium, each page saved as docs/ui-<page>.png."""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.ui.browser: the launcher the browser tests use

from checkpoint_scene import SESSION, scene  # noqa: E402
from run import scene_claude_code, scene_continuity, scene_tasks  # noqa: E402
from tests.ui.browser import chromium, missing  # noqa: E402

from vybe.cli.ui import read_only_opener  # noqa: E402
from vybe.ui.server import Viewer  # noqa: E402

PAGES = {
    "sessions": "/",
    "session": "demo-session",  # the hook's session: its link on the sessions page
    "checkpoints": f"/session?id={SESSION}#cp1",
    "tasks": "/tasks",
    "memory": "/memory",
    "events": "/events",
    "search": "/search?q=staging",
}


def fill(folder: Path) -> Path:
    """The demo's scenes on one store, their printing kept out of the way."""
    db = folder / "vybe.db"
    os.environ["VYBE_DB_PATH"] = str(db)
    os.environ["VYBE_CONFIG_DIR"] = str(folder / "config")
    with contextlib.redirect_stdout(io.StringIO()):
        scene_tasks()
        scene_continuity()
        scene(db, turns=40)
        scene_claude_code(folder)
    return db


def main() -> int:
    if missing():
        print(missing())
        return 1
    with tempfile.TemporaryDirectory(prefix="vybe-shots-") as name:
        folder = Path(name)
        server = Viewer(("127.0.0.1", 0), read_only_opener(str(fill(folder))))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = server.url.split("/?")[0]
        with chromium(folder / "profile") as context:
            tab = context.new_page()
            tab.set_viewport_size({"width": 1200, "height": 900})
            tab.goto(server.url)
            for shot, path in PAGES.items():
                if not path.startswith("/"):
                    path = tab.locator(f"a[href*='{path}']").first.get_attribute("href") or ""
                tab.goto(base + path)
                target = ROOT / "docs" / f"ui-{shot}.png"
                tab.screenshot(path=str(target))
                print(f"wrote {target.relative_to(ROOT)}")
        server.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
