"""MEMO: candidates only from user rows, checkbox-only changes, fitting that never loses marks."""

from vybe.context import memo
from vybe.context.budget import ModelLimits, compute
from vybe.context.checkpoints import MemoMark
from vybe.context.record import MessageRow

BUDGET = compute(ModelLimits(window=200_000))
ORIGINAL = "- [ ] (#3) Never push to main\n- [x] (#5) Use uv, not pip\n"


def row(seq, kind, text="t"):
    return MessageRow("s", seq, kind, text)


def test_only_user_rows_become_candidates():
    moved = [
        row(1, "user"),
        row(2, "harness"),
        row(3, "assistant"),
        row(4, "system"),
        row(5, "user"),
    ]
    assert [m.seq for m in memo.offer((), moved)] == [1, 5]


def test_previous_marks_are_offered_again_with_their_state():
    offered = memo.offer((MemoMark(1, True), MemoMark(2, False)), [row(7, "user")])
    assert offered == [MemoMark(1, True), MemoMark(2, False), MemoMark(7, False)]


def test_checkbox_flip_is_read_back():
    edited = ORIGINAL.replace("- [ ] (#3)", "- [x] (#3)").replace("- [x] (#5)", "- [ ] (#5)")
    assert memo.read_file(ORIGINAL, edited) == [MemoMark(3, True), MemoMark(5, False)]


def test_capital_x_counts_as_ticked():
    assert memo.read_file(ORIGINAL, ORIGINAL.replace("[ ]", "[X]"))[0] == MemoMark(3, True)


def test_text_edit_is_refused():
    assert memo.read_file(ORIGINAL, ORIGINAL.replace("Never push", "Do not push")) is None


def test_deleted_line_is_refused():
    assert memo.read_file(ORIGINAL, "- [ ] (#3) Never push to main\n") is None


def test_changed_number_is_refused():
    assert memo.read_file(ORIGINAL, ORIGINAL.replace("(#3)", "(#4)")) is None


def test_blank_lines_and_trailing_spaces_do_not_matter():
    assert memo.read_file(ORIGINAL, ORIGINAL.replace("\n", "  \n\n")) is not None


def test_preview_collapses_whitespace_and_is_short():
    assert memo.preview("a\n  b") == "a b"
    assert memo.preview("x" * 500).endswith("…")


def test_merge_keeps_released_marks_not_offered():
    merged = memo.merge(
        (MemoMark(1, False), MemoMark(2, True)),
        [MemoMark(2, False), MemoMark(9, True)],
        {},
        BUDGET,
    )
    assert merged == (MemoMark(1, False), MemoMark(2, False), MemoMark(9, True))


def test_fit_keeps_short_messages_verbatim():
    kept, left = memo.fit([(1, "short"), (2, "also short")], 300, 3000)
    assert [k.text for k in kept] == ["short", "also short"] and left == []


def test_fit_cuts_a_long_message_and_says_where_it_is():
    kept, _ = memo.fit([(4, "w" * 4000)], 300, 3000)
    assert kept[0].cut and "#4 in the record" in kept[0].text
    assert memo.estimate(kept[0].text) <= 300


def test_fit_shortens_evenly_over_budget():
    kept, left = memo.fit([(i, "v" * 1200) for i in range(1, 11)], 300, 1000)
    assert left == [] and all(k.cut for k in kept)
    assert sum(memo.estimate(k.text) for k in kept) <= 1000


def test_fit_keeps_first_and_newest_when_even_share_is_too_small():
    kept, left = memo.fit([(i, "u" * 400) for i in range(1, 101)], 300, 400)
    seqs = [k.seq for k in kept]
    assert seqs[0] == 1 and seqs[-1] == 100 and left
    assert set(left) | set(seqs) == set(range(1, 101))


def test_merge_bounds_the_stored_memo_to_what_a_checkpoint_could_show():
    previous = tuple(MemoMark(i, i % 2 == 0) for i in range(1, 2001))
    texts = {i: "keep this exact wording, please " * 3 for i in range(1, 3001)}  # 24 tokens
    merged = memo.merge(previous, [MemoMark(3000, True)], texts, BUDGET)
    checked = [m.seq for m in merged if m.checked]
    released = [m.seq for m in merged if not m.checked]
    assert len(checked) == BUDGET.memo_total // 24 and checked[0] == 2
    assert checked[-2:] == [2000, 3000] and released == list(range(1961, 2000, 2))


def test_merge_keeps_many_short_ones_that_fit_whole_up_to_their_frames():
    previous = tuple(MemoMark(i, True) for i in range(1, 1001))
    merged = memo.merge(previous, [], {i: "ok" for i in range(1, 1001)}, BUDGET)
    assert len(merged) == BUDGET.memo_total // memo.FRAME_TOKENS and merged[0].seq == 1
