"""G-7, the last 1000 in one turn: a bank at target - 1000 writes no second level.

Before, banking at the cap wrote target - 1000 a second time, so a bump (G-4) or a crossing
(G-3) of that level cost nothing: the player fell back onto the same score, and under
``bump = current`` two players stood at one level.
"""

from __future__ import annotations

from scripted import levels, play, play_events, start

from zloutch.engine import GameState, is_terminal
from zloutch.engine.events import Banked, Bumped, Crossed, Entered

MISS5 = "throw; roll 2 3 4 6 6"  # no combination in dix-mille or cinq-mille
THREE_ONES = "throw; roll 1 1 1 2 3; keep 1 1 1; bank"  # 1000
SIXES = "throw; roll 6 6 6 4 2; keep 6 6 6; bank"  # 600
ENTER_1100 = "throw; roll 1 1 1 2 3; keep 1 1 1; throw; roll 1 4; keep 1; bank"


def at_the_cap() -> GameState:
    """dix-mille to 3000 with G-7: Ana at 1100, then 2100 stops at the cap, 2000."""
    s = start("dix-mille(last_thousand,target=3000)")
    s = play(s, ENTER_1100 + ";" + MISS5 + ";" + THREE_ONES + ";" + MISS5)
    assert levels(s, 0) == [(1100, False), (2000, False)]
    return s


def test_g7_a_bank_at_the_cap_writes_no_second_level() -> None:
    s = at_the_cap()
    s, events = play_events(s, SIXES)  # 2600 is short of 3000: it stops at 2000
    assert levels(s, 0) == [(1100, False), (2000, False)]  # still two levels
    assert s.sheets[0].score == 2000 and s.turn.player == 1  # the turn ended
    (banked,) = [e for e in events if isinstance(e, Banked)]
    assert banked == Banked(0, 600, 2000, False, written=False)
    assert "stays at 2000" in banked.describe(s.names)
    assert not any(isinstance(e, Entered | Bumped) for e in events)


def test_g7_a_bank_at_the_cap_ends_the_farkle_run_and_keeps_the_ticks() -> None:
    s = at_the_cap()
    s = play(s, MISS5 + ";" + MISS5)  # Ana's tick beside 2000, Bob's loose tick
    assert s.sheets[0].ticks == 1 and s.sheets[0].farkles_in_row == 1
    s = play(s, SIXES)
    # The same level stands: its tick stays; a bank it was, so the run of farkles is over.
    assert s.sheets[0].ticks == 1 and s.sheets[0].farkles_in_row == 0


def test_g4_bumped_off_the_cap_falls_back_a_level() -> None:
    s = play(at_the_cap(), SIXES)  # Ana banks at the cap: nothing written
    s = play(s, ENTER_1100 + ";" + MISS5)  # Bob enters with 1100
    s, events = play_events(s, THREE_ONES)  # Bob: 2100 stops at 2000, Ana's level
    assert Bumped(1, 0, 2000) in events
    assert Crossed(0, 2000, 1100, "bump") in events  # back to 1100, not to a second 2000
    assert s.sheets[0].score == 1100 and s.sheets[1].score == 2000
    # bump = current: no two players at one level
    assert s.sheets[0].score != s.sheets[1].score


def test_g3_ticks_cross_the_cap_to_the_level_below() -> None:
    s = play(at_the_cap(), SIXES + ";" + MISS5)
    for _ in range(3):  # three farkles of Ana (G-3), Bob missing between them
        s = play(s, MISS5 + ";" + MISS5)
    assert levels(s, 0) == [(1100, False), (2000, True)]
    assert s.sheets[0].score == 1100


def test_g7_the_turn_that_reaches_the_target_still_wins_from_the_cap() -> None:
    s = play(at_the_cap(), SIXES + ";" + MISS5)
    s = play(s, THREE_ONES)  # 3000 in one turn, exactly: wins
    assert is_terminal(s) and s.winners == (0,) and s.sheets[0].score == 3000


def test_g7_cinq_mille_at_the_cap_under_bump_current() -> None:
    # Target 2000: the cap is 1000. Ana reaches it, banks there again, Bob bumps her off.
    s = start("cinq-mille(last_thousand,target=2000,bump=current)")
    s = play(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank;" + MISS5)  # Ana 600
    s = play(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank;" + MISS5)  # 1200 stops at 1000
    s = play(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank")  # at the cap: nothing written
    assert levels(s, 0) == [(600, False), (1000, False)]
    s = play(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank;" + MISS5)  # Bob 600
    s, events = play_events(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank")  # Bob at 1000
    assert Bumped(1, 0, 1000) in events and Crossed(0, 1000, 600, "bump") in events
    assert (s.sheets[0].score, s.sheets[1].score) == (600, 1000)
