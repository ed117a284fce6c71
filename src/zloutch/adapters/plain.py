"""``zloutch play --plain`` and ``zloutch table --plain``: the game as lines of text.

For screen readers, pipes and scripts. After every event the game says what happened and,
when a person is to move, where the turn stands and what they can do; then it reads one
command per line in the engine's notation (``keep 1 1 5``, ``throw``, ``bank``, ``take``,
``fresh``, ``joker 5 5``, ``off``) or a word of the program (``hint``, ``sheet``, ``help``,
``undo``, ``save``, ``quit``). A command it cannot play is answered with the reason, and it
asks again. All the game logic is the ``Session``'s; this module only words it.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import signal
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TextIO

from zloutch.app.dice import DiceExhaustedError, DiceFileError, count_dice
from zloutch.app.hints import SOLVING_NOTE, hint_digits, hint_heading, shown_value
from zloutch.app.match import Need
from zloutch.app.session import (
    META_WORDS,
    LogEntry,
    Session,
    action_warning,
    busts_words,
    hand_words,
    instant_win_words,
    keep_warning,
    keep_win_words,
    keeps_in_order,
    others_words,
    short_reason,
    standing_words,
    ticks_words,
)
from zloutch.console.render import (
    combination_rows,
    format_target,
    format_value,
    ranking_rows,
    summary_text,
)
from zloutch.engine import (
    Action,
    Bank,
    GameState,
    Keep,
    Level,
    Phase,
    bank_refusal,
    throw_score,
)
from zloutch.engine.actions import WORDS as ACTION_WORDS
from zloutch.engine.events import Thrown, Won
from zloutch.engine.game import takeover_busts
from zloutch.rules import OPTIONS, ZloutchError, format_dice
from zloutch.rules.ruleset import SEAT_OPTIONS

EXIT_OK = 0
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
"""Ctrl-C: 128 + SIGINT, as shells report it (143 for SIGTERM, 129 for SIGHUP)."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

COMMANDS = (
    ("keep DICE", "k", "keep these dice of the throw; the faces alone, as in 1 1 5, keep too"),
    ("throw", "t", "throw the dice in hand"),
    ("bank", "b", "bank the turn total"),
    ("take", "x", "take over the last turn's points and dice (G-8)"),
    ("fresh", "f", "start a fresh turn instead"),
    ("joker DICE", "j", "set these dice aside as jokers (V-2)"),
    ("off", "o", "a die fell off the table: the turn is lost (at a real table)"),
    ("undo", "u", "take back the last entry (at a real table)"),
    ("hint", "h", "each legal move with its value, the best first"),
    ("sheet", "p", "the whole sheet"),
    ("save [FILE]", "s", "write the game record (FILE may be left out after --record)"),
    ("rules", "", "the rules of this game, each with its id (T-7, G-3...)"),
    ("help", "?", "this list"),
    ("quit", "q", "end the game (the record is written with --record)"),
)
"""The commands of the line mode: the full word, its key in the full-screen app, what it does."""

ALIASES: dict[str, str] = {key: words.split()[0] for words, key, _ in COMMANDS if key}
"""The keys of the full-screen app, accepted as the first word of a line (``t``, ``k 1 5``)."""

COMMAND_LIST = ", ".join(f"{words} ({key})" if key else words for words, key, _ in COMMANDS)
"""Every command with its one-key alias, for the answer to a line that is not one."""

HELP_LINES = (
    "Commands (most have a one-key alias, as in the full-screen app):",
    *(f"  {words:<12} {key or ' '}  {what}" for words, key, what in COMMANDS),
)


KNOWN_WORDS = frozenset((*ACTION_WORDS, *META_WORDS))
"""The first words a line can start with (``roll`` too: the engine's notation of a throw)."""


def expand_alias(line: str) -> str:
    """A line whose first word is a key of the full-screen app, written with the full word."""
    words = line.split(maxsplit=1)
    if words and words[0].lower() in ALIASES:
        return " ".join([ALIASES[words[0].lower()], *words[1:]])
    return line


# ---------------------------------------------------------------------------- words


def level_words(level: Level) -> str:
    words = str(level.value)
    if level.pp:
        words += " pp"
    if level.ticks:
        words += f" with {level.ticks} tick" + ("s" if level.ticks > 1 else "")
    if level.crossed:
        words += " crossed"
    return words


