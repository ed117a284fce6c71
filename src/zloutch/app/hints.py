"""The hint: each legal action of the player to move with its value, the best first.

The terminal app (``Session.advice``) and the server (``GET /api/games/{id}/hint``) both ask
here. The value is the chance to win where a solved two-player game of the rule set is in the
cache (``GameAdvisor``), else the expected points of the turn played optimally
(``TurnAdvisor``). An advisor solves each situation once and keeps it; ``shared_advisor``
keeps one advisor per rule set for a whole process, so a server pays for a rule set's turn
solve once, whatever the number of games and clients asking.
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager

from zloutch.app.shown import percent
from zloutch.app.store import game_solution_cached, load_game_solution
from zloutch.engine import Bank, GameState, Keep, Phase, current_player
from zloutch.engine.game import apply_legal, banked_score, legal_actions, reaches_target
from zloutch.rules import RuleSet
from zloutch.strategy.bots import last_turn_lead, make_bot, wins_by_banking
from zloutch.strategy.expert import LONG_RUN, WIN_PROBABILITY, Advice, BoldBot, TurnAdvisor
from zloutch.strategy.game_solver import SHEET_NAMES, SHEET_OPTIONS, solved_model
from zloutch.strategy.optimal import GameAdvisor, sheet_words
from zloutch.strategy.policy import Policy

SHARED_ADVISORS = 16
"""Rule sets whose advisors a process keeps (the least recently asked goes first)."""


def new_advisor(rules: RuleSet, players: int) -> TurnAdvisor:
    """Win probabilities where a solved two-player game is on disk (of the rules, or of
    their sheet-blind model, read one turn ahead on the sheet: ``solved_model``), else
    points."""
    model = solved_model(rules) if players == 2 else None
    solved = load_game_solution(model) if model is not None else None
    return GameAdvisor(solved, rules) if solved else TurnAdvisor(rules)


def advice_of(advisor: TurnAdvisor, state: GameState) -> Advice | None:
    """Each legal action with its value for the player to move, best first; None when no
    player decides now (dice in the air, the game over)."""
    if current_player(state) < 0:
        return None
    advice = advisor.advise(state)
    # A die off the table is no choice: the advisor gives it no value (-inf).
    values = tuple((a, v) for a, v in advice.values if math.isfinite(v))
    if not values:
        return None
    return with_target_note(state, Advice(values, advice.objective, model_note(advisor, state)))


def model_note(advisor: TurnAdvisor, state: GameState) -> str | None:
    """Where the chances to win come from a sheet-blind model of the rules (dix-mille's
    ticks, bumps and take-back left out: ``solved_model``), the hint says so, as the review
    and the optimal bot do; else None."""
    if not isinstance(advisor, GameAdvisor) or advisor.game.rules == state.rules:
        return None
    # Short: under the values of a terminal's hint panel, 26 columns wide (the model's spec
    # and its whole reading took ten lines there, and six on a phone).
    rules, model = state.rules, advisor.game.rules
    left = [SHEET_NAMES[o][0] for o in SHEET_OPTIONS if rules.option(o) != model.option(o)]
    how = "by the banked scores" if model.turn.farkle_penalty else "one turn ahead on the sheet"
    return f"chances of the game solved without {', '.join(left)}, read {how}"


WINS_NOTE = "banking wins the game (G-2): these values count the turn, not the game"
"""Said under a hint in points where banking wins at once: the bank is put first."""
TURN_NOT_GAME = "these values count the turn, not the game"


def with_target_note(state: GameState, advice: Advice) -> Advice:
    """A hint in points (not the chance to win) near the end, where the turn's values do not
    see the game (``TURN_NOT_GAME``):

    - a bank that wins at once (a target to reach with nothing after it, G-2; the last of
      the last turns ahead of every score, F-4) comes first, and a keep that lets the player
      bank such a win comes first among the keeps, each with a note saying so;
    - in a last turn (F-4), a bank that cannot win is said to, and the throw comes first;
    - a bank that reaches the target and starts the last turns or ends the round is noted.

    Under an exact target (T-9) the turn's values read the target themselves: a landing
    bank is best already, and only noted."""
    if advice.objective == WIN_PROBABILITY:
        return advice
    rules, t = state.rules, state.turn
    if state.phase is Phase.KEEP:
        return _winning_keep_first(state, advice)
    bank = next((v for a, v in advice.values if isinstance(a, Bank)), None)
    if bank is None or state.phase is not Phase.DECIDE:
        return advice
    others = tuple((a, v) for a, v in advice.values if not isinstance(a, Bank))
    if _bank_wins(state):
        return Advice(((Bank(), bank), *others), advice.objective, WINS_NOTE)
    after = banked_score(rules, state.sheets[t.player].score, t.total)
    lead = last_turn_lead(state)
    if lead is not None:
        if after < lead:
            note = (
                f"banking ends this last turn (F-4) at {after}, below {lead}: it cannot win; "
                + TURN_NOT_GAME
            )
            return Advice((*others, (Bank(), bank)), advice.objective, note)
        return advice
    if rules.game.exact_target or not reaches_target(rules, after):
        return advice
    then = "starts the last turns (F-4)" if rules.game.final_turns else "ends the round (G-6)"
    return Advice(
        advice.values, advice.objective, f"banking reaches the target and {then}: {TURN_NOT_GAME}"
    )


def _bank_wins(state: GameState) -> bool:
    """At a decision, banking is legal and wins the game at once: a target to reach with
    nothing after it (G-2, ``wins_by_banking``; not an exact one, whose values read it), or
    the last of the last turns (F-4) ending ahead of every other score."""
    if state.phase is not Phase.DECIDE:
        return False
    if not state.rules.game.exact_target and wins_by_banking(state):
        return True
    final, t = state.final, state.turn
    lead = last_turn_lead(state)  # F-4: the best other score, in a last turn
    if lead is None or final is None or Bank() not in legal_actions(state):
        return False
    if (t.player + 1) % len(state.sheets) != final.stop_before:
        return False  # others play after: banking ahead of them is a lead, not a win
    return banked_score(state.rules, state.sheets[t.player].score, t.total) > lead


def _winning_keep_first(state: GameState, advice: Advice) -> Advice:
    """At a keep: the keeps after which banking wins at once (``_bank_wins``) first."""
    if state.rules.game.exact_target:
        return advice  # a keep that lands on the target ranks first by its value already
    winning = []
    for action, _ in advice.values:
        if isinstance(action, Keep) and _bank_wins(apply_legal(state, action)):
            winning.append(action)
    if not winning:
        return advice
    first = [(a, v) for a, v in advice.values if a in winning]
    rest = [(a, v) for a, v in advice.values if a not in winning]
    dice = " ".join(map(str, first[0][0].dice))
    note = f"keep {dice}, then bank: it wins the game; {TURN_NOT_GAME}"
    return Advice((*first, *rest), advice.objective, note)


MAX_HINT_DIGITS = 3


def hint_digits(advice: Advice) -> int:
    """The decimals a hint's values are shown with: one, or as many as the best needs to
    stand apart from the next (up to three; ``50.0%`` and ``50.0%`` said nothing of why the
    first was best); one where three cannot tell them apart (a tie says so at one)."""
    scale = 100.0 if advice.objective == WIN_PROBABILITY else 1.0
    values = [scale * v for _, v in advice.values]
    if len(values) < 2:
        return 1
    for digits in range(1, MAX_HINT_DIGITS + 1):
        if round(values[0], digits) != round(values[1], digits):
            return digits
    return 1


def shown_value(advice: Advice, value: float, digits: int | None = None) -> str:
    """A hint's value as people read it: ``67.6%`` of a chance to win (``percent``), or
    ``1243.8`` points, with ``hint_digits`` decimals unless told."""
    digits = hint_digits(advice) if digits is None else digits
    if advice.objective == WIN_PROBABILITY:
        return percent(value, digits)
    return f"{value:.{digits}f}"


def hint_heading(advice: Advice, name: str) -> str:
    """What a hint's values are, for ``name``: the chance to win, points of this turn, or
    the long-run points per turn (F-1)."""
    if advice.objective == WIN_PROBABILITY:
        return f"Hint for {name}, the chance to win after each move:"
    if advice.objective == LONG_RUN:
        return (
            f"Hint for {name}, each move's worth in long-run points per turn "
            "(F-1: this turn's points and the farkles in a row it leaves):"
        )
    return f"Hint for {name}, {advice.objective} banked by this turn:"


SOLVING_NOTE = "solving this game: the chance to win is coming"
"""What a hint in points says while its game's table is being solved."""


