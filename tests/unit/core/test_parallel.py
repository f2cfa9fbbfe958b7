"""Row pieces of the compiled loops (:mod:`navproof.core.parallel`)."""

from __future__ import annotations

from navproof.core.parallel import piece_bounds, run_row_pieces, thread_count

MIN_ROWS = 4096


def test_row_pieces_below_the_threading_size_are_one_direct_piece() -> None:
    for rows in (0, 1, 999, MIN_ROWS - 1, MIN_ROWS, 3 * MIN_ROWS + 5):
        calls: list[tuple[int, int]] = []
        run_row_pieces(lambda lo, hi, calls=calls: calls.append((lo, hi)), rows,
                       min_rows=MIN_ROWS)
        bounds = piece_bounds(rows, thread_count(rows, MIN_ROWS))
        # every piece once (threads may take them in any order), and they cover the rows
        assert sorted(calls) == list(zip(bounds[:-1], bounds[1:], strict=True))
        assert bounds[0] == 0 and bounds[-1] == rows
        if rows < MIN_ROWS:
            assert calls == [(0, rows)]
