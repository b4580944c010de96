"""One helper cuts text for every layer: on a character boundary, within the limit."""

from __future__ import annotations

from vybe.text import shorten


def test_text_within_the_limit_is_returned_whole():
    assert shorten("héllo", 5) == "héllo"


def test_a_cut_ends_with_the_marker_inside_the_limit():
    assert shorten("日本語のテキスト", 4) == "日本語…"


def test_a_cut_can_say_what_was_left_out():
    assert shorten("abcdefghij", 8, "[+4]") == "abcd[+4]"
