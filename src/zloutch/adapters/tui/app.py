"""``zloutch play`` and ``zloutch table``: the full-screen application."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from dataclasses import dataclass
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel

from zloutch.adapters.tui.newgame import NewGameScreen
from zloutch.adapters.tui.screens import EndScreen, QuitScreen, SaveScreen
from zloutch.adapters.tui.table import GameScreen
from zloutch.app.dice import DiceSource
from zloutch.app.session import DEFAULT_PACE, Session, free_record_path
from zloutch.rules import ZloutchError

DEFAULT_RECORD = "zloutch-game.json"
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Signals that save the game and end the app with 128 + the signal (143, 129)."""


@dataclass
class AppConfig:
    """What the command line asked for."""

    session: Session | None = None
    """A game to play at once (``--rules``/``--players`` or ``--resume``); None: ask."""
    table_mode: bool = False
    pace: float = DEFAULT_PACE
    record_path: str | None = None
    """``--record``: where the record is written at the end, on quit, and by default on save.

    The app never changes it: a game saved elsewhere writes there (``ZloutchApp.record_path``)
    until a new game starts, which goes back to this one.
    """
    dice: DiceSource | None = None
    """The dice of ``--dice`` or ``--seed`` for the game the new-game screen starts."""
    resume_path: str | None = None
    """``--resume``: the file the save dialog offers first."""
    background_solves: bool = False
    """Solve a two-player game with no cached table in a process apart (a person at a
    terminal, ``Session.solve_in_background``); off in tests, which want the same hint."""


class ZloutchApp(App[int]):
    """The game at the terminal: a new-game screen, the table, and the end of the game."""

    TITLE = "Zloutch"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit_game", "Quit", show=False, priority=True),
        Binding("ctrl+c", "quit_game", "Quit", show=False, priority=True),
    ]

    def __init__(self, config: AppConfig) -> None:
        super().__init__()
        self.config = config
        self.session: Session | None = config.session
        self.record_path = config.record_path
        """Where this game's record goes: ``--record``, the file it was resumed from, or the
        file it was last saved to. The session writes it there after every move."""
        if config.session is not None and self.record_path is None:
            self.record_path = config.resume_path  # a resumed game saves back where it was
        if config.session is not None and config.resume_path is not None:
            config.session.adopt_file(config.resume_path)  # its own file, as it stands
        self.resume_path = config.resume_path
        """The file this game was resumed from (the save dialog offers it first)."""
        self.exit_code = 0
        """What ``zloutch play`` exits with: 2 once a dice file stopped matching the game."""
        self.written: dict[str, None] = {}
        """The files a game's record was written to, in order (``zloutch play`` names them
        when the app has ended, as line mode does)."""
        self.sub_title = "a real table" if config.table_mode else "10,000 and its family"

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A notice, its words as written: a player's name or a file's may hold brackets,
        which Textual would read as markup (``Mum [/]`` stopped the app)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def on_mount(self) -> None:
        self._catch_signals()
        if self.session is None:
            self.push_screen(self.new_game_screen())
        else:
            self.session.record_to(self.record_path)
            if self.config.background_solves:
                self.session.solve_in_background()
            self.push_screen(GameScreen(self.session, pace=self.config.pace))

    def _catch_signals(self) -> None:
        """SIGTERM and SIGHUP save and exit, between two events (never inside a move)."""
        loop = asyncio.get_running_loop()
        for signum in STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, self.stop_by_signal, signum)

    def on_unmount(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)

    def stop_by_signal(self, signum: int) -> None:
        """Write the record (where one goes) and end with 128 + the signal."""
        self.autosave(closing=True)
        self.exit(return_code=128 + signum)

    def _handle_exception(self, error: Exception) -> None:
        """A bug: the record is written before the app shows the traceback and ends."""
        with contextlib.suppress(Exception):
            self.autosave(closing=True)
        super()._handle_exception(error)

    def new_game_screen(self, last: tuple[str, tuple[str, ...]] | None = None) -> NewGameScreen:
        """``last``: the rules and players of the game just played, offered again."""
        return NewGameScreen(table_mode=self.config.table_mode, dice=self.config.dice, last=last)

    def start_game(self, session: Session) -> None:
        """Leave the new-game screen for the table."""
        self.session = session
        if self.record_path is not None:  # --record holding the last game: kept beside it
            kept = free_record_path(self.record_path, session.record, session.own_files)
            if kept != self.record_path:
                self.notify(f"{self.record_path} keeps the last game: this one goes to {kept}")
                self.record_path = kept
        session.record_to(self.record_path)
        if self.config.background_solves:
            session.solve_in_background()
        self.switch_screen(GameScreen(session, pace=self.config.pace))

    def game_over(self, note: str = "") -> None:
        """The game has ended: write the record if asked, and show the ranking."""
        session = self.session
        assert session is not None
        self.autosave()
        can_undo = session.match.undo_refusal() is None  # a real table
        self.push_screen(
            EndScreen(session.state, note=note, record=session.record, can_undo=can_undo)
        )

    def autosave(self, *, closing: bool = False) -> bool:
        """Write the record to ``--record`` when it was given; False if that failed.

        ``closing``: the app stops playing the game, which reveals its dice secret in the
        record (``Session.close``; a resume throws from a new one).
        """
        if closing and self.session is not None:
            self.session.close()
        path = self.record_path
        if path is None or self.session is None or not self.session.record.actions:
            return True
        try:
            self.session.save(path)
        except ZloutchError as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return False
        self.written[path] = None
        return True

    def unsaved(self) -> bool:
        """Whether quitting now would lose moves (``--record`` writes them by itself)."""
        return self.session is not None and self.session.unsaved()

    def action_save_game(self, then_quit: bool = False) -> None:
        session = self.session
        if session is None:
            return

        def write(path: str | None) -> None:
            if path is None:
                return
            try:
                session.save(path, closing=then_quit)  # quitting: with the dice secret
            except ZloutchError as exc:
                self.notify(str(exc), severity="error", timeout=10)
                return
            self.written[path] = None
            if self.record_path is None:  # from now on the game is kept there
                self.record_path = path
                session.record_to(path)
            session.note(f"game saved to {path}")
            self.notify(f"Saved to {path}. Resume: zloutch play --resume {path}")
            if then_quit:
                self.exit(self.exit_code)

        default = (
            self.record_path
            or self.resume_path
            or free_record_path(DEFAULT_RECORD, session.record, session.own_files)
        )
        self.push_screen(SaveScreen(default), write)

    def action_new_game(self) -> None:
        """From the end screen: back to the new-game screen.

        The new game starts with nothing saved: its record goes to ``--record`` (if given),
        never to the file the last game was saved to.
        """
        last = None
        if self.session is not None:
            self.autosave(closing=True)  # the last game's file, its secret revealed,
            self.session.record_to(None)  # is left as it is
            last = (self.session.record.rules, self.session.record.players)
        self.session = None
        self.record_path = self.config.record_path
        self.resume_path = None
        while len(self.screen_stack) > 2:
            self.pop_screen()
        self.switch_screen(self.new_game_screen(last))

    def action_quit_game(self) -> None:
        """Quit; an unsaved game asks first (save and quit, quit, or stay)."""
        if not self.unsaved():
            self.autosave(closing=True)
            self.exit(self.exit_code)
            return

        def answer(choice: str | None) -> None:
            if choice == "save":
                self.action_save_game(then_quit=True)
            elif choice == "quit":
                self.exit(self.exit_code)

        self.push_screen(QuitScreen(), answer)
