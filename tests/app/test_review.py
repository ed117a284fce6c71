"""Game review (issue: game review): every decision graded against the best play."""

from __future__ import annotations

import json
import random

import pytest

from zloutch.app.review import (
    POINTS,
    POINTS_TOLERANCE,
    WIN,
    WIN_TOLERANCE,
    _values_at,
    review_record,
    situation_words,
)
from zloutch.engine import CHANCE, apply, current_player, is_terminal, parse_action
from zloutch.engine.record import InvalidRecordError, Record, roll
from zloutch.rules import load_rules
from zloutch.strategy.bots import make_bot
from zloutch.strategy.game_solver import GameSolution, solve_game
from zloutch.strategy.optimal import GameAdvisor

# The game solver's Numba kernels compiled once for a fresh clone, by the worker that runs
# the simulator's (about 5 s of CPU each time a worker compiles them): tests/conftest.py.
pytestmark = pytest.mark.xdist_group("sim-kernels")

NO_ENTRY = "farkle-minimal(target=1000)"
"""Two players, no entry minimum, no take-back: a bank of 100 is legal."""
SMALL_GAME = "farkle-minimal(target=500)"
"""The same, solved exactly in well under a second."""


def timid_record(spec: str = NO_ENTRY) -> Record:
    """Ana keeps a single 1 of six dice and banks 100: throwing five dice was far better."""
    return Record(
        load_rules(spec).spec,
        ("Ana", "Bob"),
        ("throw", "roll 1 2 3 4 6 6", "keep 1", "bank", "throw", "roll 1 1 1 2 3 4", "keep 1 1 1"),
    )


def bot_record(spec: str, bots: tuple[str, ...], seed: int) -> Record:
    """A whole game between bots, as ``zloutch play`` would record it."""
    rules = load_rules(spec)
    record = Record(rules.spec, bots, seed=seed)
    state = record.start()
    rng = random.Random(seed)
    policies = [make_bot(b) for b in bots]
    actions = []
    while not is_terminal(state):
        seat = current_player(state)
        action = roll(state, rng) if seat == CHANCE else policies[seat].choose(state, rng)
        actions.append(action)
        state = apply(state, action)
    return record.extended(actions)


@pytest.fixture(scope="module")
def small_solution() -> GameSolution:
    return solve_game(load_rules(SMALL_GAME))


def test_banking_100_with_five_dice_to_throw_costs_points() -> None:
    review = review_record(timid_record())
    assert review.objective == POINTS
    assert review.tolerance == POINTS_TOLERANCE
    bank = next(d for d in review.decisions if d.number == 4)
    assert (bank.player, bank.phase, bank.chosen.action, bank.best.action) == (
        "Ana",
        "decide",
        "bank",
        "throw",
    )
    assert bank.turn_total == 100 and bank.in_hand == 5
    assert bank.chosen.value == 100
    assert bank.cost > 100  # five dice from 100 are worth far more than 100 banked
    assert review.is_mistake(bank)
    assert situation_words(bank) == "turn total 100, 5 dice in hand"
    assert bank.chosen.words == "bank 100"
    ana = review.summaries[0]
    assert ana.mistakes == (bank,)
    assert ana.total_cost == pytest.approx(bank.cost)


def test_the_keep_of_a_throw_is_graded_too() -> None:
    review = review_record(timid_record())
    keep = next(d for d in review.decisions if d.number == 3)
    assert keep.phase == "keep" and keep.throw == (1, 2, 3, 4, 6, 6)
    assert situation_words(keep) == "threw 1 2 3 4 6 6"
    assert keep.chosen.words == "keep 1 (100)"
    assert keep.forced  # a single 1 is the only keep
    assert keep.cost == 0


def test_throw_in_answer_to_a_take_back_offer_is_graded_as_fresh() -> None:
    """``throw`` at a G-8 offer starts fresh (the engine's one synonym); line mode takes it
    and the record keeps it. The review skipped that decision, and the farkle after it
    counted no luck: it reads the move as the ``fresh`` it plays."""
    actions = ["throw", "roll 1 1 1 2 3", "keep 1 1 1", "bank", "ANSWER", "roll 2 2 3 4 6"]
    reviews = {
        word: review_record(
            Record(
                load_rules("dix-mille").spec,
                ("Ana", "Bob"),
                tuple(word if a == "ANSWER" else a for a in actions),
            )
        )
        for word in ("throw", "fresh")
    }
    typed, fresh = reviews["throw"], reviews["fresh"]
    answer = next(d for d in typed.decisions if d.number == 5)
    assert answer.player == "Bob" and answer.offer == (1000, 2)
    assert answer.chosen.action == "fresh" and {o.action for o in answer.options} == {
        "fresh",
        "take",
    }
    assert typed.decisions == fresh.decisions
    assert typed.summaries == fresh.summaries and typed.summaries[1].luck != 0