def sheet_lines(state: GameState) -> list[str]:
    """The sheet in words: a line per player, levels from first to last."""
    lines = [f"Sheet, {state.rules.spec}:"]
    for seat, sheet in enumerate(state.sheets):
        standing = f"score {sheet.score}"
        ticks = ticks_words(state, seat)
        if ticks:
            standing += f", {ticks}"
        if sheet.levels:
            levels = "levels " + ", ".join(level_words(lv) for lv in sheet.levels)
        else:
            levels = "no level yet"
        lines.append(f"  {sheet.name}: {standing}; {levels}.")
    return lines


def move_words(state: GameState, action: Action) -> str:
    if isinstance(action, Keep) and state.phase is Phase.KEEP:
        keep = {k.dice: k for k in throw_score(state).keeps}[action.dice]
        warning = keep_warning(state, keep) or keep_win_words(state, keep)
        return f"{action} ({keep.points}, {warning})" if warning else f"{action} ({keep.points})"
    return str(action)


def situation_lines(session: Session) -> list[str]:
    """Where the turn stands and what the person to move can do."""
    state = session.state
    turn = state.turn
    seat = turn.player
    name = session.names[seat]
    if session.need() is Need.TYPED_DICE:
        example = format_dice(range(1, turn.rolling + 1))
        return [f"{name} throws {count_dice(turn.rolling)}: type the faces, as in {example}."]
    moves = session.moves()
    if state.phase is Phase.KEEP:  # best keep first, as the scoring lists them (a win first)
        order = {k.dice: i for i, k in enumerate(keeps_in_order(state))}
        moves = tuple(sorted(moves, key=lambda a: order.get(getattr(a, "dice", ()), len(order))))
    can = ", ".join(move_words(state, a) for a in moves)
    if state.phase is Phase.START:
        lines = [f"{name}'s turn: {', '.join(standing_words(state, seat))}."]
        offer, by = state.offer, state.offered_by
        if offer is not None and by is not None:
            banker = session.names[by]
            lines.append(
                f"{banker} banked {offer.total} with {count_dice(offer.dice)} left: "
                "take continues that turn (G-8), fresh starts a new one."
            )
            if takeover_busts(state):
                lines.append(_capital(busts_words(state)) + ".")
        others = others_words(state, seat)
        if others:
            lines.append(_capital(others) + ".")
        lines.append(f"You can: {can}.")
        return lines
    hand = ", ".join(hand_words(state))
    if state.phase is Phase.KEEP:
        lines = [_capital(hand) + "."]
        if not just_thrown(session):  # after --resume or undo: say what is on the table
            lines.insert(0, f"On the table: {format_dice(turn.throw)}.")
        return [*lines, f"Keep one of: {can}."]
    lines = [_capital(hand) + "."]
    refused = bank_refusal(state) if Bank() not in moves else None
    lines.append(f"You can: {can}." + (f" Bank: no, {short_reason(refused)}." if refused else ""))
    return lines


def just_thrown(session: Session) -> bool:
    """Whether the last thing the game said is the throw that is on the table now."""
    thrown = [event.dice for event in session.last_events if isinstance(event, Thrown)]
    return bool(thrown) and sorted(thrown[-1]) == sorted(session.state.turn.throw)


def hint_lines(session: Session) -> list[str]:
    advice = session.advice()
    if advice is None:
        if session.need() is Need.TYPED_DICE:
            return ["No hint while the dice are in the air: type their faces first."]
        return ["No hint now: nobody has a choice to make."]
    name = session.names[session.state.turn.player]
    lines = [hint_heading(advice, name)]
    digits = hint_digits(advice)
    for i, (action, value) in enumerate(advice.values):
        best = " (best)" if i == 0 else ""
        warning = action_warning(session.state, action)
        said = f" ({warning})" if warning else ""
        lines.append(f"  {action}: {shown_value(advice, value, digits)}{best}{said}")
    if advice.note:
        lines.append(f"({advice.note})")
    if session.solving():
        lines.append(f"({SOLVING_NOTE})")
    return lines


