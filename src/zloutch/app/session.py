"""A game being played at the terminal, for every adapter: a match, its log, bots and saves.

The line mode (``zloutch.adapters.plain``) and the full-screen app (``zloutch.adapters.tui``)
both drive a ``Session``. It wraps the game's ``Match`` (``zloutch.app.match``: the engine's
state, the record, the dice, the refusals, the undo), writes every event as a line of the
log, asks the bots for their moves, reads what people type and keeps the record in a file.
Nothing here decides a rule or words a refusal: refusals are the match's reasons, worded for
the log ("Bob banks 650? No: a total ending in 50 cannot be banked (T-6)").
"""

from __future__ import annotations

import os
import random
import stat
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from zloutch.app.dice import (
    CommittedDice,
    DiceSource,
    ScriptedDice,
    SeededDice,
    TypedDice,
    choose_dice,
    count_dice,
)
from zloutch.app.files import check_writable, shown, write_atomically
from zloutch.app.hints import BackgroundSolves, SharedAdvisors, plays_solved_game
from zloutch.app.match import BOT_PREFIX, Match, Need, NothingToUndoError, undone_words
from zloutch.app.store import load_game_solution
from zloutch.engine import (
    GAME_OVER,
    Action,
    Bank,
    Fresh,
    GameState,
    IllegalActionError,
    InvalidActionError,
    Joker,
    Keep,
    Off,
    Phase,
    Roll,
    Take,
    Throw,
    current_player,
    new_game,
    parse_action,
)
from zloutch.engine.endings import load_rules
from zloutch.engine.events import Event, TurnStarted
from zloutch.engine.game import keep_passes, keep_strands, keep_wins, throw_score
from zloutch.engine.record import (
    SEED_SCHEME,
    DiceCommitment,
    DiceSegment,
    InvalidRecordError,
    Record,
    UncommittedDice,
    count_throws,
    dump_record,
    implied_dice,
    kept_rules,
    load_record,
    read_record,
)
from zloutch.rules import Dice, ZloutchError, format_dice, parse_dice
from zloutch.rules.scoring import ScoredKeep, score_table
from zloutch.sim import MAX_TURNS
from zloutch.strategy.bots import LEVELS, last_turn_lead, make_bot
from zloutch.strategy.expert import Advice
from zloutch.strategy.policy import Policy

BOTS_ALONE_TURNS = MAX_TURNS
"""Turns after which a game of bots alone is stopped (the simulator's cap)."""

DEFAULT_PACE = 0.8
"""Seconds between two moves of a bot on a terminal: a pace a person can follow."""
MAX_PACE = 60.0
"""The longest pace, in seconds (``--pace``, the server's lobby): a minute a move."""


def pace_refusal(pace: float) -> str | None:
    """Why a bot's pace (seconds between its moves) cannot be used; None when it can."""
    if not 0 <= pace <= MAX_PACE:  # NaN too
        return f"a bot's pace is a number of seconds from 0 to {MAX_PACE:g}"
    return None


PLAY_PLAYERS = "Player,bot:medium"
"""``zloutch play``: you against one bot."""
TABLE_PLAYERS = "Player 1,Player 2"
"""``zloutch table``: two people at a real table."""
BOT_LEVELS = tuple(LEVELS)
"""The levels people choose from (``zloutch.strategy.bots.LEVELS``), weakest first."""


class InvalidPlayersError(ZloutchError):
    """A list of players that cannot sit at the table."""


class SessionError(ZloutchError):
    """Something asked of the session that it cannot do now (undo with nothing to undo...)."""


# ---------------------------------------------------------------------------- players


def bot_of(name: str) -> Policy | None:
    """The bot a player's name calls for, or None for a person.

    ``bot:strong#2`` is the second ``strong`` bot at the table: the suffix keeps names unique.
    """
    if not name.lower().startswith(BOT_PREFIX):
        return None
    return make_bot(name[len(BOT_PREFIX) :].split("#")[0], solutions=load_game_solution)


