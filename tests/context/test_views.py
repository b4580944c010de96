"""Views kept between requests: reading only new rows gives what a fresh load gives."""

from tests.context.sessions import SYSTEM, S, opening, work
from vybe.agent.offline import Consolidator
from vybe.context import assemble
from vybe.context.budget import ModelLimits
from vybe.context.engine import Engine
from vybe.context.projection import to_message
from vybe.context.recorder import record_user
from vybe.context.views import Views


def same(view, fresh) -> bool:
    return (view.checkpoint, view.rows, view.extra) == (fresh.checkpoint, fresh.rows, fresh.extra)


def test_rows_appended_since_are_read_and_match_a_fresh_load(record):
    views = Views(record)
    opening(record)
    views.load(S)
    work(record, 3)
    record_user(record, S, "And svc3 next.")
    view = views.load(S)
    assert same(view, assemble.load(record, S))
    assert view.row_messages() == [to_message(r) for r in view.rows]


def test_a_checkpoint_taken_by_another_run_loads_the_view_afresh(record, tmp_path):
    views = Views(record)
    opening(record)
    work(record, 40)
    views.load(S)
    other = Engine(record, Consolidator(), ModelLimits(window=32_000))
    assert other.checkpoint_now(S, SYSTEM).outcome == "accepted"
    work(record, 2, start=40)
    view = views.load(S)
    assert view.checkpoint == record.latest_checkpoint(S)
    assert same(view, assemble.load(record, S))