def ending_lines(session: Session) -> list[str]:
    state = session.state
    winners = [state.sheets[w].name for w in state.winners]
    why = instant_win_words(state)
    won = f"Game over: {' and '.join(winners)} won" + (f": {why}" if why else "") + "."
    lines = [won if winners else "Game over."]
    lines.append("Ranking and kicks (G-9):")
    for rank, name, score, given, taken, _ in ranking_rows(state):
        kicks = f"gives {given} kick{'s' if given != 1 else ''}, takes {taken}"
        lines.append(f"  {rank}. {name}: {score}, {kicks}")
    return lines


def rules_lines(state: GameState) -> list[str]:
    """The rules of the game in sentences, a line each (what ``zloutch rules show`` draws
    in tables: read aloud, its box drawing was noise and its meanings cut mid-line)."""
    rules = state.rules
    values = rules.option_values()
    lines = [
        f"{summary_text(rules).plain}.",
        f"Dice: {rules.dice}. Target: {format_target(rules)} (G-2). Spec: {rules.spec}.",
        "Combinations:",
    ]
    for name, dice, points, note in combination_rows(rules):
        what = name if not dice or dice in name else f"{name} ({dice})"
        lines.append(f"  {what}: {points}{'; ' + note if note else ''}.")
    by_count: dict[int, list[str]] = {}
    for (count, face), value in sorted(rules.kinds_values().items()):
        shown = "wins at once (G-5)" if value == "win" else str(value)
        by_count.setdefault(count, []).append(f"{face}s {shown}")
    for count, faces in by_count.items():
        lines.append(f"  {count} of a kind: {', '.join(faces)}.")
    lines.append("Rules in play:")
    acting = rules.acting_options()
    for name in acting:
        info = OPTIONS[name]
        lines.append(f"  {info.rule} {name} = {format_value(values[name])}: {info.meaning}")
    # what is off, apart from what cannot act here (an option of another that is off) and
    # who sits: the pair's value of a full house is not "switched off" where there is none
    inert = rules.dormant_options()
    off = [n for n in OPTIONS if n not in acting and n not in inert and n not in SEAT_OPTIONS]
    lines.append(f"Switched off: {', '.join(off)}." if off else "Nothing switched off.")
    idle = [n for n in OPTIONS if n in inert and n not in acting]
    if idle:
        lines.append(f"Acting only with another, off here: {', '.join(idle)}.")
    lines.append(f"Players: {rules.game.min_players} to {rules.game.max_players} (G-1).")
    return lines


def entry_line(entry: LogEntry) -> str:
    return entry.text


# ---------------------------------------------------------------------------- signals


