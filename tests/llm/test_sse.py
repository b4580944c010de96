"""Server-sent events parsed from the lines of a body."""

from vybe.llm.sse import Event, events


def test_named_events_are_split_at_blank_lines():
    lines = ["event: ping", "data: {}", "", "event: message_stop", 'data: {"a": 1}', ""]
    assert list(events(lines)) == [Event("ping", "{}"), Event("message_stop", '{"a": 1}')]


def test_unnamed_events_are_messages():
    assert list(events(["data: [DONE]", ""])) == [Event("message", "[DONE]")]


def test_comments_and_other_fields_are_skipped():
    lines = [": keep-alive", "id: 7", "retry: 100", "data: x", ""]
    assert list(events(lines)) == [Event("message", "x")]


def test_data_lines_of_one_event_join_with_newlines():
    assert list(events(["data: a", "data:b", ""])) == [Event("message", "a\nb")]


def test_last_event_without_a_blank_line_is_still_given():
    assert list(events(["data: [DONE]"])) == [Event("message", "[DONE]")]


def test_a_byte_order_mark_before_the_first_line_is_dropped():
    assert list(events(["\ufeffdata: 1", "", "data: 2", ""])) == [
        Event("message", "1"),
        Event("message", "2"),
    ]


def test_an_event_with_empty_data_is_not_dispatched():
    assert list(events(["data: ", "", "data", "", "data: 3", ""])) == [Event("message", "3")]
