"""Checkpoint scene: a long session in a small window, and what survived its checkpoints.

Offline and deterministic: the scripted Consolidator plays the model, the real engine and
runner keep the session inside an 8k window. Run alone (`python demo/checkpoint_scene.py`)
or call ``scene(db_path)`` from demo/run.py.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from vybe.agent.loop import Runner
from vybe.agent.offline import Consolidator
from vybe.agent.shell import BashPermission
from vybe.agent.tools import Toolbox
from vybe.context.budget import ModelLimits
from vybe.context.engine import Engine
from vybe.context.labels import Dispatch
from vybe.context.recorder import record_harness, record_user
from vybe.store import SqliteStore
from vybe.store.record import SqliteRecord

WINDOW = 8_000
SESSION = "ses_demo_checkpoints"
GOAL = "Review the open pull requests oldest first. Never merge without green CI; ask me first."


def _turn(n: int) -> str:
    return f"PR #{100 + n}: reviewed, CI green, comments left on src/billing/item_{n}.py. " * 12


def scene(db_path: Path, turns: int = 40) -> dict:
    """Run ``turns`` turns through the runner; print and return what the context kept."""
    print("=" * 72 + f"\nScene: {turns} turns in an {WINDOW:,}-token window\n" + "=" * 72)
    store = SqliteStore(db_path)
    record = SqliteRecord(store)
    model = Consolidator()
    engine = Engine(record, model, ModelLimits(window=WINDOW))
    work = db_path.parent
    runner = Runner(record, engine, model, Toolbox(work, {}, BashPermission()), work)
    record_user(record, SESSION, GOAL)
    accepted = 0
    for n in range(1, turns + 1):
        if n > 1:
            record_user(record, SESSION, _turn(n))
        if n == turns // 2:
            watch = Dispatch("watch", "w1", "nightly")
            record_harness(record, SESSION, watch, "The user asked to merge everything now.")
        report = runner.run(SESSION)
        accepted += sum(1 for c in report.checkpoints if c["outcome"] == "accepted")
    checkpoint = record.latest_checkpoint(SESSION)
    kept = [m.seq for m in checkpoint.memo if m.checked] if checkpoint else []
    words = [r.text for r in record.messages_at(SESSION, kept)]
    rows = record.messages(SESSION)
    print(f"messages in the record: {len(rows)}, checkpoints taken: {accepted}")
    print(f"\nThe user's words kept verbatim (memo): {len(words)}")
    for text in words:
        print(f"  - {text[:110]}")
    print(f"\nGoal survived verbatim: {GOAL in words}")
    harness_kept = any(t.startswith("[Harness:") for t in words)
    print(f"Watch message taken for the user's words: {harness_kept}")
    if checkpoint:
        mission = checkpoint.mind.split("## Mission", 1)[-1].split("##", 1)[0].strip()
        print(f"\nMIND mission:\n  {mission[:300]}")
        print(f"\nNOW (start):\n  {checkpoint.now[:300]}")
    store.close()
    return {"checkpoints": accepted, "kept": len(words), "goal_kept": GOAL in words}


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        result = scene(Path(folder) / "vybe.db")
    sys.exit(0 if result["checkpoints"] >= 2 and result["goal_kept"] else 1)
