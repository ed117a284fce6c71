"""The smaller screens: help, the whole sheet, saving, and the end of the game."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Header, Input, Label, Static

from zloutch.console.render import ranking_table, rules_renderables, sheet_table
from zloutch.engine import GameState
from zloutch.engine.record import Record
from zloutch.rules import RuleSet

KEYS: tuple[tuple[str, str], ...] = (
    ("1 .. 6, click", "select or unselect the die with that number under it"),
    ("k, Enter", "keep the selected dice (Enter throws at the start of a turn)"),
    ("t", "throw the dice in hand"),
    ("b", "bank the turn total"),
    ("x", "take over the last turn's points and dice (G-8)"),
    ("f", "start fresh instead of taking over"),
    ("j", "set the selected dice aside as jokers (V-2)"),
    ("o", "a die went off the table: the turn is lost (zloutch table)"),
    ("u", "undo the last entry (zloutch table)"),
    ("h", "show or hide the hint: each action with its value"),
    ("p", "the whole sheet"),
    ("s", "save the game record"),
    ("?, F1", "this help"),
    ("r", "at the end of the game: review every decision (accuracy, biggest mistakes)"),
    ("q, Ctrl-C", "quit (the record is written when --record was given)"),
)


def sheet_legend(rules: RuleSet) -> str:
    """What the sheet's marks mean, for the marks these rules can write (a farkle game's
    legend spoke of ticks, bumps and petit paliers)."""
    game = rules.game
    ways = [
        *(["ticks"] if game.ticks_to_cross else []),
        *(["bump G-4"] if game.bump != "off" else []),
        *(["final round G-6"] if game.final_round else []),
    ]
    parts = ["Levels are written under each other"]
    if game.ticks_to_cross:
        parts.append("/ is a tick beside a level (G-3)")
    if ways:
        parts.append(f"a struck level is crossed ({', '.join(ways)})")
    if rules.turn.petit_palier:
        parts.append("pp marks a petit palier (T-8)")
    parts.append("< marks whose turn it is, * the winners")
    colours = [
        "green: new",
        *(["red: crossed"] if ways else []),
        *(["yellow: ticked"] if game.ticks_to_cross else []),
    ]
    return "; ".join(parts) + f"; the last changes are in colour ({', '.join(colours)})."


def keys_table() -> Table:
    table = Table(title="Keys", title_justify="left")
    table.add_column("key", no_wrap=True)
    table.add_column("what it does")
    for key, what in KEYS:
        table.add_row(key, what)
    return table


class HelpScreen(ModalScreen[None]):
    """The keys, and the rules of the rule set in play, generated from its data."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 95%; height: 95%; border: round $accent; background: $surface; padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "close", "Close"),
    ]

    def __init__(self, rules: RuleSet) -> None:
        super().__init__()
        self.rules = rules

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(keys_table())
            for part in rules_renderables(self.rules):
                yield Static(part)
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)