def test_an_expert_game_costs_nothing_in_expected_points() -> None:
    review = review_record(bot_record("dix-mille(target=3000)", ("expert", "greedy"), 4))
    expert, greedy = review.summaries
    assert expert.decisions > 10
    assert expert.total_cost == pytest.approx(0, abs=1e-9)
    assert expert.accuracy == 1 and expert.mistakes == ()
    assert greedy.total_cost > 0 and greedy.accuracy is not None and greedy.accuracy < 1


def test_summary_counts_every_move_of_each_player() -> None:
    record = bot_record("cinq-mille", ("expert", "greedy", "random"), 2)
    review = review_record(record, top=2)
    state = record.start()
    moves = [0, 0, 0]
    for text in record.actions:
        seat = current_player(state)
        if seat >= 0:
            moves[seat] += 1
        state = apply(state, parse_action(text))
    for s in review.summaries:
        mine = [d for d in review.decisions if d.seat == s.seat]
        assert s.decisions + s.forced == moves[s.seat] == len(mine)
        assert s.forced == sum(d.forced for d in mine)
        chosen = [d for d in mine if not d.forced]
        assert s.accurate == sum(d.cost < review.tolerance for d in chosen)
        assert s.total_cost == pytest.approx(sum(d.cost for d in chosen))
        assert len(s.mistakes) <= 2
        costs = [d.cost for d in s.mistakes]
        assert costs == sorted(costs, reverse=True)
        assert all(review.is_mistake(d) for d in s.mistakes)
    assert review.summaries[2].mistakes  # the random bot blunders
    assert review.objective == POINTS and "two players" in review.note


def test_every_decision_lists_its_options_best_first() -> None:
    review = review_record(bot_record("dix-mille(target=2000)", ("greedy", "random"), 9))
    for d in review.decisions:
        values = [o.value for o in d.options]
        assert values == sorted(values, reverse=True)
        assert d.chosen in d.options and d.best in d.options
        assert d.cost >= 0
        assert d.best.value == max(values)
        if d.cost == 0:
            assert d.best == d.chosen  # an equally good move is the best one


def test_win_probability_with_a_solved_game(small_solution: GameSolution) -> None:
    review = review_record(timid_record(SMALL_GAME), solution=small_solution)
    assert review.objective == WIN and review.tolerance == WIN_TOLERANCE
    assert review.note.startswith("win probability")
    bank = next(d for d in review.decisions if d.number == 4)
    assert 0 < bank.cost < 1
    for point in review.curve:
        assert sum(point.values) == pytest.approx(1)
        assert all(0 <= v <= 1 for v in point.values)
    assert review.curve[0].values[0] == pytest.approx(small_solution.first_player)


def test_win_probability_curve_ends_with_the_winner(small_solution: GameSolution) -> None:
    record = bot_record(SMALL_GAME, ("expert", "greedy"), 3)
    review = review_record(record, solution=small_solution)
    assert review.finished
    last = review.curve[-1]
    assert last.number == len(record.actions) + 1
    winner = review.winners[0]
    assert last.values[winner] == 1 and sum(last.values) == 1
    assert review.curve_measure == "win probability"


@pytest.mark.parametrize(
    ("bots", "seed"),
    [(("random", "expert"), 4), (("expert", "random"), 8), (("greedy", "random"), 9)],
)
def test_luck_and_skill_add_up_to_the_change_of_the_chance_to_win(
    small_solution: GameSolution, bots: tuple[str, str], seed: int
) -> None:
    """Each move of a game the solver models exactly moves a player's chance to win by the
    luck of a throw or the cost of a decision: from the first player's chance at the start
    to 1 or 0 at the end, the sum is the player's luck less their cost, less the other's
    luck plus the other's cost."""
    record = bot_record(SMALL_GAME, bots, seed)
    review = review_record(record, solution=small_solution)
    assert review.finished
    ana, bob = review.summaries
    assert ana.luck is not None and bob.luck is not None
    start = small_solution.first_player
    end = 1.0 if 0 in review.winners else 0.0
    change = ana.luck - ana.total_cost - bob.luck + bob.total_cost
    assert change == pytest.approx(end - start, abs=1e-9)
    assert ana.luck != 0 and len(review.decisions) > 4


def test_an_unfinished_game_ends_where_its_record_stops_and_its_luck_adds_up(
    small_solution: GameSolution,
) -> None:
    """A record cut off mid-game: the curve's last point is where it stops. At a move,
    that position valued for the player to move (after a farkle that ended the record's
    last turn, the next player's chance); with dice in the air, what the move that threw
    them was worth, which is also the average of where the throw's outcomes leave the game.
    Luck less cost again make the change from the start to there."""
    advisor = GameAdvisor(small_solution, load_rules(SMALL_GAME))
    at_a_move = in_the_air = 0
    records = [bot_record(SMALL_GAME, ("greedy", "random"), seed) for seed in (9, 10)]
    for record, stop in ((r, s) for r in records for s in range(2, len(r.actions) - 1)):
        cut = Record(record.rules, record.players, record.actions[:stop], seed=record.seed)
        state = cut.replay()
        seat = current_player(state)
        if is_terminal(state):
            continue
        review = review_record(cut, solution=small_solution)
        assert not review.finished
        last = review.curve[-1]
        assert last.number == stop + 1
        if seat == CHANCE:
            thrower = review.decisions[-1]
            assert thrower.number == stop
            assert last.values[thrower.seat] == pytest.approx(thrower.chosen.value, abs=1e-12)
            average = _values_at(advisor, state, WIN)
            assert average is not None
            assert average == pytest.approx(last.values, abs=1e-9)
            in_the_air += 1
        else:
            best = max(v for _, v in advisor.advise(state).values)
            assert last.values[seat] == pytest.approx(best)
            at_a_move += 1
        ana, bob = review.summaries
        assert ana.luck is not None and bob.luck is not None
        change = ana.luck - ana.total_cost - bob.luck + bob.total_cost
        assert change == pytest.approx(last.values[0] - small_solution.first_player, abs=1e-9)
    assert at_a_move > 10 and in_the_air > 5


