"""``LevelBanks``: the game solver's banks by (pair, total) and by score, and their layout a
hand (``arrays``), the form ``solve_pairs`` and the lane kernel take."""

from __future__ import annotations

import numpy as np
import pytest

from zloutch.rules import load_rules
from zloutch.strategy.game_solver import FLOOR, _Game
from zloutch.strategy.kernels import LevelBanks


def random_banks(seed: int, rows: list[int], scores: int, hands: int = 3) -> LevelBanks:
    rng = np.random.default_rng(seed)
    height = max(rows)
    value = np.where(
        rng.random((len(rows), height)) < 0.2, -np.inf, rng.random((len(rows), height))
    )
    return LevelBanks(
        np.asarray(rows, dtype=np.int64),
        value,
        rng.random((len(rows), height)) < 0.2,
        rng.integers(0, scores, len(rows)),
        rng.random((scores, height + 1, hands)) < 0.6,
    )


def test_arrays_are_the_banks_a_hand() -> None:
    banks = random_banks(1, [3, 1, 4], scores=2)
    rows, bank, same = banks.arrays()
    assert bank.shape == same.shape == (3, 4, 3)
    for p in range(3):
        for t in range(4):
            for h in range(3):
                may = bool(banks.allowed[banks.score[p], t, h]) and t < rows[p]
                assert same[p, t, h] == (may and bool(banks.nothing[p, t]))
                assert bank[p, t, h] == (banks.value[p, t] if may else -np.inf)


@pytest.mark.parametrize("shared", [True, False])
def test_batches_one_after_the_other_read_as_each(shared: bool) -> None:
    """``concat`` (F-1's farkle counts in one launch): each pair reads, within its rows, what
    its own batch gave it, whether the batches share their table by score or not."""
    parts = [random_banks(2, [2, 5], scores=3), random_banks(3, [4], scores=2)]
    if shared:
        parts[1] = LevelBanks(
            parts[1].rows, parts[1].value, parts[1].nothing, parts[1].score, parts[0].allowed
        )
    whole = LevelBanks.concat(parts)
    assert (whole.allowed is parts[0].allowed) == shared
    rows, bank, same = whole.arrays()
    p = 0
    for part in parts:
        _, part_bank, part_same = part.arrays()
        for q in range(len(part.rows)):
            top = int(part.rows[q])
            assert np.array_equal(bank[p, :top], part_bank[q, :top])
            assert np.array_equal(same[p, :top], part_same[q, :top])
            assert (bank[p, top:] == -np.inf).all() and not same[p, top:].any()
            p += 1
    assert list(rows) == [2, 5, 4]


@pytest.mark.parametrize("spec", ["farkle(target=3000)", "zilch(target=2000)"])
def test_the_table_by_score_gives_what_each_pair_reads_alone(spec: str) -> None:
    """``level_banks`` reads who may bank from ``tabulate_banks``' table, indexed by score;
    without the table it reads each pair's situation itself: the same banks."""
    rules = load_rules(spec)
    game = _Game(rules, "array", None)
    low = -(FLOOR // game.unit) if rules.turn.farkle_penalty else 0
    n = game.T - low
    win = np.random.default_rng(4).random((n, n))
    s = n - 3
    a = np.arange(max(0, s - n + 1), min(s, n - 1) + 1, dtype=np.int64) + low
    b = s + 2 * low - a
    alone = game.level_banks(a, b, win, low).arrays()
    game.tabulate_banks(low)
    banks = game.level_banks(a, b, win, low)
    assert banks.allowed.shape[0] == n  # the table, not gathered a pair
    tabulated = banks.arrays()
    for before, after in zip(alone, tabulated, strict=True):
        assert np.array_equal(before, after)


def test_banks_the_kernel_cannot_read_are_refused_before_it_runs() -> None:
    """The GPU kernel does not check what it reads: ``CudaLevel.by_score`` checks the shapes
    first (no GPU, nor numba.cuda, needed to refuse)."""
    from zloutch.strategy.kernels import build_tables
    from zloutch.strategy.kernels.cuda import CudaLevel
    from zloutch.strategy.turn_solver import TurnModel

    tables = build_tables(TurnModel(load_rules("farkle")))
    hands = len(tables.hand_col)
    good = random_banks(5, [3, 2], scores=2, hands=hands)
    short = LevelBanks(good.rows, good.value, good.nothing, good.score, good.allowed[:, :2])
    beyond = LevelBanks(good.rows, good.value, good.nothing, good.score + 1, good.allowed)
    other_hands = random_banks(5, [3, 2], scores=2, hands=hands + 1)
    for banks in (short, beyond, other_hands):
        with pytest.raises(ValueError, match="the kernel cannot read"):
            CudaLevel.by_score(tables, banks, False)
