"""Where vybe's time comes from: this machine's clock, or the reading a server store holds
for the transaction in progress (``clock.Held``), moved by the test offset either way; the
test-only skew moves this machine's clock alone."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from vybe import clock
from vybe.errors import VybeError

HOUR = timedelta(hours=1)
READING = datetime(2031, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)


@pytest.fixture
def test_clock(monkeypatch):
    """The test switch on, no offset and no skew; ``clock.shift`` undone afterwards."""
    monkeypatch.setenv(clock.TEST_SWITCH, "1")
    monkeypatch.delenv(clock.OFFSET_VARIABLE, raising=False)
    monkeypatch.delenv(clock.SKEW_VARIABLE, raising=False)
    yield monkeypatch
    clock.reset()


def test_a_held_reading_is_the_time_of_every_clock_reading_inside(test_clock):
    with clock.Held(READING):
        assert clock.now() == clock.now() == READING
        assert clock.now_iso() == "2031-05-06T07:08:09.123456Z"
    assert abs(clock.now() - datetime.now(UTC)) < timedelta(minutes=1)


def test_the_test_offset_moves_a_held_reading_as_it_moves_the_machine_clock(test_clock):
    test_clock.setenv(clock.OFFSET_VARIABLE, "60")
    clock.shift(HOUR)
    with clock.Held(READING):
        assert clock.now() == READING + HOUR + timedelta(seconds=60)


def test_the_skew_moves_the_machine_clock_and_not_a_held_reading(test_clock):
    test_clock.setenv(clock.SKEW_VARIABLE, "3600")
    assert abs(clock.now() - datetime.now(UTC) - HOUR) < timedelta(minutes=1)
    with clock.Held(READING):
        assert clock.now() == READING


def test_a_skew_without_the_test_switch_is_ignored(test_clock):
    test_clock.setenv(clock.SKEW_VARIABLE, "3600")
    test_clock.delenv(clock.TEST_SWITCH)
    assert abs(clock.now() - datetime.now(UTC)) < timedelta(minutes=1)


def test_a_skew_that_is_not_a_number_is_invalid_input_beside_the_switch(test_clock):
    test_clock.setenv(clock.SKEW_VARIABLE, "fast")
    with pytest.raises(VybeError) as raised:
        clock.now()
    assert (raised.value.code, raised.value.context) == (
        "INVALID_INPUT",
        {"field": "VYBE_CLOCK_SKEW"},
    )


def test_an_inner_reading_gives_the_outer_one_back(test_clock):
    later = READING + HOUR
    with clock.Held(READING):
        with clock.Held(later):
            assert clock.now() == later
        assert clock.now() == READING


def test_a_reading_held_on_one_thread_is_not_the_time_of_another(test_clock):
    seen: list[datetime] = []
    with clock.Held(READING):
        other = threading.Thread(target=lambda: seen.append(clock.now()))
        other.start()
        other.join()
    assert abs(seen[0] - datetime.now(UTC)) < timedelta(minutes=1)
