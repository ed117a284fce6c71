"""The worked examples of the seeds, and each rule of docs/rules.md, as scripted games."""

from __future__ import annotations

from dataclasses import replace

import pytest
from scripted import levels, play, play_events, start

from zloutch.engine import (
    Bank,
    Fresh,
    IllegalActionError,
    Joker,
    Keep,
    Level,
    Phase,
    Take,
    Throw,
    apply,
    bank_refusal,
    is_terminal,
    legal_actions,
    outcome,
)
from zloutch.engine.events import Bumped, Confirmed, Crossed, Farkled, Penalised, Ticked
from zloutch.engine.game import why_illegal

# A farkle of five dice that no preset scores: 2 3 4 6 6.
MISS5 = "throw; roll 2 3 4 6 6"
# In zilch a scoreless six-dice throw earns a bonus (F-2): a zilch needs fewer dice.
ZILCH = "throw; roll 1 2 3 3 4 6; keep 1; throw; roll 2 3 4 6 6"


def test_G1_G3_levels_1100_then_1300() -> None:
    # The seed's sheet example: enter with 1100, then 200 more writes 1300 below it.
    s = start("dix-mille")
    s = play(s, "throw; roll 1 1 1 2 3; keep 1 1 1; throw; roll 1 4; keep 1; bank")
    s = play(s, MISS5)
    s = play(s, "throw; roll 1 1 4 4 3; keep 1 1; bank")
    assert levels(s, 0) == [(1100, False), (1300, False)]
    assert s.sheets[0].score == 1300


def test_T5_full_hand_forced() -> None:
    s = start("dix-mille")
    s = play(s, "throw; roll 1 1 1 2 3; keep 1 1 1; bank")
    s = play(s, MISS5)
    s = play(s, "throw; roll 1 1 4 4 2; keep 1 1; throw; roll 6 6 6; keep 6 6 6")
    assert s.turn.total == 800 and s.turn.full_hand
    assert legal_actions(s) == (Throw(),)
    with pytest.raises(IllegalActionError, match=r"T-5"):
        apply(s, Bank())
    s, events = play_events(s, "throw; roll 4 4 2 6 3")
    assert Farkled(0, 800, "farkle") in events
    assert Ticked(0, 1000, 1) in events
    assert s.sheets[0].levels[-1].ticks == 1


def test_T5_full_hand_optional_cinq_mille_example_1() -> None:
    # 5000, example 1: 2 2 3 6 5 -> 50; 3 3 3 1 -> 400, full hand; 5 5 5 2 6 -> 500: 950.
    s = start("cinq-mille")
    s = play(s, "throw; roll 2 2 3 6 5; keep 5; throw; roll 3 3 3 1; keep 1 3 3 3")
    assert s.turn.total == 450 and s.turn.full_hand
    assert Throw() in legal_actions(s)
    assert Bank() not in legal_actions(s)  # 450 < 500 to open (T-7)
    s = play(s, "throw; roll 5 5 5 2 6; keep 5 5 5; bank")
    assert levels(s, 0) == [(950, False)]


def test_T4_cinq_mille_example_2_everything_lost() -> None:
    # 1 4 4 5 6 -> keep the 1; 6 1 1 1 -> 1000: 1100; throw the 6 -> 3: all lost.
    s = start("cinq-mille")
    s, events = play_events(s, "throw; roll 1 4 4 5 6; keep 1; throw; roll 1 1 1 6; keep 1 1 1")
    assert s.turn.total == 1100
    s, events = play_events(s, "throw; roll 3")
    assert Farkled(0, 1100, "farkle") in events
    assert s.sheets[0].levels == () and s.turn.player == 1
    assert not any(isinstance(e, Ticked) for e in events)  # no ticks in 5000


