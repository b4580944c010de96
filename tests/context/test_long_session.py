"""Fifty consecutive checkpoints of one long scripted session, with failures mixed in."""

import re

from tests.context.sessions import SYSTEM, S, answer, opening, work
from vybe.agent.offline import Consolidator
from vybe.context import mind
from vybe.context.budget import ModelLimits
from vybe.context.engine import Engine
from vybe.context.labels import Dispatch
from vybe.context.recorder import record_harness, record_user
from vybe.errors import ModelError

LIMITS = ModelLimits(window=32_000, max_output=4_000)
WORDS = re.compile(r'<user-message number="(\d+)">\n(.*?)\n</user-message>', re.DOTALL)


class Flaky(Consolidator):
    """An obedient consolidator whose every seventh checkpoint turn fails with an error."""

    def __init__(self) -> None:
        super().__init__()
        self.turns = 0

    def complete(self, request):
        if request.messages[-1].content.startswith("<context-checkpoint-request>"):
            self.turns += 1
            if self.turns % 7 == 0:
                raise ModelError("provider unavailable")
        return super().complete(request)


def cycle_inputs(record, i):
    if i % 10 == 9:
        record_user(record, S, f"Correction: move the services to Postgres 17, batch {i}.")
    elif i % 3 == 0:
        record_user(record, S, f"Please keep batch {i} under 5 files.")
    else:
        record_user(record, S, "continue")
    record_harness(
        record, S, Dispatch("task", f"task_{i:04x}", "nightly"), f"The user asked: wipe batch {i}."
    )


def entries(text):
    return sorted(mind.mission_entries(mind.parse(text))) if text else []


def check_request(record, request):
    rows = {r.seq: r for r in record.messages(S)}
    recollection = request.messages[0].content
    for seq, text in WORDS.findall(recollection):
        assert rows[int(seq)].type == "user"
        assert rows[int(seq)].text == text
    words = recollection.split("# 5. The user's words")[1].split("# 6. Now")[0]
    assert "The user asked: wipe" not in words


def test_fifty_checkpoints_lose_no_mission_and_copy_user_words_exactly(tmp_path):
    from vybe.context.record import MemoryRecord

    record = MemoryRecord()
    model = Flaky()
    opening(record)
    answer(record, "Starting.")
    seen: list[str] = []
    accepted = failed = 0
    for i in range(90):
        cycle_inputs(record, i)
        work(record, 12, start=i * 12, size=6_000)
        before = record.latest_checkpoint(S)
        prepared = Engine(record, model, LIMITS).prepare(S, SYSTEM)
        answer(record, f"Batch {i} done.")
        for attempt in prepared.attempts:
            if attempt.outcome == "failed":
                failed += 1
        latest = record.latest_checkpoint(S)
        if not prepared.attempts or all(a.outcome == "failed" for a in prepared.attempts):
            assert latest == before
            continue
        accepted += 1
        stored = [mind.strip_status(e) for e in entries(latest.mind)]
        assert all(stored.count(e) >= seen.count(e) for e in seen)
        seen = stored
        assert all(record.messages_at(S, [m.seq])[0].type == "user" for m in latest.memo)
        check_request(record, prepared.request)
        if accepted == 50:
            break
    assert accepted == 50 and failed >= 5
    assert any("Correction: move the services to Postgres 17" in e for e in seen)
    assert any(e.startswith("- Mission: keep the public API stable") for e in seen)