class SheetScreen(ModalScreen[None]):
    """The whole sheet, large, with its legend."""

    DEFAULT_CSS = """
    SheetScreen { align: center middle; }
    SheetScreen #sheet-box {
        width: 95%; height: 95%; border: round $accent; background: $surface; padding: 0 1;
    }
    SheetScreen #sheet-scroll { height: 1fr; }
    SheetScreen #sheet { width: auto; }
    SheetScreen #legend { height: auto; max-height: 50%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,p", "close", "Close")]

    def __init__(self, state: GameState, changes: dict[tuple[int, int], str]) -> None:
        super().__init__()
        self.state = state
        self.changes = changes

    def compose(self) -> ComposeResult:
        with Vertical(id="sheet-box"):
            with ScrollableContainer(id="sheet-scroll"):  # eight players pass 80 columns
                yield Static(sheet_table(self.state, self.changes, title="Sheet"), id="sheet")
            yield Static(Text(sheet_legend(self.state.rules), style="dim"), id="legend")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)


class SaveScreen(ModalScreen[str | None]):
    """Ask where to write the game record."""

    DEFAULT_CSS = """
    SaveScreen { align: center middle; }
    SaveScreen > Vertical {
        width: 70; height: auto; border: round $accent; background: $surface; padding: 1 2;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Save the game record to (Enter saves, Escape cancels):")
            yield Input(self.path, id="path")

    def on_mount(self) -> None:
        self.query_one("#path", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path = event.value.strip()
        self.dismiss(path or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class QuitScreen(ModalScreen[str]):
    """Quitting would lose something: the game is not saved (save it, quit anyway, or stay),
    or, with ``can_save`` False, what the new-game screen holds (quit, or stay)."""

    DEFAULT_CSS = """
    QuitScreen { align: center middle; }
    QuitScreen > Vertical {
        width: 64; height: auto; border: round $warning; background: $surface; padding: 1 2;
    }
    QuitScreen Horizontal { height: auto; margin-top: 1; }
    QuitScreen Button { margin-right: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "choose('save')", "Save and quit"),
        Binding("q,y", "choose('quit')", "Quit"),
        Binding("escape,n", "choose('stay')", "Stay"),
    ]

    def __init__(
        self,
        question: str = "The game is not saved. Save it before quitting?",
        *,
        can_save: bool = True,
    ) -> None:
        super().__init__()
        self.question = question
        self.can_save = can_save

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(self.question))
            with Horizontal():
                if self.can_save:
                    yield Button("Save and quit (s)", action="screen.choose('save')", id="save")
                yield Button("Quit (q)", action="screen.choose('quit')", id="quit")
                yield Button("Stay (Esc)", action="screen.choose('stay')", id="stay")

    def on_mount(self) -> None:
        self.query_one("#stay", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choose" and parameters == ("save",):
            return self.can_save
        return True

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)


class EndScreen(Screen[None]):
    """The end of the game: who won, the ranking and the sailors' kicks, the final sheet;
    with the game's record, a review of every player's decisions."""

    # Who won above, the buttons below, and what lies between scrolls: at 80x24 the screen
    # opened scrolled to the buttons, and "Game over: Ana won!" was out of view.
    DEFAULT_CSS = """
    EndScreen #winner { text-style: bold; color: $success; padding: 1 2; height: auto; }
    EndScreen VerticalScroll { padding: 0 2; height: 1fr; }
    EndScreen Horizontal { height: 3; padding: 0 2; }
    EndScreen Button { margin-right: 1; min-width: 0; width: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "app.new_game", "New game"),
        Binding("s", "app.save_game", "Save"),
        Binding("p", "sheet", "Sheet"),
        Binding("r", "review", "Review"),
        Binding("u", "undo", "Undo"),
        Binding("q", "app.quit_game", "Quit"),
    ]

    def __init__(
        self,
        state: GameState,
        *,
        note: str = "",
        record: Record | None = None,
        can_undo: bool = False,
    ) -> None:
        """``can_undo``: a real table, where the last entry (a winning throw typed wrong)
        is taken back as any other, and the game goes on."""
        super().__init__()
        self.state = state
        self.note = note
        self.record = record
        self.can_undo = can_undo

    def compose(self) -> ComposeResult:
        yield Header()
        names = [self.state.sheets[w].name for w in self.state.winners]
        yield Static(Text(f"Game over: {' and '.join(names)} won!"), id="winner")
        with VerticalScroll():
            yield Static(ranking_table(self.state), id="ranking")
            yield Static(sheet_table(self.state, title="Final sheet"), id="sheet")
            if self.note:
                yield Static(Text(self.note), id="note")
        with Horizontal():
            yield Button("New game (n)", action="app.new_game", variant="primary", id="new")
            yield Button("Save (s)", action="app.save_game", id="save")
            if self.record is not None:
                yield Button("Review (r)", action="screen.review", id="review")
            if self.can_undo:
                yield Button("Undo (u)", action="screen.undo", id="undo")
            yield Button("Quit (q)", action="app.quit_game", id="quit")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#new", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "review":
            return self.record is not None
        if action == "undo":
            return self.can_undo
        return True

    def action_sheet(self) -> None:
        self.app.push_screen(SheetScreen(self.state, {}))

    async def action_undo(self) -> None:
        """Back to the table, where the last entry is taken back (the table's undo)."""
        await self.app.pop_screen()
        await self.app.run_action("screen.undo")

    def action_review(self) -> None:
        """Grade every decision of the game: accuracy and biggest mistakes per player."""
        if self.record is None:
            return
        from zloutch.adapters.tui.review_screen import ReviewScreen

        self.app.push_screen(ReviewScreen(self.record))