def test_G8_take_back_600_then_700() -> None:
    # Ana: 6 6 6 4 2 = 600, banks, leaving 4 and 2. Bob takes it back, throws two dice,
    # 1 3: 700, which he may bank (the inherited 600 counts toward entry).
    s = start("dix-mille")
    s = play(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank")
    assert s.offer is not None and s.offer.total == 600 and s.offer.dice == 2
    assert legal_actions(s) == (Fresh(), Take())
    s = play(s, "take")
    assert s.turn.rolling == 2 and s.turn.total == 600
    s = play(s, "roll 1 3; keep 1")
    assert s.turn.total == 700
    s = play(s, "bank")
    assert levels(s, 0) == [(600, False)]
    assert levels(s, 1) == [(700, False)]


def test_G8_a_taken_back_total_that_does_not_count_for_entry_says_so() -> None:
    """``take_back_counts_for_entry=false``: Bob's 700 is 600 taken back and 100 of his own;
    the refusal said "you need 500 to enter the game", as if he had 700 that did not reach
    500. It says which points count."""
    s = start("dix-mille(take_back_counts_for_entry=false)")
    s = play(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank; take; roll 1 3; keep 1")
    assert s.turn.total == 700
    with pytest.raises(
        IllegalActionError,
        match=r"you need 500 of your own to enter the game; the 600 taken back do not count",
    ):
        apply(s, Bank())


def test_G8_take_back_farkle_loses_the_inherited_total() -> None:
    s = start("dix-mille")
    s = play(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank; take")
    s, events = play_events(s, "roll 2 3")
    assert Farkled(1, 600, "farkle") in events
    assert levels(s, 0) == [(600, False)]


def test_G8_fresh_declines_the_offer() -> None:
    s = start("dix-mille")
    s = play(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank; fresh")
    assert s.turn.rolling == 5 and s.turn.total == 0


def test_G8_a_player_alone_is_offered_no_take_back_of_their_own_bank() -> None:
    # G-8 offers the turn to the next player; alone, Ana would take back her own 600 and
    # count it twice.
    s = start("dix-mille", "Ana")
    s = play(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank")
    assert levels(s, 0) == [(600, False)]
    assert s.offer is None and legal_actions(s) == (Throw(),)
    assert s.turn.player == 0 and s.turn.total == 0


def test_G8_no_offer_after_full_hand_bank() -> None:
    s = start("cinq-mille(take_back)")
    s = play(s, "throw; roll 1 1 1 5 5; keep 1 1 1 5 5; bank")
    assert s.offer is None and legal_actions(s) == (Throw(),)


def test_T7_entry_by_single_throw_dix_mille_6_1150() -> None:
    # 6 5 4 2 2 1: the 1 and the 5 are 150; throw 6 4 2 2 -> 1 1 1 3: 1000, total 1150.
    s = start("dix-mille-6")
    s = play(s, "throw; roll 1 2 2 4 5 6; keep 1 5")
    assert s.turn.total == 150
    assert "one throw worth 1000" in str(bank_refusal(s))
    s = play(s, "throw; roll 1 1 1 3; keep 1 1 1")
    assert s.turn.total == 1150 and s.turn.best_throw == 1000
    assert "T-6" in str(bank_refusal(s))  # entered by the throw, but 1150 ends in 50
    s = play(s, "throw; roll 5; keep 5")  # 1200, full hand: all six dice again (T-5)
    assert s.turn.full_hand and "T-5" in str(bank_refusal(s))


def test_T7_entry_by_turn_total() -> None:
    s = start("dix-mille")
    s = play(s, "throw; roll 1 1 4 4 3; keep 1 1; throw; roll 1 5 6; keep 1 5")
    assert s.turn.total == 350
    with pytest.raises(IllegalActionError, match=r"you need 500 to enter the game \(T-7\)"):
        apply(s, Bank())


def test_T6_total_ending_in_50_cannot_be_banked() -> None:
    s = start("dix-mille")
    s = play(s, "throw; roll 1 1 1 5 3; keep 1 1 1 5")
    with pytest.raises(IllegalActionError) as info:
        apply(s, Bank())
    assert str(info.value) == "you cannot bank 1050: a total ending in 50 cannot be banked (T-6)"


def test_T6_only_a_multiple_of_100_is_banked_whatever_the_combinations() -> None:
    """T-6 read as its option's name and "until it is round": a house combination worth 660
    makes totals that end in neither 00 nor 50, and those are refused too."""
    s = start("dix-mille-6(four_and_pair=660,entry=0)")
    s = play(s, "throw; roll 2 2 2 2 3 3; keep 2 2 2 2 3 3")
    assert s.turn.total == 660 and s.turn.full_hand
    s = play(s, "throw; roll 1 2 3 4 6 6; keep 1")
    assert s.turn.total == 760
    with pytest.raises(IllegalActionError) as info:
        apply(s, Bank())
    assert str(info.value) == "you cannot bank 760: only a multiple of 100 can be banked (T-6)"
    assert Bank() not in legal_actions(s)
    assert not s.rules.turn.round_enough(960) and s.rules.turn.round_enough(1000)


def test_T8_petit_palier_100_after_entry() -> None:
    s = start("dix-mille")
    s = play(s, "throw; roll 1 1 1 2 3; keep 1 1 1; bank")
    s = play(s, MISS5)
    s = play(s, "throw; roll 1 2 3 4 6; keep 1; bank")
    assert s.sheets[0].levels[-1].value == 1100 and s.sheets[0].levels[-1].pp


def test_T8_reading_without_pp_smallest_bank_is_200() -> None:
    s = start("dix-mille(petit_palier=false)")
    s = play(s, "throw; roll 1 1 1 2 3; keep 1 1 1; bank")
    s = play(s, MISS5)
    s = play(s, "throw; roll 1 2 3 4 6; keep 1")
    assert "smallest bank is 200" in str(bank_refusal(s))


def test_T9_overshoot_of_the_target_ticks() -> None:
    s = start("dix-mille(target=1500)")
    s = play(s, "throw; roll 1 1 1 2 3; keep 1 1 1; bank")
    s = play(s, MISS5)
    s, events = play_events(s, "throw; roll 6 6 6 1 3; keep 6 6 6")  # the 1 alone would fit
    assert Farkled(0, 600, "overshoot") in events
    assert Ticked(0, 1000, 1) in events
    assert s.sheets[0].score == 1000


def test_T9_overshoot_of_10000() -> None:
    # Ana stands at 9900: a 1 lands on 10,000 and wins; 1 and 5 would pass it.
    s = start("dix-mille")
    sheets = (replace(s.sheets[0], levels=(Level(9900),)), s.sheets[1])
    s = replace(s, sheets=sheets)
    over, events = play_events(s, "throw; roll 1 5 2 3 4; keep 1 5")
    assert Farkled(0, 150, "overshoot") in events and Ticked(0, 9900, 1) in events
    assert over.sheets[0].score == 9900 and over.turn.player == 1
    won = play(s, "throw; roll 1 5 2 3 4; keep 1; bank")
    assert is_terminal(won) and won.winners == (0,) and won.sheets[0].score == 10000


def test_T9_a_throw_whose_every_keep_overshoots_ends_the_turn_at_once() -> None:
    s = start("dix-mille(target=1500)")
    s = play(s, "throw; roll 1 1 1 2 3; keep 1 1 1; throw; roll 4 1; keep 1; bank")
    s = play(s, MISS5)
    s, events = play_events(s, "throw; roll 1 1 1 3 4; keep 1 1 1")
    assert Farkled(0, 1000, "overshoot") in events


def test_T9_landing_exactly_on_the_target_wins() -> None:
    s = start("dix-mille(target=1500)")
    s = play(s, "throw; roll 1 1 1 2 3; keep 1 1 1; bank")
    s = play(s, MISS5)
    s = play(s, "throw; roll 5 5 5 2 3; keep 5 5 5; bank")
    assert is_terminal(s) and s.winners == (0,)


def test_T10_full_hand_on_the_target_may_be_banked_from_1500() -> None:
    # Ana has 1000; a straight (1500) is a full hand landing exactly on the 2500 target.
    script = "throw; roll 1 1 1 2 3; keep 1 1 1; bank;" + MISS5 + "; throw; roll 1 2 3 4 5"
    s = play(start("dix-mille(target=2500,full_hand_win)"), script + "; keep 1 2 3 4 5")
    assert s.turn.full_hand and Bank() in legal_actions(s)
    s = play(s, "bank")
    assert is_terminal(s) and s.winners == (0,)
    short = play(start("dix-mille(target=3000,full_hand_win)"), script + "; keep 1 2 3 4 5")
    assert "T-5" in str(bank_refusal(short))  # 2500 is not the target
    without = play(start("dix-mille(target=2500)"), script + "; keep 1 2 3 4 5")
    assert "T-5" in str(bank_refusal(without))


def test_G3_three_ticks_cross_the_level_and_fall_back() -> None:
    s = start("dix-mille")
    s = play(s, "throw; roll 1 1 1 2 3; keep 1 1 1; bank")  # 1000
    s = play(s, MISS5)
    s = play(s, "throw; roll 5 5 5 2 3; keep 5 5 5; bank")  # 1500
    for _ in range(2):
        s = play(s, MISS5 + ";" + MISS5)
    assert s.sheets[0].ticks == 2 and s.sheets[0].score == 1500
    s, events = play_events(s, MISS5 + ";" + MISS5)
    assert Crossed(0, 1500, 1000, "ticks") in events
    assert levels(s, 0) == [(1000, False), (1500, True)]
    assert s.sheets[0].score == 1000 and s.sheets[0].ticks == 0
    assert s.sheets[0].levels[1].ticks == 3


def test_G3_ticks_without_a_level_cross_nothing() -> None:
    s = start("dix-mille")
    for _ in range(4):
        s = play(s, MISS5 + ";" + MISS5)
    assert s.sheets[0].loose_ticks == 4 and s.sheets[0].levels == ()


def test_G4_bump_on_the_current_level() -> None:
    s = start("dix-mille")
    s = play(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank")  # Ana 600
    s = play(s, "fresh; roll 6 6 6 4 2; keep 6 6 6; bank")  # Bob 600 bumps Ana
    assert levels(s, 0) == [(600, True)] and s.sheets[0].score == 0
    assert levels(s, 1) == [(600, False)]


def test_G4_bump_any_crosses_an_older_level() -> None:
    script = (
        "throw; roll 6 6 6 4 2; keep 6 6 6; bank;"  # Ana 600
        "fresh; roll 2 3 4 6 6;"  # Bob nothing
        "throw; roll 5 5 5 2 3; keep 5 5 5; bank;"  # Ana 1100
        "fresh; roll 6 6 6 4 2; keep 6 6 6; bank"  # Bob 600
    )
    s, events = play_events(start("dix-mille(bump=any)"), script)
    assert Bumped(1, 0, 600) in events
    assert levels(s, 0) == [(600, True), (1100, False)] and s.sheets[0].score == 1100
    # Ana's older level is crossed, and she stays where she was: not "back to 1100"
    (crossed,) = [e for e in events if isinstance(e, Crossed)]
    words = crossed.describe(("Ana", "Bob"))
    assert words == "Ana's level 600 is crossed (bump); still at 1100"
    from zloutch.adapters.web.i18n import translate

    assert translate(words, "fr") == "Le palier 600 de Ana est barré (rejoint, G-4) ; reste à 1100"
    s = play(start("dix-mille(bump=current)"), script)
    assert levels(s, 0) == [(600, False), (1100, False)]


FALL_BACK = (
    "throw; roll 6 6 6 4 2; keep 6 6 6; bank;"  # Ana 600
    "fresh; roll 2 3 4 6 6;"
    "throw; roll 5 5 5 2 3; keep 5 5 5; bank;"  # Ana 1100
    "fresh; roll 6 6 6 4 2; keep 6 6 6; bank;"  # Bob 600 (Ana's current is 1100)
    + ";".join([MISS5] * 5)  # Ana, Bob, Ana, Bob, Ana: Ana's third tick, back to 600
)


def test_G4_reading_a_player_who_falls_back_bumps_no_one() -> None:
    s = play(start("dix-mille"), FALL_BACK)
    assert s.sheets[0].score == 600 and s.sheets[1].score == 600


def test_G4_option_fallback_bumps() -> None:
    s, events = play_events(start("dix-mille(fallback_bumps)"), FALL_BACK)
    assert Bumped(0, 1, 600) in events
    assert s.sheets[0].score == 600 and s.sheets[1].score == 0


def test_G5_five_ones_win_at_once_in_cinq_mille() -> None:
    s = start("cinq-mille")
    s = play(s, "throw; roll 1 1 1 1 1")
    assert is_terminal(s) and s.winners == (0,)


def test_G6_final_round_re_opened() -> None:
    # Target 1000 for a short game: Ana reaches it, the round goes on; Bob reaches it too,
    # crossing Ana's level; a new final round gives Cy and Ana one more turn each.
    s = start("dix-mille(target=1000,final_round,bump=off)", "Ana,Bob,Cy")
    s = play(s, "throw; roll 1 1 1 2 3; keep 1 1 1; bank")
    assert not is_terminal(s) and s.final is not None and s.final.holder == 0
    s, events = play_events(s, "throw; roll 1 1 1 2 3; keep 1 1 1; bank")
    assert Crossed(0, 1000, 0, "final_round") in events
    assert s.final is not None and s.final.holder == 1
    s = play(s, MISS5)  # Cy
    assert not is_terminal(s)
    s = play(s, MISS5)  # Ana
    assert is_terminal(s) and s.winners == (1,)


def test_G6_final_round_ends_with_the_round() -> None:
    s = start("dix-mille(target=1000,final_round)", "Ana,Bob,Cy")
    s = play(s, MISS5)
    s = play(s, "throw; roll 1 1 1 2 3; keep 1 1 1; bank")  # Bob reaches it
    s = play(s, MISS5)  # Cy ends the round
    assert is_terminal(s) and s.winners == (1,)


def test_G7_last_thousand_in_one_turn() -> None:
    # Target 2000: points above 1000 count only in the turn that reaches 2000.
    s = start("cinq-mille(last_thousand,target=2000)")
    s = play(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank")  # 600
    s = play(s, MISS5)
    s = play(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank")  # 1200 stops at 1000
    assert levels(s, 0) == [(600, False), (1000, False)]
    s = play(s, MISS5)
    s = play(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank")  # 1600 still stops at 1000
    assert s.sheets[0].score == 1000
    s = play(s, MISS5)
    s = play(s, "throw; roll 1 1 1 2 3; keep 1 1 1; bank")  # 2000 in one turn: wins
    assert is_terminal(s) and s.winners == (0,) and s.sheets[0].score == 2000


def test_F1_three_zilches_in_a_row_cost_500() -> None:
    s = start("zilch")
    events_all = []
    for _ in range(3):
        s, events = play_events(s, ZILCH + ";" + ZILCH)
        events_all += events
    assert Penalised(0, 500, -500) in events_all
    assert s.sheets[0].score == -500 and s.sheets[0].farkles_in_row == 0


def test_F2_no_score_bonus_on_six_dice() -> None:
    s = start("zilch")
    s = play(s, "throw; roll 2 2 3 3 4 6")
    assert not is_terminal(s)
    s = play(s, "keep 2 2 3 3 4 6")
    assert s.turn.total == 500 and s.turn.full_hand


def test_F3_minimum_bank_300() -> None:
    s = start("zilch")
    s = play(s, "throw; roll 1 5 2 3 4 6; keep 1 5")
    assert "smallest bank is 300 (F-3)" in str(bank_refusal(s))


def test_V1_confirmation_2150() -> None:
    # Straight (1500), then three 6s (600), then a 5 from the last two dice: 2150.
    s = start("dix-mille(confirmation,bank_multiple_of_100=false)")
    s = play(s, "throw; roll 1 2 3 4 5; keep 1 2 3 4 5; throw; roll 6 6 6 2 3; keep 6 6 6")
    assert s.turn.total == 2100 and s.turn.pending
    assert "V-1" in str(bank_refusal(s))
    s, events = play_events(s, "throw; roll 5 4; keep 5")
    assert Confirmed(0) in events and not s.turn.pending and s.turn.total == 2150
    s = play(s, "bank")
    assert levels(s, 0) == [(2150, False)]


def test_V2_joker_scores_with_the_next_throw() -> None:
    # 1 1 5 5 4: keep the 1s, the 5s are jokers, throw the 4: a 1 falls, all count, full hand.
    s = start("dix-mille(joker)")
    s = play(s, "throw; roll 1 1 5 5 4; keep 1 1; joker 5 5")
    assert legal_actions(s) == (Throw(),)
    s = play(s, "throw; roll 1")
    s = play(s, "keep 1")
    assert s.turn.total == 400 and s.turn.full_hand


def test_V2_joker_thrown_after_a_farkle() -> None:
    s = start("dix-mille(joker)")
    s = play(s, "throw; roll 1 1 5 5 4; keep 1 1; joker 5 5; throw; roll 3")
    assert s.phase is Phase.ROLL and s.turn.rolling == 2  # the jokers are thrown
    s = play(s, "roll 5 2; keep 5")
    assert s.turn.total == 250  # thrown jokers lose their own points (Reading)
    assert s.in_hand == 2


def test_V2_joker_throw_that_fails_loses_the_turn() -> None:
    s = start("dix-mille(joker)")
    s, events = play_events(
        s, "throw; roll 1 1 5 5 4; keep 1 1; joker 5 5; throw; roll 3; roll 2 3"
    )
    assert Farkled(0, 200, "farkle") in events


ARTICLE_KEEP = "dix-mille(keep_all_scoring,joker)"
"""The 10,000 article's own keep: every scoring die kept, except the jokers (V-2)."""


def test_V2_article_keep_the_example_with_every_scoring_die_kept() -> None:
    # 1 1 5 5 4: the 1s kept, the 5s jokers, the 4 thrown: a 1 falls, all count, full hand.
    s = start(ARTICLE_KEEP)
    s = play(s, "throw; roll 1 1 5 5 4")
    assert Keep((1, 1)) in legal_actions(s) and Keep((1, 1, 5, 5)) in legal_actions(s)
    s = play(s, "keep 1 1")
    assert legal_actions(s) == (Joker((5, 5)),)  # the 5s must be jokers: no bank, no throw
    assert why_illegal(s, Bank()) == (
        "every scoring die is kept or set aside as jokers: set 5 5 aside as jokers first "
        "(keep_all_scoring with jokers, V-2)"
    )
    assert why_illegal(s, Throw()) == why_illegal(s, Bank())
    assert why_illegal(s, Joker((5,))) is not None  # a 5 would be left to throw
    s = play(s, "joker 5 5; throw; roll 1; keep 1")
    assert s.turn.total == 400 and s.turn.full_hand


def test_V2_article_keep_the_jokers_thrown_after_a_farkle() -> None:
    s = start(ARTICLE_KEEP)
    s = play(s, "throw; roll 1 1 5 5 4; keep 1 1; joker 5 5; throw; roll 3")
    assert s.phase is Phase.ROLL and s.turn.rolling == 2  # the jokers are thrown
    s = play(s, "roll 5 2")
    assert legal_actions(s) == (Keep((5,)),)  # every scoring die is kept
    s = play(s, "keep 5")
    assert s.turn.total == 250 and s.in_hand == 2
    assert legal_actions(s) == (Throw(),)  # a whole keep owes no jokers; 250 ends in 50 (T-6)


def test_V2_article_keep_a_whole_keep_owes_nothing_and_breaks_no_combination() -> None:
    s = start(ARTICLE_KEEP)
    s = play(s, "throw; roll 1 1 5 5 4; keep 1 1 5 5")
    assert legal_actions(s) == (Throw(),)  # no joker owed (300 is below the entry, T-7)
    s = start(ARTICLE_KEEP)
    s = play(s, "throw; roll 5 5 5 1 2")
    assert {a for a in legal_actions(s)} == {Keep((1, 5, 5, 5)), Keep((5, 5, 5)), Keep((1,))}
    assert "without breaking a combination" in (why_illegal(s, Keep((5,))) or "")


def test_V2_article_keep_reads_what_is_owed_on_the_throw_itself() -> None:
    # Three of a kind counts only on a throw of all five dice (``thrown``): from 1 2 2 2 3 the
    # 2s scored, so keeping the 1 owes them as jokers, though on four dice they would not
    # score; from six dice thrown (the file's own count is five) they never scored.
    example = "docs/examples/rules/kinds-full-throw.toml"
    s = start(f"{example}(keep_all_scoring,joker,min_bank=0)")
    s = play(s, "throw; roll 1 2 2 2 3; keep 1")
    assert legal_actions(s) == (Joker((2, 2, 2)),)
    assert "set 2 2 2 aside as jokers first" in (why_illegal(s, Bank()) or "")
    s = play(s, "joker 2 2 2; throw; roll 5; keep 5")
    assert s.turn.total == 100 + 200 + 50 and s.turn.full_hand


def test_V3_421_2150() -> None:
    s = start("dix-mille(four_two_one)")
    s = play(s, "throw; roll 1 5 2 3 3; keep 1 5; throw; roll 4 2 1; keep 1 2 4")
    assert s.turn.total == 2150 and s.turn.full_hand


def test_V6_straight_over_two_throws_600() -> None:
    s = start("dix-mille(straights_over_throws)")
    s = play(s, "throw; roll 1 2 2 3 3; keep 1; throw; roll 2 3 4 5; keep 2 3 4 5")
    assert s.turn.total == 600 and s.turn.full_hand


def test_V6_straight_over_three_throws_450() -> None:
    s = start("dix-mille(straights_over_throws)")
    s = play(s, "throw; roll 1 2 2 3 3; keep 1; throw; roll 2 5 6 6; keep 5")
    s = play(s, "throw; roll 2 3 4; keep 2 3 4")
    assert s.turn.total == 450 and s.turn.full_hand


def test_V7_multiples_over_throws_1200_and_2400() -> None:
    s = start("dix-mille(multiples_over_throws)")
    s = play(s, "throw; roll 6 6 6 4 3; keep 6 6 6; throw; roll 6 3; keep 6")
    assert s.turn.total == 1200
    s = play(s, "throw; roll 6; keep 6")
    assert s.turn.total == 2400 and s.turn.full_hand


def test_V7_full_house_over_throws_800() -> None:
    s = start("dix-mille(multiples_over_throws)")
    s = play(s, "throw; roll 6 6 6 4 3; keep 6 6 6; throw; roll 4 4; keep 4 4")
    assert s.turn.total == 800 and s.turn.full_hand


def test_off_the_table_loses_the_turn_in_table_mode() -> None:
    from zloutch.engine import Off, new_game
    from zloutch.rules import load_rules

    s = new_game(load_rules("dix-mille(confirmation)"), ["Ana", "Bob"], table_mode=True)
    s = play(s, "throw; roll 1 1 1 2 3")
    assert Off() in legal_actions(s)
    s = apply(s, Off())
    assert s.turn.player == 1
    plain = play(start("dix-mille"), "throw; roll 1 1 1 2 3")
    with pytest.raises(IllegalActionError, match="real table"):
        apply(plain, Off())


def test_G9_ranking_and_kicks() -> None:
    s = start("dix-mille(target=1000)", "Ana,Bob,Cy")
    s = play(s, "throw; roll 6 6 6 4 2; keep 6 6 6; bank")  # Ana 600
    s = play(s, MISS5)  # Bob nothing
    s = play(s, "throw; roll 1 1 1 2 3; keep 1 1 1; bank")  # Cy wins with 1000
    result = outcome(s)
    assert result is not None
    assert result.winners == (2,)
    assert result.ranking == ((2, 1), (0, 2), (1, 3))
    assert result.kicks == ((2, 2, 0), (0, 1, 1), (1, 0, 2))


def test_G9_tied_players_kick_neither_way() -> None:
    """Each player kicks every player ranked below and is kicked by every one above (the
    seed: first of 6 gives 5, second gives 4 and takes 1...): as many kicks given as taken.
    Five 1s on the first throw leave three players tied at 0: ``N - rank`` told each to
    give two kicks, to nobody (9 given, 3 taken)."""
    s = start("dix-mille(take_back=false,five_ones_win)", "Ana,Bob,Cid,Dan")
    s = play(s, "throw; roll 1 1 1 1 1")
    result = outcome(s)
    assert result is not None
    assert result.ranking == ((0, 1), (1, 2), (2, 2), (3, 2))
    assert result.kicks == ((0, 3, 0), (1, 0, 1), (2, 0, 1), (3, 0, 1))
    assert sum(g for _, g, _ in result.kicks) == sum(t for _, _, t in result.kicks)


def test_bumps_and_bank_are_refused_with_reasons_a_player_understands() -> None:
    s = start("dix-mille")
    with pytest.raises(IllegalActionError, match="nothing kept"):
        apply(s, Bank())
    with pytest.raises(IllegalActionError, match="no turn to take back"):
        apply(s, Take())


def test_G3_reading_ticks_restart_at_the_level_fallen_back_to() -> None:
    # Two ticks beside 1000, then 1500 is banked and crossed by three ticks: back at 1000,
    # ticks restart from 0 (the Reading), so two more farkles do not cross 1000.
    s = start("dix-mille")
    s = play(s, "throw; roll 1 1 1 2 3; keep 1 1 1; bank")  # 1000
    s = play(s, MISS5 + ";" + MISS5 + ";" + MISS5 + ";" + MISS5)  # two ticks beside 1000
    s = play(s, MISS5 + "; throw; roll 5 5 5 2 3; keep 5 5 5; bank")  # Bob; Ana 1500
    s = play(s, ";".join([MISS5] * 6))  # three ticks: 1500 crossed
    assert s.sheets[0].score == 1000 and s.sheets[0].current_ticks == 0
    assert s.sheets[0].levels[0].ticks == 0  # what the sheet shows is what counts
    s = play(s, ";".join([MISS5] * 4))
    assert s.sheets[0].score == 1000 and s.sheets[0].current_ticks == 2
    assert s.sheets[0].levels[0] == replace(s.sheets[0].levels[0], crossed=False, ticks=2)


def test_G3_option_ticks_kept_at_the_level_fallen_back_to() -> None:
    s = start("dix-mille(ticks_restart=false)")
    s = play(s, "throw; roll 1 1 1 2 3; keep 1 1 1; bank")  # 1000
    s = play(s, ";".join([MISS5] * 4))  # two ticks beside 1000
    s = play(s, MISS5 + "; throw; roll 5 5 5 2 3; keep 5 5 5; bank")  # 1500
    s = play(s, ";".join([MISS5] * 6))  # 1500 crossed, back at 1000 with its two ticks
    assert s.sheets[0].score == 1000 and s.sheets[0].current_ticks == 2
    s, events = play_events(s, MISS5 + ";" + MISS5)  # the third tick beside 1000 crosses it
    assert Crossed(0, 1000, 0, "ticks") in events
    assert s.sheets[0].score == 0


BUMP_FALL_BACK = (
    "throw; roll 6 6 6 4 2; keep 6 6 6; bank;"  # Ana 600
    "fresh; roll 2 3 4 6 6;"  # Bob nothing
    "throw; roll 2 3 4 6 6;"  # Cy nothing
    "throw; roll 5 5 5 2 3; keep 5 5 5; bank;"  # Ana 1100
    "fresh; roll 2 3 4 6 6;"  # Bob nothing
    "throw; roll 6 6 6 4 2; keep 6 6 6; bank;"  # Cy 600 (Ana's current is 1100)
    "fresh; roll 2 3 4 6 6;"  # Ana nothing
    "throw; roll 1 1 1 2 3; keep 1 1 1; throw; roll 1 2; keep 1; bank"  # Bob 1100 bumps Ana
)


def test_G4_reading_a_player_who_falls_back_by_a_bump_bumps_no_one() -> None:
    s, events = play_events(start("dix-mille", "Ana,Bob,Cy"), BUMP_FALL_BACK)
    assert Bumped(1, 0, 1100) in events
    assert s.sheets[0].score == 600  # Ana falls back onto Cy's 600...
    assert s.sheets[2].score == 600 and not any(e == Bumped(0, 2, 600) for e in events)


def test_G4_option_a_player_who_falls_back_by_a_bump_bumps_too() -> None:
    s, events = play_events(start("dix-mille(fallback_bumps)", "Ana,Bob,Cy"), BUMP_FALL_BACK)
    assert Bumped(1, 0, 1100) in events and Bumped(0, 2, 600) in events
    assert s.sheets[0].score == 600 and s.sheets[2].score == 0


def test_T7_reading_a_player_bumped_to_nothing_enters_again() -> None:
    script = (
        "throw; roll 6 6 6 4 2; keep 6 6 6; bank;"  # Ana 600
        "fresh; roll 6 6 6 4 2; keep 6 6 6; bank;"  # Bob 600 bumps Ana to nothing
        "fresh; roll 1 5 2 3 4; keep 1; throw; roll 1 2 3 4; keep 1"  # Ana 200
    )
    s = play(start("dix-mille"), script)
    assert not s.entered(0) and "T-7" in str(bank_refusal(s))
    s = play(start("dix-mille(reentry=false)"), script)
    assert s.entered(0) and bank_refusal(s) is None
    s = play(s, "bank")
    assert s.sheets[0].score == 200


def test_F2_after_the_bonus_all_six_dice_are_thrown_again() -> None:
    s = play(start("zilch"), "throw; roll 2 2 3 3 4 6; keep 2 2 3 3 4 6")
    assert s.turn.total == 500
    assert legal_actions(s) == (Throw(),)
    assert "F-2" in str(bank_refusal(s))
    with pytest.raises(IllegalActionError, match="F-2"):
        apply(s, Bank())
    s = play(s, "throw")
    assert s.turn.rolling == 6
    s = play(s, "roll 1 2 3 3 4 6; keep 1")
    assert s.turn.total == 600 and Bank() in legal_actions(s)


def test_G8_throw_answers_a_take_back_offer_as_fresh() -> None:
    s = play(start("dix-mille"), "throw; roll 6 6 6 4 2; keep 6 6 6; bank")
    assert s.offer is not None and s.offered_by == 0 and s.offer.dice == 2
    assert set(legal_actions(s)) == {Fresh(), Take()}  # each answer listed once
    assert apply(s, Throw()) == apply(s, Fresh())  # throw is accepted as a synonym


def test_S16_reading_a_straight_of_five_leaves_the_sixth_die() -> None:
    s = play(start("dix-mille-6"), "throw; roll 1 2 3 4 5 5; keep 1 2 3 4 5")
    assert not s.turn.full_hand and s.in_hand == 1 and s.turn.total == 600


def test_S16_option_a_figure_is_a_full_hand_on_six_dice() -> None:
    rules = "dix-mille-6(figure_full_hand)"
    s = play(start(rules), "throw; roll 1 2 3 4 5 5; keep 1 2 3 4 5")  # straight 600
    assert s.turn.full_hand and s.in_hand == 6
    assert "T-5" in str(bank_refusal(s))  # dix-mille's forced full hand
    s = play(s, "throw")
    assert s.turn.rolling == 6
    five = play(start(rules), "throw; roll 2 6 6 6 6 6; keep 6 6 6 6 6")  # five 6s (S-5)
    assert five.turn.full_hand and five.in_hand == 6
    three = play(start(rules), "throw; roll 2 3 4 6 6 6; keep 6 6 6")  # not an S-16 figure
    assert not three.turn.full_hand and three.in_hand == 3