_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""The characters that turn the text after them around (a name ending in U+202E showed the
page's next words mirrored)."""


_JOINERS = frozenset("\u200c\u200d")
"""The invisible characters a name may hold: they join letters and emoji (👩‍👧)."""


def person_name(name: str) -> str:
    """A person's name as it is kept: its runs of white space (a line break, a tab, a
    no-break space) one space, stripped; empty where nothing of it shows. Refused
    (``InvalidPlayersError``): a control character, one that turns the text around, or
    another invisible one ("Ana" and a zero-width space looked like "Ana")."""
    name = " ".join(name.split())
    for c in name:
        # each said by what it does and its code point: the field shows nothing of it
        if c in _BIDI_CONTROLS:
            what = "no character that turns the text around"
        elif unicodedata.category(c) == "Cc":
            what = "no control character"
        elif unicodedata.category(c) == "Cf" and c not in _JOINERS:
            what = "no invisible character"
        else:
            continue
        raise InvalidPlayersError(f"{name!r}: a name holds {what} (U+{ord(c):04X}): type it again")
    return name if _seen(name).strip() else ""


def _seen(name: str) -> str:
    """What a name shows, to compare names with: its compatibility form (full-width letters
    as letters), case aside, without the marks that change nothing seen alone."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(c for c in folded if unicodedata.category(c) not in ("Mn", "Me", "Cf"))


def same_name(one: str, other: str) -> bool:
    """Whether two names are one to the people at the table: "Ana", "ana" and "Ana" written
    in full-width letters are."""
    return _seen(one) == _seen(other)


def parse_players(text: str) -> tuple[str, ...]:
    """Players from ``--players``: names separated by commas; ``bot:LEVEL`` names a bot."""
    names = [person_name(part) for part in text.split(",")]
    if not text.strip() or any(not name for name in names):
        raise InvalidPlayersError(
            f"--players {text!r}: every player needs a name; separate names with commas, "
            "as in Ana,Bob,bot:strong"
        )
    seen: dict[str, int] = {}
    result: list[str] = []
    for name in names:
        if name.lower().startswith(BOT_PREFIX):
            name = BOT_PREFIX + name[len(BOT_PREFIX) :].strip().lower()
            bot_of(name)  # an unknown bot is refused here, with the list of bots
            count = seen.get(name, 0) + 1
            seen[name] = count
            result.append(name if count == 1 else f"{name}#{count}")
            continue
        if any(same_name(name, other) for other in result):
            raise InvalidPlayersError(
                f"two players are called {name!r}: every player needs a name of their own"
            )
        result.append(name)
    return tuple(result)


# ---------------------------------------------------------------------------- words


def short_reason(reason: str) -> str:
    """The engine's reason without its "you cannot bank 650: " opening (the log says it)."""
    if reason.startswith("you cannot") and ": " in reason:
        return reason.split(": ", 1)[1]
    return reason


def attempt_words(state: GameState, action: Action) -> str:
    """What a player tries, as the log says it: ``banks 650``, ``keeps 1 5``."""
    if isinstance(action, Bank):
        return f"banks {state.turn.total}"
    # (no dice: a key pressed with nothing selected, "keeps dice", not "keeps  ")
    if isinstance(action, Keep):
        return f"keeps {format_dice(action.dice) or 'dice'}"
    if isinstance(action, Joker):
        return f"sets {format_dice(action.dice) or 'dice'} aside as jokers"
    if isinstance(action, Take):
        return "takes over the last turn"
    if isinstance(action, Fresh):
        return "starts fresh"
    if isinstance(action, Off):
        return "has a die off the table"
    if isinstance(action, Roll):
        return f"throws {format_dice(action.dice)}"
    return "throws"


def entry_status(state: GameState, seat: int) -> str:
    """Whether a player is in the game, and what entry needs if not (T-7); empty where
    entering changes nothing (it said "entered" of one player and "no entry minimum" of
    the other)."""
    entered = state.entered(seat)
    turn = state.rules.turn
    if not turn.entering_matters:
        return ""
    if entered:
        return "entered"
    if not turn.entry:  # the petit palier alone
        return "not entered: a bank of 100 only once entered (T-8)"
    if turn.entry_by == "throw":
        return f"not entered: one throw of {turn.entry} to enter (T-7)"
    return f"not entered: {turn.entry} to enter (T-7)"


def ticks_words(state: GameState, seat: int) -> str:
    """The ticks that count now (G-3), as the engine says: ``2 ticks``, or empty."""
    ticks = state.sheets[seat].current_ticks
    if not ticks or not state.rules.game.ticks_to_cross:
        return ""
    return f"{ticks} tick" if ticks == 1 else f"{ticks} ticks"


def farkles_words(state: GameState, seat: int) -> str:
    """The farkles in a row that count toward F-1's penalty: ``2 farkles in a row (F-1: the
    3rd costs 500)``, or empty."""
    turn = state.rules.turn
    count = state.sheets[seat].farkles_in_row
    if not turn.farkle_penalty or not count:
        return ""
    row = "1 farkle in a row" if count == 1 else f"{count} farkles in a row"
    return f"{row} (F-1: the {_ordinal(turn.farkle_penalty_after)} costs {turn.farkle_penalty})"


def _ordinal(n: int) -> str:
    if n % 100 in (11, 12, 13):
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def standing_words(state: GameState, seat: int) -> list[str]:
    """A player's place in the game: score, the ticks that count (G-3), the farkles in a
    row that count (F-1), entry (T-7)."""
    words = [
        f"score {state.sheets[seat].score}",
        ticks_words(state, seat),
        farkles_words(state, seat),
        entry_status(state, seat),
    ]
    return [w for w in words if w]


def others_words(state: GameState, seat: int) -> str:
    """The other players' scores at the start of a seat's turn, or in a last turn (F-4) the
    score it must beat: ``the others: Bob: 8200``, ``a last turn (F-4): the score to beat is
    3050 (Bob: 3050)``; empty alone at the table. (The target is said as the game opens.) A
    colon between a name and its score: "Player 2 0" read aloud was one number too many."""
    others = [f"{s.name}: {s.score}" for i, s in enumerate(state.sheets) if i != seat]
    lead = last_turn_lead(state)
    if lead is not None:
        return f"a last turn (F-4): the score to beat is {lead} ({', '.join(others)})"
    return f"the others: {', '.join(others)}" if others else ""


def instant_win_words(state: GameState) -> str | None:
    """Why a game over ended at a throw: the combination that wins at once (G-5), as in
    ``a win at once with five 1s (G-5)``; None where it ended otherwise."""
    if not state.winners or not state.turn.throw:
        return None
    for keep in score_table(state.rules).lookup(state.turn.throw).keeps:
        for combination in keep.combinations:
            if combination.wins:
                return f"a win at once with {combination.name} (G-5)"
    return None


def passes_words(state: GameState) -> str:
    """What a keep that passes an exact target does (``engine.game.keep_passes``, T-9)."""
    target = state.rules.game.target
    if state.rules.game.overshoot == "throw_on":
        return f"passes {target}: no bank any more, the turn ends with a farkle"
    return f"passes {target}: the turn is lost"


def strands_words(state: GameState) -> str:
    """What a keep that lands on an exact target it may not bank there does
    (``engine.game.keep_strands``: a full hand thrown again, T-5)."""
    target = state.rules.game.target
    return f"lands on {target} with dice to throw again: any score then passes it"


def keeps_in_order(state: GameState) -> tuple[ScoredKeep, ...]:
    """The keeps of the throw on the table as every front end lists them: as the scoring
    lists them (most points first), but a keep that lands on an exact target, to be banked
    for the win (``engine.game.keep_wins``, T-9), first of all."""
    keeps = throw_score(state).keeps
    return tuple(sorted(keeps, key=lambda k: not keep_wins(state, k)))


def keep_win_words(state: GameState, keep: ScoredKeep) -> str | None:
    """What a front end says beside a keep that lands on an exact target, to be banked for
    the win (``engine.game.keep_wins``); None for the others."""
    if keep_wins(state, keep):
        return f"lands on {state.rules.game.target}: bank it to win"
    return None


def keep_warning(state: GameState, keep: ScoredKeep) -> str | None:
    """What a front end says beside a keep that loses the turn under an exact target (T-9):
    it passes the target, or lands on it with dice to throw again; None for the others."""
    if keep_passes(state, keep):
        return passes_words(state)
    if keep_strands(state, keep):
        return strands_words(state)
    return None


def action_keep(state: GameState, action: Action) -> ScoredKeep | None:
    """The keep of the throw on the table that ``action`` makes (a ``Keep``); None for any
    other action."""
    if not isinstance(action, Keep) or not state.turn.throw:
        return None
    dice = sorted(action.dice)
    return next((k for k in throw_score(state).keeps if sorted(k.dice) == dice), None)


def action_warning(state: GameState, action: Action) -> str | None:
    """What a hint says beside an action that loses the turn under an exact target (T-9),
    as the keep list says it (``keep_warning``): its value alone, a chance to win that the
    opponents' scores may keep near 100%, would not tell it; None for the others."""
    keep = action_keep(state, action)
    return None if keep is None else keep_warning(state, keep)


def busts_words(state: GameState) -> str:
    """What taking over an offer certain to bust does (``engine.game.takeover_busts``)."""
    target = state.rules.game.target
    return f"taking it over is certain to pass {target}: the turn would be lost (T-9)"


def hand_words(state: GameState, *, aside: bool = True) -> list[str]:
    """Where the turn stands: its total, the dice set aside and the jokers (``aside``: unless
    they are shown elsewhere), the dice in the air or in hand, a figure waiting (V-1).

    The line mode and the table both word the turn with this. A throw to keep from has no
    dice in hand yet: its faces are on the table, which each front end shows its own way.
    A turn that starts with a take-back offer (G-8) has nothing to say yet: the offer says
    what each answer leaves (a total of 0 and every die was the fresh start alone).
    """
    t = state.turn
    if state.phase is Phase.START and state.offer is not None:
        return []
    words = [f"turn total {t.total}"]
    if aside and t.set_aside:
        words.append(f"set aside {format_dice(t.set_aside)}")
    if aside and t.jokers:
        words.append(f"jokers {format_dice(t.jokers)}")
    if state.phase is Phase.ROLL:
        words.append(f"{count_dice(t.rolling)} in the air")
    elif state.phase is Phase.DECIDE and t.full_hand:
        words.append(f"full hand: all {count_dice(state.rules.dice)} in hand")
    elif state.phase is Phase.DECIDE:
        words.append(f"{count_dice(state.in_hand)} in hand")
    elif state.phase is Phase.START:
        words.append(f"{count_dice(state.rules.dice)} in hand")
    if t.pending:
        words.append("a figure waits for a 1 or a 5 (V-1)")
    return words


RECORD_SIZE_LIMIT = 64 * 1024 * 1024
"""A file larger than this is not a game record (one holds a few kilobytes per game)."""


def check_record_path(path: str, option: str = "--record", *, new_game: bool = False) -> None:
    """Refuse a ``--record`` path that could not be written, before the game starts, and an
    existing file that is not a game record (it would be overwritten); for a ``new_game``,
    a record with moves too (another game's)."""
    check_writable(path, option)
    refuse_non_record(path, f"{option} {shown(path)}", NEW_GAME if new_game else None)


NEW_GAME = Record(rules="", players=())
"""``refuse_non_record``'s game for a game not begun: every record with moves is another's."""


def same_game(saved: Record, game: Record) -> bool:
    """Whether a saved record that no session of this game wrote or was read from is this
    game's all the same (``Session.own_files`` are, whatever they hold): a record with no
    move loses nothing; else only computer dice tell a game apart, by the commitment of
    their secret (random, one a game), with the same rules and players and one's moves the
    start of the other's. Two games of the same rules and players begin alike (``throw``,
    often the same faces typed): with typed or seeded dice another record is never this
    game's."""
    if not saved.actions:
        return True
    if (saved.rules, saved.players) != (game.rules, game.players):
        return False
    commitments = [
        next((seg.commitment for seg in record.dice if isinstance(seg, DiceCommitment)), None)
        for record in (saved, game)
    ]
    if commitments[0] is None or commitments[0] != commitments[1]:
        return False
    shorter = min(len(saved.actions), len(game.actions))
    return saved.actions[:shorter] == game.actions[:shorter]


def own_key(path: str) -> str:
    """How ``Session.own_files`` knows a file, however it is named (a link, ``./``)."""
    try:
        return os.path.realpath(path)
    except ValueError:  # a NUL byte: no file has this name (the write says so)
        return path


def free_record_path(base: str, game: Record, own: set[str] | frozenset[str] = frozenset()) -> str:
    """``base``, or ``base`` numbered (``zloutch-game-2.json``...), the first that is free or
    this game's own record (``own``: ``Session.own_files``): what a save dialog offers
    (nothing else's to overwrite)."""
    folder, name = os.path.split(base)
    stem, suffix = Path(name).stem, Path(name).suffix
    for n in range(1, 1000):
        path = base if n == 1 else os.path.join(folder, f"{stem}-{n}{suffix}")
        if own_key(path) in own:
            return path
        try:
            refuse_non_record(path, path, game)
        except SessionError:
            continue
        return path
    return base  # a thousand taken: the save says what is there


def refuse_non_record(path: str, where: str, game: Record | None = None) -> None:
    """Raise unless ``path`` is missing, empty, or a game record (something to overwrite);
    with ``game``, a record of this game only: another game's record is not to be lost
    (``zloutch-game.json`` saved twice held the second game alone)."""
    target = Path(path)
    try:
        info = target.stat()
    except (OSError, ValueError):
        return  # nothing there (or a name no file has): the write will say what is wrong
    if not stat.S_ISREG(info.st_mode):
        raise SessionError(
            f"{where}: that is not a regular file; give a file name, as in game.json"
        )
    if info.st_size == 0:
        return
    refusal = (
        f"{where}: the file exists and is not a game record; it would be overwritten: "
        "give another name"
    )
    if info.st_size > RECORD_SIZE_LIMIT:
        raise SessionError(refusal)
    try:
        saved, _ = read_record(target.read_text(encoding="utf-8"))
    except OSError:
        return
    except (UnicodeDecodeError, InvalidRecordError):
        raise SessionError(refusal) from None
    if game is not None and not same_game(saved, game):
        moves = len(saved.actions)
        raise SessionError(
            f"{where}: the file holds another game ({saved.rules}; {', '.join(saved.players)}; "
            f"{moves:,} move{'s' if moves != 1 else ''}), which would be lost: give another "
            f"name, or go on with that game: zloutch play --resume {shown(path)}"
        )


# ---------------------------------------------------------------------------- commands

META_WORDS = ("hint", "sheet", "rules", "help", "quit", "undo", "save")
"""Commands that are not moves of the game."""


@dataclass(frozen=True)
class Command:
    """A line typed by a person: game actions to apply in order, or a word of the program."""

    actions: tuple[Action, ...] = ()
    word: str = ""
    argument: str = ""


@dataclass(frozen=True)
class LogEntry:
    """A line of the game's log."""

    text: str
    kind: Literal["event", "refused", "note"] = "event"
    event: Event | None = None


# ---------------------------------------------------------------------------- the session


class Session:
    """One game at the terminal: its match (state, record, dice, refusals, undo), its log,
    its bots, and the file its record is kept in."""

    def __init__(self, record: Record, state: GameState, dice: DiceSource) -> None:
        self.match = Match(record, state, dice)
        self.bots: dict[int, Policy] = {}
        for seat, name in enumerate(record.players):
            bot = bot_of(name)
            if bot is not None:
                self.bots[seat] = bot
        self.log: list[LogEntry] = []
        self._noted: set[str] = set()
        self._solves = BackgroundSolves()
        self._hints = SharedAdvisors(size=2)
        """The hint's advisor: the cached solved game, or points (``solve_in_background``)."""
        self.record_path: str | None = None
        """Where the record is kept on disk after every action (``record_to``); None: nowhere."""
        self.record_error: str | None = None
        """Why the last write to ``record_path`` failed (None: it did not)."""
        self.own_files: set[str] = set()
        """The files (real paths) this game's record was read from or written to by this
        session: written again freely, whatever they hold now (``same_game`` judges others)."""
        self.saved_at: int | None = None
        """How many actions the record had when a file last held it (read or written; None:
        never): ``unsaved`` compares it with the actions now."""
        self.closed = False
        """The game stopped here (``close``): its dice secret is in the record, no more moves."""
        self._reveal_if_over()

    def solve_in_background(self) -> None:
        """Solve this game's two-player game in a process apart where no table is cached
        (the terminal app does, as a server does): a two-player game's hint asks for it on
        first use and turns to the chance to win once it is in the cache; an optimal bot
        asks for it (or its sheet-blind model, ``sheet_blind``) at once, at a table of two
        players or more (``solves_for``), says so while it waits and plays it from its next
        move. ``close`` stops a solve under way."""
        self._hints = SharedAdvisors(size=2, solves=self._solves)
        names = [bot.name for bot in self.bots.values()]
        if not plays_solved_game(names, len(self.state.sheets)):
            return
        from zloutch.strategy.optimal import OptimalBot  # NumPy: only for this bot

        for bot in self.bots.values():
            if isinstance(bot, OptimalBot):
                bot.solving = self._solves.running
        self._solves.start_for_optimal(self.state.rules)

    # -- making one

    @classmethod
    def new(
        cls,
        spec: str,
        players: str,
        *,
        table_mode: bool = False,
        dice: DiceSource | None = None,
    ) -> Session:
        """A new game; raises a ZloutchError on a bad spec, bad players or a bad dice file.

        A rule file's rule set is kept in the record as its canonical text (``kept_rules``),
        and the game played with the rule set read back from it: the record replays the same
        game wherever it is opened, whatever becomes of the file.
        """
        rules, rules_toml = kept_rules(load_rules(spec))
        names = parse_players(players)
        dice = dice or choose_dice(dice_file=None, seed=None, table_mode=table_mode)
        if isinstance(dice, ScriptedDice):
            dice.check(rules)
        state = new_game(rules, names, table_mode=table_mode)
        seed = dice.seed if isinstance(dice, SeededDice) else None
        record = Record(
            rules.spec,
            state.names,
            (),
            seed,
            table_mode,
            dice=(dice.segment(0),),
            rules_toml=rules_toml,
        )
        session = cls(record, state, dice)
        session._write(TurnStarted(0))
        return session

    @classmethod
    def resume(
        cls, text: str, *, dice: DiceSource | None = None, source: str | None = None
    ) -> Session:
        """A saved game, replayed through the engine, that goes on from its next throw.

        Its dice: ``dice`` when given (``--dice``, ``--seed``); real dice at a table; the
        record's seed when it was asked for (``--seed``, record version 4); else computer
        dice from a new secret, nobody can know them. A change of dice starts a new segment
        of the record's dice at the next throw. A record of a rule file that does not keep
        its text (version 3 and before) keeps it from now on. ``source``: the file the text
        was read from (the game's own, ``own_files``).
        """
        record, state = load_record(text)
        if record.rules_toml is None:
            _, rules_toml = kept_rules(state.rules)
            if rules_toml is not None:
                record = replace(record, rules_toml=rules_toml)
                state = record.replay()
        throws = count_throws(record.actions)
        if dice is None:
            dice = _dice_going_on(record, throws)
        if isinstance(dice, ScriptedDice):
            dice.check(state.rules)
        if isinstance(dice, CommittedDice):
            dice.first_throw = throws
        if state.phase is not Phase.OVER:  # an ended game throws no more: its dice stay
            record = replace(record, dice=_segments_from(record, dice.segment(throws), throws))
        session = cls(record, state, dice)
        if source is not None:
            session.adopt_file(source)
        for event in last_round(record.events(), len(state.sheets)):
            session._write(event)  # where everyone stands: each player's last turn
        session.log.append(
            LogEntry(f"game resumed after {len(record.actions)} actions", kind="note")
        )
        if state.phase is not Phase.OVER:
            session._write(TurnStarted(state.turn.player))
        return session

    # -- the match

    @property
    def state(self) -> GameState:
        return self.match.state

    @property
    def record(self) -> Record:
        return self.match.record

    @property
    def dice(self) -> DiceSource:
        return self.match.dice

    @property
    def previous(self) -> GameState:
        """The state before the last action (to highlight what it changed)."""
        return self.match.previous

    @property
    def last_events(self) -> tuple[Event, ...]:
        return self.match.last_events

    # -- questions

    @property
    def names(self) -> tuple[str, ...]:
        return self.state.names

    @property
    def seed(self) -> int | str:
        """What the bots' random choices are drawn from: the dice's secret with computer
        dice (nobody can foresee them either), else the record's seed (0 without one)."""
        if isinstance(self.dice, CommittedDice):
            return self.dice.secret
        return self.record.seed if self.record.seed is not None else 0

    def is_bot(self, seat: int) -> bool:
        return seat in self.bots

    def bots_stalled(self) -> bool:
        """Only bots at the table, and ``BOTS_ALONE_TURNS`` turns played: a bot that never
        banks (``bot:threshold:100000``) never ends a game, and no person is there to stop
        it. Line mode stops such a game, saved, as the simulator stops one at its own cap of
        turns (the full-screen app is stopped by its keys)."""
        return len(self.bots) == len(self.names) and self.state.turns >= BOTS_ALONE_TURNS

    def need(self) -> Need:
        return self.match.need()

    def refusal(self, action: Action, state: GameState | None = None) -> str | None:
        """Why an action cannot be played now, or in ``state`` (None: it can): the match's
        word (``Match.refusal``)."""
        return self.match.refusal(action, state)

    @property
    def rolling(self) -> int:
        return self.state.turn.rolling

    def moves(self) -> tuple[Action, ...]:
        """The legal actions of the player to move (no chance rolls: ``Match.legal``)."""
        return self.match.legal()

    def advice(self) -> Advice | None:
        """Each legal action with its value for the player to move, best first (the hint)."""
        if self.need() not in (Need.PERSON, Need.BOT):
            return None
        return self._hints.advice(self.state)

    def solving(self) -> bool:
        """Whether this game's table is being solved in the background (the hint says so)."""
        return self._solves.running(self.state.rules)

    # -- reading what people type

    def read(self, text: str) -> Command:
        """A typed line: an action, faces, or a word of the program; raises with a hint.

        Faces alone mean the obvious thing: the keep when a throw is on the table, the throw
        of real dice when they are in the air (or may be thrown now, at a table).
        """
        words = text.split()
        if not words:
            raise InvalidActionError("type a command (help lists them)")
        head = words[0].lower()
        if head in META_WORDS:
            argument = text.strip()[len(words[0]) :].strip()
            if argument and head != "save":
                raise InvalidActionError(f"'{head}' takes nothing after it")
            return Command(word=head, argument=argument)
        if self.match.over:  # the end of the game answers first, as the engine and the server
            raise IllegalActionError(GAME_OVER)
        dice = self.state.rules.dice
        if all(word.isdigit() for word in words):
            return Command(self._faces(parse_dice(words, max_dice=dice)))
        return Command((parse_action(text, max_dice=dice),))

    def _faces(self, dice: Dice) -> tuple[Action, ...]:
        phase = self.state.phase
        if phase is Phase.KEEP:
            return (Keep(dice),)
        if self.dice.typed:
            if phase is Phase.ROLL:
                return (Roll(dice),)
            if Throw() in self.moves():
                return (Throw(), Roll(dice))
        if phase is Phase.ROLL:
            raise InvalidActionError("the game throws the dice here: no faces to type")
        raise InvalidActionError(
            f"faces alone mean a keep, and there is no throw to keep from: try {self._example()}"
        )

    def _example(self) -> str:
        moves = self.moves()
        return " or ".join(str(a) for a in moves[:2]) if moves else "help"

    # -- changes

    def act(self, action: Action) -> tuple[Event, ...]:
        """Play an action for whoever is to move; a refusal is logged and raised."""
        return self.play(Command((action,)))

    def play(self, command: Command) -> tuple[Event, ...]:
        """The actions of a typed command, in order (a throw and its faces at a table).

        All or nothing: every action is checked first, each in the state the ones before it
        lead to, so faces of the wrong size refuse the throw they came with too.
        """
        self._check(command.actions)
        before = self.state
        events: list[Event] = []
        for action in command.actions:
            events += self._apply(action, checked=True)
        self.match.previous = before
        self.match.last_events = tuple(events)
        return self.last_events

    def _check(self, actions: tuple[Action, ...]) -> None:
        """Raise (and log) the first refusal among actions played in turn from now."""
        self._open()
        refused = self.match.first_refusal(actions)
        if refused is None:
            return
        state, action, reason = refused
        who = self.names[state.turn.player]
        text = f"{who} {attempt_words(state, action)}? No: {short_reason(reason)}"
        self.log.append(LogEntry(text, kind="refused"))
        raise IllegalActionError(reason)

    def roll(self) -> tuple[Event, ...]:
        """Throw the dice in the air from the secret, the seed or the file."""
        self._open()
        return self._apply(self.match.draw(), checked=True)

    def bot_action(self) -> Action:
        """What the bot to move chooses (its random choices depend on the seed and the move)."""
        bot = self.bots[current_player(self.state)]
        rng = random.Random(f"zloutch-bot:{self.seed}:{len(self.record.actions)}")
        action = bot.choose(self.state, rng)
        note = getattr(bot, "note", "")
        if note and note not in self._noted:  # e.g. the optimal bot without a solved game
            self._noted.add(note)
            self.log.append(LogEntry(f"{bot.name}: {note}", kind="note"))
        return action

    def bot_step(self) -> tuple[Event, ...]:
        return self._apply(self.bot_action())

    def undo(self) -> tuple[str, ...]:
        """Take back the last entry at a real table (``Match.undo``): moves of bots and of
        dice that the session drew go with it, back to the last thing a person typed.
        Returns the actions taken back, last first."""
        try:
            removed = self.match.undo()
        except NothingToUndoError as exc:
            raise SessionError(str(exc)) from None
        record = self.match.record
        self.match.record = replace(record, dice=_trimmed(record.dice, record.actions))
        self.log.append(LogEntry("undone: " + ", then ".join(undone_words(removed)), kind="note"))
        self._keep_record()
        return removed

    def adopt_file(self, path: str) -> None:
        """The file this game was read from: its own to write back to, and saved as read."""
        self.own_files.add(own_key(path))
        self.saved_at = len(self.record.actions)

    def unsaved(self) -> bool:
        """Whether stopping now would lose moves: some were played since a file last held
        the record (``--record`` writes it after every move; a write that failed leaves it
        unsaved). What the line mode's quit and end, and the terminal app's quit, ask about."""
        return bool(self.record.actions) and self.saved_at != len(self.record.actions)

    def check_file(self, path: str, where: str) -> None:
        """Refuse to write this game's record to ``path`` where that would lose something:
        a file that is no record, or another game's (``refuse_non_record``); this game's
        own files (``own_files``) are written over freely."""
        if own_key(path) not in self.own_files:
            refuse_non_record(path, where, self.record)

    def save(self, path: str, *, closing: bool = False) -> None:
        """Write the game record (JSON) to a file, whole or not at all (the file that was
        there stays as it was when the write fails). A file that exists and is not a game
        record is refused: it is not this game's to overwrite. ``closing``: the last write
        before the program stops playing the game, with the dice secret; once it is
        written the session is closed (``close``)."""
        text = dump_record(self._revealed() if closing else self.record, self.state)
        self.check_file(path, f"cannot write {shown(path)}")
        try:
            write_atomically(path, text)
        except ZloutchError as exc:
            raise SessionError(str(exc)) from None
        self.own_files.add(own_key(path))
        self.saved_at = len(self.record.actions)
        if closing:
            self.close()

    def record_to(self, path: str | None) -> None:
        """Keep the record on disk at ``path`` from now on: written now and after every
        action (None: stop). A kill then loses at most the action in flight."""
        self.record_path = path
        self.record_error = None
        self._keep_record()

    def _keep_record(self) -> None:
        """Write the record to ``record_path``; a failure is noted once in the log, and the
        game goes on (the next action tries again, the end of the game says it)."""
        if self.record_path is None:
            return
        try:
            self.save(self.record_path)
        except ZloutchError as exc:
            if self.record_error != str(exc):
                self.note(f"the record is not written: {exc}")
            self.record_error = str(exc)
        else:
            self.record_error = None

    def close(self) -> None:
        """The program stops playing this game (quit, Ctrl-C, a signal, an error): with
        computer dice the record from now on carries the secret of the throws thrown here
        (the caller writes it). Nothing more can be played in this session: a resume throws
        from a new secret, so the secret written here tells no throw to come."""
        self.closed = True
        self._solves.close(kill=True)
        self._reveal()

    def _reveal_if_over(self) -> None:
        if self.state.phase is Phase.OVER:
            self._reveal()

    def _reveal(self) -> None:
        self.match.record = self._revealed()

    def _revealed(self) -> Record:
        """The record with the dice secret in its last segment (once the game is over or
        stopped here): it covers only throws already thrown."""
        segments = self.record.dice
        if not isinstance(self.dice, CommittedDice) or not segments:
            return self.record
        last = segments[-1]
        if not isinstance(last, DiceCommitment) or last.commitment != self.dice.commitment:
            return self.record
        shown = replace(last, secret=self.dice.secret)
        return replace(self.record, dice=(*segments[:-1], shown))

    def note(self, text: str) -> None:
        self.log.append(LogEntry(text, kind="note"))

    def _open(self) -> None:
        if self.closed:
            raise SessionError("this game was stopped here: resume it to go on")

    def _apply(self, action: Action, *, checked: bool = False) -> tuple[Event, ...]:
        """Play an action; ``checked``: the match's refusal passed it (or the match drew it),
        the engine need not check it again."""
        self._open()
        match = self.match
        events = match.apply_legal(action) if checked else match.replay(action)
        self._reveal_if_over()
        for event in events:
            self._write(event)
        self._keep_record()
        return events

    def _write(self, event: Event) -> None:
        self.log.append(LogEntry(event.describe(self.names), event=event))


def last_round(events: tuple[Event, ...], players: int) -> tuple[Event, ...]:
    """The events of each player's last turn: from the start of the ``players``-th turn
    from the end (the first turn starts with the game, before any event)."""
    if events and isinstance(events[-1], TurnStarted):
        events = events[:-1]  # the turn to come: said after the resumption
    starts = [i for i, event in enumerate(events) if isinstance(event, TurnStarted)]
    if len(starts) < players:
        return events
    return events[starts[-players] :]


# ---------------------------------------------------------------------------- dice segments


def _dice_going_on(record: Record, throws: int) -> DiceSource:
    """The dice a resumed game throws when none are given (see ``Session.resume``)."""
    if record.table_mode:
        return TypedDice()
    last = record.dice[-1] if record.dice else None
    if isinstance(last, UncommittedDice) and last.scheme == SEED_SCHEME and last.seed is not None:
        return SeededDice(last.seed)  # asked for with --seed: reproducible, as it says
    return CommittedDice.fresh(throws)


def _segments_from(record: Record, segment: DiceSegment, throws: int) -> tuple[DiceSegment, ...]:
    """The record's dice segments, going on with ``segment`` from throw ``throws``: the same
    uncommitted dice go on in their segment; a segment with no throw yet is replaced."""
    segments = record.dice
    if not segments and throws:
        segments = (implied_dice(record),)
    if (
        segments
        and isinstance(segment, UncommittedDice)
        and segments[-1] == replace(segment, first_throw=segments[-1].first_throw)
    ):
        return segments
    if segments and segments[-1].first_throw >= throws:
        segments = segments[:-1]
    return (*segments, segment)


def _trimmed(
    segments: tuple[DiceSegment, ...], actions: tuple[str, ...]
) -> tuple[DiceSegment, ...]:
    """The segments after an undo: the dice in use now draw from the next throw on."""
    throws = count_throws(actions)
    if not segments or segments[-1].first_throw <= throws:
        return segments
    last = replace(segments[-1], first_throw=throws)
    return (*(s for s in segments[:-1] if s.first_throw < throws), last)