def _solve_and_keep(rules: RuleSet) -> bool:
    """In the solving process: the two-player game solved and saved in the cache. The
    process says nothing on the terminal it was started from (a full-screen app draws
    there): a failure comes back as the job's exception."""
    from zloutch.app.solve import solved_game

    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 2)
    solved_game(rules)
    return True


@contextmanager
def _real_stderr() -> Iterator[None]:
    """A standard error with a file descriptor while a solving process starts:
    multiprocessing hands it to the processes it starts (its resource tracker), and a
    full-screen app (Textual) replaces ``sys.stderr`` with an object whose descriptor is -1
    ("bad value(s) in fds_to_keep"). The null device: those processes say nothing."""
    saved = sys.stderr
    with open(os.devnull, "w") as quiet:
        sys.stderr = quiet
        try:
            yield
        finally:
            sys.stderr = saved


def plays_solved_game(bots: Iterable[str], players: int) -> bool:
    """Whether one of these bots (names or levels: ``best``) plays by a solved game in a game
    of ``players`` seats (alone, ``optimal`` solves nothing: ``solves_for``)."""
    if not any(make_bot(name).name == "optimal" for name in bots):
        return False
    from zloutch.strategy.optimal import solves_for  # NumPy: only for this bot

    return solves_for(players)