def test_luck_in_expected_points_counts_a_farkle_against_the_thrower() -> None:
    # Ana throws five dice at 100 (a throw worth more than banking) and farkles: her luck
    # is all she expected of the turn; Bob's first throw, 1 1 1 2 3 4, is better than his
    # throw was worth on average.
    record = Record(
        load_rules(NO_ENTRY).spec,
        ("Ana", "Bob"),
        (
            "throw",
            "roll 1 2 3 4 6 6",
            "keep 1",
            "throw",
            "roll 2 2 3 4 6",
            "throw",
            "roll 1 1 1 2 3 4",
            "keep 1 1 1",
        ),
    )
    review = review_record(record)
    ana, bob = review.summaries
    assert ana.luck is not None and bob.luck is not None
    throws = [d for d in review.decisions if d.chosen.action == "throw" and d.seat == 0]
    expected = throws[0].chosen.value  # before her first throw: the turn from 0
    assert ana.luck == pytest.approx(0.0 - expected, abs=1e-9)
    assert bob.luck > 0


def test_three_players_are_graded_in_points_even_with_a_table(
    small_solution: GameSolution,
) -> None:
    record = bot_record("greed(target=500)", ("expert", "greedy", "cautious"), 1)
    review = review_record(record, solution=small_solution)
    assert review.objective == POINTS
    assert "two players" in review.note


def test_a_table_of_other_rules_is_not_used(small_solution: GameSolution) -> None:
    review = review_record(timid_record(), solution=small_solution)
    assert review.objective == POINTS
    assert "farkle-minimal(target=500)" in review.note


def test_expected_score_curve_adds_the_turn_in_progress() -> None:
    review = review_record(timid_record())
    assert review.curve_measure == "expected score"
    first = review.curve[0]
    assert first.number == 1
    assert first.values[1] == 0  # Bob has banked nothing and is not playing
    assert first.values[0] > 100  # Ana's turn to come is worth something
    bob_turn = next(p for p in review.curve if p.number == 5)
    assert bob_turn.values[0] == 100  # Ana banked 100


def test_json_shape() -> None:
    review = review_record(timid_record(), top=1)
    document = review.to_json()
    text = json.dumps(document, allow_nan=False)
    assert json.loads(text) == document
    assert set(document) == {
        "format",
        "version",
        "rules",
        "players",
        "objective",
        "note",
        "sheet_blind",
        "tolerance",
        "finished",
        "winners",
        "summary",
        "decisions",
        "curve",
    }
    assert document["format"] == "zloutch-review"
    assert document["objective"] == "expected points"
    assert document["players"] == ["Ana", "Bob"]
    assert document["finished"] is False and document["winners"] == []
    decision = document["decisions"][2]
    assert {
        "action",
        "player",
        "seat",
        "turn",
        "phase",
        "scores",
        "situation",
        "chosen",
        "best",
        "chosen_value",
        "best_value",
        "cost",
        "forced",
        "mistake",
        "options",
    } <= set(decision)
    assert (decision["action"], decision["chosen"], decision["best"]) == (4, "bank", "throw")
    assert decision["mistake"] is True
    assert decision["options"][0] == {"action": "throw", "value": decision["best_value"]}
    ana = document["summary"][0]
    assert set(ana) == {
        "player",
        "seat",
        "decisions",
        "forced",
        "accurate",
        "accuracy",
        "total_cost",
        "average_cost",
        "luck",
        "mistakes",
    }
    assert ana["mistakes"][0]["action"] == 4
    assert document["curve"]["measure"] == "expected score"
    # a point a decision, and the last where the record stops (Bob to throw or bank)
    points = document["curve"]["points"]
    assert len(points) == len(document["decisions"]) + 1
    assert points[-1]["action"] == len(timid_record().actions) + 1


def test_a_record_that_does_not_replay_is_refused() -> None:
    record = Record("farkle-minimal", ("Ana", "Bob"), ("throw", "roll 2 3 4 6 6 6", "bank"))
    with pytest.raises(InvalidRecordError, match="action 3"):
        review_record(record)
    with pytest.raises(InvalidRecordError, match="action 1"):
        review_record(Record("farkle-minimal", ("Ana", "Bob"), ("jump",)))
