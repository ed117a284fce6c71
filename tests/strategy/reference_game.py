"""A brute-force game solver through the engine itself (tests only, tiny rule sets).

Every engine state reachable from the start is enumerated (scores are kept on one level so
that equal positions are equal states), then value iteration runs until nothing moves: the
value of a state is the chance that the player to move wins.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

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

FLOOR = 2500
"""F-1: scores below -FLOOR are taken as -FLOOR (the solver's bound); see ``normalise``."""


def normalise(state: GameState, floor: int | None = None) -> GameState:
    """One state per position: the score on one level, no ticks, the turn count dropped.

    Under F-1 the farkles in a row stay (they are part of the position) and a score below
    ``-floor`` points (default ``FLOOR``) is raised to it, as the solver bounds the game."""
    penalty = bool(state.rules.turn.farkle_penalty)
    low = -(FLOOR if floor is None else floor)
    sheets = []
    for s in state.sheets:
        score = max(s.score, low) if penalty else s.score
        if s.entered:
            levels: tuple[Level, ...] = (Level(score),)
        elif score:
            levels = (Level(score, penalty=True),)  # only penalties written: not entered
        else:
            levels = ()
        sheets.append(
            replace(
                s,
                levels=levels,
                ticks=0,
                loose_ticks=0,
                farkles_in_row=s.farkles_in_row if penalty else 0,
            )
        )
    return replace(state, sheets=tuple(sheets), turns=0)


def solve(
    start: GameState, margin: int, tolerance: float = 1e-13, floor: int | None = None
) -> dict[GameState, float]:
    """``margin`` points past the target (or past the leader, in F-4's last turn) a total
    is taken as won, as the solver does."""
    target = start.rules.game.target
    edges: dict[GameState, tuple[bool, list[tuple[float, GameState | None, bool, float]]]] = {}
    todo = [normalise(start, floor)]
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
            nxt = normalise(nxt, floor)
            out.append((float(p), nxt, turn_player(nxt) != mover, 0.0))
            todo.append(nxt)
        edges[state] = (chance, out)
    # Value iteration (Jacobi sweeps as whole-array operations): a chance state is worth the
    # expectation of its outcomes, a decision the best of its actions, every edge from the
    # mover's side (1 - v when the turn passes).
    states = list(edges)
    index = {state: i for i, state in enumerate(states)}
    starts, dst, weight, flips, fixed, chance_of = [], [], [], [], [], []
    for state in states:
        chance, out = edges[state]
        starts.append(len(dst))
        chance_of.append(chance)
        for p, nxt, flip, worth in out:
            dst.append(-1 if nxt is None else index[nxt])
            weight.append(p if chance else 1.0)
            flips.append(flip)
            fixed.append(worth)
    first = np.asarray(starts)
    target_of = np.asarray(dst)
    known = target_of < 0
    target_of = np.where(known, 0, target_of)
    w, flip_of, worth_of = np.asarray(weight), np.asarray(flips), np.asarray(fixed)
    is_chance = np.asarray(chance_of)
    v = np.full(len(states), 0.5)
    while True:
        seen = v[target_of]
        term = np.where(known, worth_of, np.where(flip_of, 1.0 - seen, seen))
        expected = np.add.reduceat(w * term, first)
        best = np.maximum.reduceat(term, first)
        new = np.where(is_chance, expected, best)
        change = float(np.max(np.abs(new - v)))
        v = new
        if change < tolerance:
            return {state: float(v[i]) for i, state in enumerate(states)}
