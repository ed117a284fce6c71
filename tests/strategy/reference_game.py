"""A brute-force game solver through the engine itself (tests only, tiny rule sets).

Every engine state reachable from the start is enumerated (scores are kept on one level so
that equal positions are equal states), then value iteration runs until nothing moves: the
value of a state is the chance that the player to move wins.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from zloutch.engine import (
    CHANCE,
    Bank,
    GameState,
    Level,
    apply,
    chance_outcomes,
    current_player,
    is_terminal,
    legal_actions,
    turn_player,
)


def normalise(state: GameState) -> GameState:
    sheets = tuple(
        replace(
            s,
            levels=(Level(s.score),) if s.entered else (),
            ticks=0,
            loose_ticks=0,
            farkles_in_row=0,
        )
        for s in state.sheets
    )
    return replace(state, sheets=sheets, turns=0)


def solve(start: GameState, margin: int, tolerance: float = 1e-13) -> dict[GameState, float]:
    """``margin`` points past the target (or past the leader, in F-4's last turn) a total
    is taken as won, as the solver does."""
    target = start.rules.game.target
    edges: dict[GameState, tuple[bool, list[tuple[float, GameState | None, bool, float]]]] = {}
    todo = [normalise(start)]
    while todo:
        state = todo.pop()
        if state in edges:
            continue
        mover = turn_player(state)
        chance = current_player(state) == CHANCE
        out: list[tuple[float, GameState | None, bool, float]] = []
        moves = (
            chance_outcomes(state) if chance else [(a, Fraction(1)) for a in legal_actions(state)]
        )
        for action, p in moves:
            nxt = apply(state, action)
            if is_terminal(nxt):
                # Ties share the win (F-4): each winner counts as its share of one win.
                share = 1.0 / len(nxt.winners) if mover in nxt.winners else 0.0
                out.append((float(p), None, False, share))
                continue
            # A reach target: a bankable total at or past it wins at once, so stop there;
            # far past it (or past the leader in a last turn), stop as the solver does.
            score = nxt.sheets[mover].score + nxt.turn.total
            line = target
            if nxt.final is not None:
                line = max(s.score for s in nxt.sheets)
            if turn_player(nxt) == mover and not nxt.rules.game.exact_target:
                bank_wins = Bank() in legal_actions(nxt) and not nxt.rules.game.final_turns
                if (score >= line and bank_wins) or score >= line + margin:
                    out.append((float(p), None, False, 1.0))
                    continue
            nxt = normalise(nxt)
            out.append((float(p), nxt, turn_player(nxt) != mover, 0.0))
            todo.append(nxt)
        edges[state] = (chance, out)
    value = dict.fromkeys(edges, 0.5)
    while True:
        change = 0.0
        for state, (chance, out) in edges.items():
            terms = []
            for p, nxt, flips, fixed in out:
                if nxt is None:
                    terms.append(p * fixed if chance else fixed)
                else:
                    v = 1.0 - value[nxt] if flips else value[nxt]
                    terms.append(p * v if chance else v)
            new = sum(terms) if chance else max(terms)
            change = max(change, abs(new - value[state]))
            value[state] = new
        if change < tolerance:
            return value