class Stopped(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP: the game stops as Ctrl-C stops it, with 128 + the signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.code = 128 + signum


def exit_code(stop: KeyboardInterrupt) -> int:
    return stop.code if isinstance(stop, Stopped) else EXIT_INTERRUPTED


class StopSignals:
    """Ctrl-C, SIGTERM and SIGHUP stop the game between two actions, never inside one.

    While the game waits (for a line, or out a bot's pace) a signal stops it at once; while
    it works (an action applied, the record written) the signal waits for the work to end,
    so that the record saved on the way out is never half of an action.
    """

    def __init__(self) -> None:
        self.waiting = False
        self.pending: Stopped | None = None

    def handle(self, signum: int, frame: FrameType | None) -> None:
        stop = Stopped(signum)
        if self.waiting:
            self.waiting = False
            raise stop
        self.pending = self.pending or stop

    def check(self) -> None:
        """Stop now if a signal came while the game was working."""
        stop, self.pending = self.pending, None
        if stop is not None:
            raise stop

    @contextlib.contextmanager
    def wait(self) -> Iterator[None]:
        """A blocking wait (reading a line, a bot's pace) that a signal interrupts."""
        self.waiting = True
        try:
            self.check()
            yield
        finally:
            self.waiting = False

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """The handlers in place (in the main thread only: elsewhere Python allows none)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        before = {signum: signal.signal(signum, self.handle) for signum in STOP_SIGNALS}
        try:
            yield
        finally:
            for signum, handler in before.items():
                signal.signal(signum, handler)


# ---------------------------------------------------------------------------- the loop


class PlainGame:
    """The read-print loop around a session."""

    def __init__(
        self,
        session: Session,
        stdin: TextIO,
        stdout: TextIO,
        *,
        stderr: TextIO | None = None,
        pace: float = 0.0,
        record_path: str | None = None,
        echo: bool = False,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.session = session
        if isinstance(stdin, io.TextIOWrapper):
            # Bytes that are no text in the input's encoding (0xff under strict UTF-8) are
            # read as U+FFFD, a line the game refuses in words, not a traceback.
            stdin.reconfigure(errors="replace")
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr or stdout
        self.pace = pace
        self.record_path = record_path
        self.echo = echo
        self.sleep = sleep
        self._shown = 0
        self._described: GameState | None = None
        self._ended: GameState | None = None  # the end last said (said once, asked again)
        self._prompted = False
        """A prompt waits on the line (Ctrl-C there starts a new line first)."""
        self.signals = StopSignals()

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def error(self, text: str) -> None:
        self.stdout.flush()
        self.stderr.write(f"error: {text}\n")
        self.stderr.flush()

    def run(self) -> int:
        """Play until the game ends, the input ends, ``quit``, or the dice run out.

        With ``record_path`` the record is on disk from the start and after every action.
        Ctrl-C, SIGTERM and SIGHUP end the game as ``quit`` does (the record is written),
        with exit code 130, 143 and 129. Any error writes the record before it is shown: a
        mistake of the user's as one ``error:`` line (exit code 2), a bug with its traceback.
        """
        with self.signals.installed():
            try:
                self.session.record_to(self.record_path)
                return self.loop()
            except KeyboardInterrupt as stop:
                return self.stopped(exit_code(stop))
            except ZloutchError as exc:
                failure = self.save_record()
                self.error(str(exc))
                return self.finished(EXIT_ERROR, failure)
            except Exception:
                self.save_record()  # first: the traceback comes after
                raise

    def stopped(self, code: int) -> int:
        """The way out on Ctrl-C or a signal: the record first, then the words."""
        failure = self.save_record()
        with contextlib.suppress(OSError):  # a terminal hung up takes no more lines
            if self._prompted:
                self.say("")
            self._prompted = False
            self.say("Interrupted.")
            return self.finished(code, failure)
        return code if failure is None else EXIT_ERROR

    def save_record(self) -> str | None:
        """The game stops here (every way out calls this): the session is closed, which
        reveals its dice secret, and the record written to ``record_path`` (when given);
        why it failed, or None."""
        self.session.close()
        if self.record_path is None:
            return None
        try:
            self.session.save(self.record_path)
        except ZloutchError as exc:
            return str(exc)
        return None

    def loop(self) -> int:
        s = self.session
        mode = "a real table" if s.state.table_mode else "a game"
        rules = s.state.rules
        # a rule file's spec is its path: its name first, the file after
        what = rules.spec if rules.spec.startswith(rules.name) else f"{rules.name} ({rules.spec})"
        self.say(f"Zloutch: {mode} of {what}, {', '.join(s.names)}.")
        self.say(f"The target: {format_target(rules)} (G-2). Type help for the commands.")
        while True:
            self.signals.check()
            self.show_log()
            need = s.need()
            if need is Need.OVER:
                # The end: at a real table an undo (a winning throw typed wrong), and a game
                # kept nowhere a save (else it is gone, and zloutch review cannot grade it).
                can_undo = s.match.undo_refusal() is None
                unsaved = s.unsaved()
                offers = [w for w, on in (("undo", can_undo), ("save FILE", unsaved)) if on]
                if self._ended is not s.state:
                    self._ended = s.state
                    for line in ending_lines(s):
                        self.say(line)
                    if can_undo:
                        self.say("A throw typed wrong? undo takes back the last entry.")
                    if unsaved:
                        self.say(
                            "The game is not saved: save FILE keeps it "
                            "(zloutch review FILE grades every decision)."
                        )
                if not offers:
                    return self.finish(EXIT_OK)
                typed = self.ask(s, f"{' or '.join(offers)}, or Enter to end> ")
                if typed is None or not typed.strip():
                    return self.finish(EXIT_OK)
                done = self.handle(typed)
                if done is not None:
                    return done
                continue
            if need is Need.DICE:
                try:
                    s.roll()
                except DiceExhaustedError as exc:
                    self.say(f"{_capital(str(exc))}.")
                    return self.finish(EXIT_OK)
                except DiceFileError as exc:
                    self.error(str(exc))
                    return self.finish(EXIT_ERROR)
                continue
            if need is Need.BOT:
                if s.bots_stalled():
                    self.say(
                        f"The bots played {s.state.turns:,} turns and none of them wins: "
                        "the game stops here."
                    )
                    return self.finish(EXIT_OK)
                if self.pace:
                    with self.signals.wait():
                        self.sleep(self.pace)
                s.bot_step()
                continue
            if self._described is not s.state:
                self._described = s.state
                for text in situation_lines(s):
                    self.say(text)
            typed = self.ask(s)
            if typed is None:
                self.say_unsaved()
                self.say("End of input.")
                return self.finish(EXIT_OK)
            done = self.handle(typed)
            if done is not None:
                return done

    def ask(self, s: Session, prompt: str = "") -> str | None:
        name = s.names[s.state.turn.player]
        if not prompt:
            prompt = f"{name} faces> " if s.need() is Need.TYPED_DICE else f"{name}> "
        self.stdout.write(prompt)
        self.stdout.flush()
        self._prompted = True
        with self.signals.wait():
            line = self.stdin.readline()
        self._prompted = False
        if not line:
            if self.echo:
                self.say("")
            return None
        line = line.rstrip("\r\n")
        if self.echo:
            self.say(line)
        return line

    def handle(self, line: str) -> int | None:
        """Play one typed line; a return value ends the game with that exit code."""
        s = self.session
        if not line.strip():  # a blank line asks again, as a shell does
            return None
        head = line.split()[0].lower()
        if head not in KNOWN_WORDS and head not in ALIASES and not head.isdigit():
            close = difflib.get_close_matches(head, sorted(KNOWN_WORDS), n=1)
            guess = f" (did you mean {close[0]}?)" if close else ""
            self.say(
                f"Sorry, {line.strip()!r} is not a command{guess}. The commands: {COMMAND_LIST}."
            )
            return None
        try:
            command = s.read(expand_alias(line))
        except ZloutchError as exc:
            if s.match.over:
                self.say(f"Sorry: {exc}; Enter ends.")
                return None
            self.say(f"Sorry, {line.strip()!r} is not a command I can read: {exc}.")
            self.say("Type help for the commands.")
            return None
        if command.word == "quit":
            self.say_unsaved()
            self.say("Bye.")
            return self.finish(EXIT_OK)
        logged = len(s.log)
        try:
            if command.word == "help":
                for text in HELP_LINES:
                    self.say(text)
            elif command.word == "sheet":
                for text in sheet_lines(s.state):
                    self.say(text)
            elif command.word == "rules":
                for text in rules_lines(s.state):
                    self.say(text)
            elif command.word == "hint":
                for text in hint_lines(s):
                    self.say(text)
            elif command.word == "undo":
                s.undo()
                self._described = None
            elif command.word == "save":
                target = command.argument or self.record_path
                if not target:
                    self.say(
                        "Save needs a file name (this game has no --record), as in: save game.json"
                    )
                else:
                    s.save(target)
                    self.say(f"Record written to {target}.")
            else:
                s.play(command)
        except ZloutchError as exc:
            if len(s.log) == logged:  # a refused move is in the log already, with its reason
                self.say(f"Sorry: {exc}.")
        if command.word in ("sheet", "rules", "hint"):
            self._described = None  # what to do now, said again under what was shown
        return None

    def say_unsaved(self) -> None:
        """What quitting loses, said where moves were played since a file last held the
        record (``Session.unsaved``)."""
        if self.session.unsaved():
            self.say("The game is not saved (save FILE keeps it; --record FILE keeps every move).")

    def show_log(self) -> None:
        log = self.session.log
        for entry in log[self._shown :]:
            if isinstance(entry.event, Won):
                continue  # the ending says who won, with why and the ranking
            self.say(entry_line(entry))
        self._shown = len(log)

    def finish(self, code: int) -> int:
        """The end of the game: the record written to ``record_path``, then said."""
        return self.finished(code, self.save_record())

    def finished(self, code: int, failure: str | None) -> int:
        self.show_log()
        if failure is not None:
            self.error(failure)
            return EXIT_ERROR
        if self.record_path is not None:
            self.say(f"Record written to {self.record_path}.")
        return code


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