class BackgroundSolves:
    """Two-player games solved in a process apart (never on the asker's thread or a
    server's event loop), one at a time, each saved in the solver cache for the next games
    and processes. ``ready(rules)`` says when a game's table can be read."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._jobs: dict[RuleSet, Future[bool]] = {}
        self._models: dict[RuleSet, RuleSet] = {}
        """A game's rules -> the model solved for them (``start_for_optimal``)."""
        self._lock = threading.Lock()
        self._closed = False

    def start(self, rules: RuleSet) -> None:
        """Solve ``rules``'s two-player game, unless it is solving, the solver does not
        model it, or ``close`` was called (a server's thread may get here as it stops)."""
        from zloutch.strategy.game_solver import unsupported_reason

        with self._lock:
            if self._closed or rules in self._jobs or unsupported_reason(rules) is not None:
                return
            with _real_stderr():
                if self._pool is None:
                    # spawn: a server's threads and event loop are not copied into the child
                    context = multiprocessing.get_context("spawn")
                    self._pool = ProcessPoolExecutor(1, mp_context=context)
                self._jobs[rules] = self._pool.submit(_solve_and_keep, rules)

    def start_for_optimal(self, rules: RuleSet) -> RuleSet | None:
        """What an optimal bot plays a game of ``rules`` by (the rule set, or its sheet-blind
        model, ``sheet_blind``), solved here when no table of it is cached; None: a rule set
        neither models (the bot plays turn-optimal and says so)."""
        model = solved_model(rules)
        if model is not None:
            with self._lock:
                self._models[rules] = model
            if load_game_solution(model) is None:
                self.start(model)
        return model

    def ready(self, rules: RuleSet) -> bool:
        """Whether ``rules``'s game (or the model solved for it) was solved here and is in
        the cache now."""
        with self._lock:
            job = self._jobs.get(self._models.get(rules, rules))
        return job is not None and job.done() and job.exception() is None

    def running(self, rules: RuleSet) -> bool:
        """Whether ``rules``'s game (or the model solved for it) is being solved here (or
        waits its turn)."""
        with self._lock:
            job = self._jobs.get(self._models.get(rules, rules))
        return job is not None and not job.done()

    def close(self, *, kill: bool = False) -> None:
        """No more solves, and the solving process gone when this returns. The solve under
        way is waited for, or with ``kill`` stopped (a terminal game that quits, a server
        that stops: neither waits minutes for a table; the cache keeps only whole tables,
        and a server solves again for the games in play when it starts).

        The pool's queues are released here, not at the interpreter's exit: a server's
        exit skips it (uvicorn raises the stopping signal again once it has shut down), and
        their semaphores were then reported leaked by multiprocessing's resource tracker."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
            jobs, self._jobs = self._jobs, {}
        if pool is None:
            return
        busy = any(not job.done() for job in jobs.values())  # an idle worker exits by itself
        if kill and busy:  # Python 3.14 has pool.terminate_workers() for this
            for worker in list(getattr(pool, "_processes", {}).values()):
                worker.terminate()
        # One call that waits: a shutdown without waiting forgets the pool's manager thread,
        # and a second call then returned while it still waited for the worker to exit.
        pool.shutdown(wait=True, cancel_futures=True)
        del pool, jobs
        gc.collect()  # the queues sit in reference cycles (the manager thread's, a future's)


class SharedAdvisors:
    """One advisor per (rule set, two players or not), for every game of a process; safe to
    ask from several threads (one solve at a time: a second asker waits for the table).

    With ``solves`` (the server), a two-player game whose solved table is not cached is
    solved there on first use, and its hint is in expected points until the table is
    ready, then in the chance to win."""

    def __init__(self, size: int = SHARED_ADVISORS, solves: BackgroundSolves | None = None):
        self.size = size
        self.solves = solves
        self._advisors: OrderedDict[tuple[RuleSet, bool], TurnAdvisor] = OrderedDict()
        self._lock = threading.Lock()

    def advice(self, state: GameState) -> Advice | None:
        """The hint for the player to move in ``state``."""
        with self._lock:
            two = len(state.sheets) == 2
            key = (state.rules, two)
            advisor = self._advisors.get(key)
            solves = self.solves if two else None
            if (
                advisor is not None
                and solves is not None
                and not isinstance(advisor, GameAdvisor)
                and solves.ready(state.rules)
            ):
                advisor = None  # the table is in the cache now: read it
            if advisor is None:
                advisor = new_advisor(state.rules, len(state.sheets))
                self._advisors[key] = advisor
                while len(self._advisors) > self.size:
                    self._advisors.popitem(last=False)
                if solves is not None and not isinstance(advisor, GameAdvisor):
                    solves.start_for_optimal(state.rules)
            self._advisors.move_to_end(key)
            return advice_of(advisor, state)


BOT_WAYS = {
    "random": "plays any legal move at random",
    "cautious": "keeps the most points and banks as soon as it may",
    "greedy": "keeps the most points; banks at 1000 with three dice or more to throw, else at 300",
    "expert": "plays each turn for the most points (turn-optimal)",
}
"""What each bot that reads no solved game plays, in words (``bot_plays``)."""


OPTIMAL_WAY = (
    "plays to win, from the solved game of the rules where one models them (each turn for "
    "the most points until it is solved)"
)
"""What the ``optimal`` bot plays, in words, before a game says which (``level_plays``)."""


def _plays(bot: Policy) -> str:
    """What a bot that reads no solved game plays, in words."""
    if bot.name.startswith("threshold:"):
        return f"keeps the most points and banks from {bot.name.partition(':')[2]}"
    if isinstance(bot, BoldBot):
        points = "1 point" if bot.margin == 1 else f"{bot.margin} points"
        return (
            f"keeps as strong does but pushes its luck: it throws on unless banking is "
            f"better by {points} or more"
        )
    return BOT_WAYS.get(bot.name, bot.name)


def level_plays(name: str) -> str:
    """What the bot of a level or name plays, in words, before any game: the lobby says it
    beside the level chosen (``bot_plays`` says it of a game)."""
    bot = make_bot(name)
    return OPTIMAL_WAY if bot.name == "optimal" else _plays(bot)


def bot_plays(
    name: str, rules: RuleSet, players: int, solves: BackgroundSolves
) -> tuple[str, bool]:
    """What the bot ``name`` (a name or a level) plays in a game of ``rules`` with
    ``players`` now, in words, and whether its table is being solved (it plays turn-optimal
    until then): the front ends say it beside the seat."""
    from zloutch.strategy.optimal import solves_for

    bot = make_bot(name)
    if bot.name != "optimal":
        return _plays(bot), False
    if not solves_for(players):
        return "plays each turn for the most points (turn-optimal): alone, no one to beat", False
    model = solved_model(rules)
    if model is None:
        return (
            "plays each turn for the most points (turn-optimal): no solved game models these rules",
            False,
        )
    if solves.running(rules):
        return (
            # the game's words, not its model's spec (a page showed a spec of four options)
            "plays each turn for the most points until the game is solved (solving it now)",
            True,
        )
    if not solves.ready(rules) and not game_solution_cached(model):
        return "plays each turn for the most points: the game is not solved yet", False
    field = f", against the most dangerous of the {players - 1} opponents" if players > 2 else ""
    if model == rules:
        return f"plays to win, from the solved game{field}", False
    return f"plays to win, from the solved sheet-blind model{field}, {sheet_words(model)}", False
