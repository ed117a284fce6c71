"""Widgets of the table: dice drawn as dice, the paper sheet, the hint panel.

Widgets only draw what they are given and post messages (a die clicked); the screens ask
the session and the engine.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import RichLog, Static

from zloutch.app.hints import SOLVING_NOTE, hint_digits, shown_value
from zloutch.console.render import Change, scores_table, sheet_table
from zloutch.engine import GameState
from zloutch.strategy.expert import Advice

PIP = "●"
_PIPS: dict[int, tuple[str, str, str]] = {
    1: ("   ", " o ", "   "),
    2: ("o  ", "   ", "  o"),
    3: ("o  ", " o ", "  o"),
    4: ("o o", "   ", "o o"),
    5: ("o o", " o ", "o o"),
    6: ("o o", "o o", "o o"),
}


def die_lines(face: int) -> list[str]:
    """The three rows of pips of a face, as on a die (five columns each: with the border,
    a die is 7 cells wide, so six dice and their gaps fit the 80 columns of a terminal)."""
    return [" ".join(PIP if c == "o" else " " for c in row) for row in _PIPS[face]]


class Die(Static):
    """One die of a throw: its face in pips; click or press its number to select it."""

    DEFAULT_CSS = """
    Die {
        width: 7;
        height: 5;
        border: round $foreground 60%;
        margin: 0 1 0 0;
    }
    Die.selected {
        border: heavy $warning;
        background: $warning 20%;
        color: $text;
    }
    Die.dim {
        color: $foreground 50%;
        border: round $foreground 30%;
    }
    """

    class Toggled(Message):
        """A die was clicked."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, face: int, index: int, *, selected: bool = False, dim: bool = False) -> None:
        super().__init__("\n".join(die_lines(face)))
        self.face = face
        self.index = index
        self.set_class(selected, "selected")
        self.set_class(dim, "dim")
        self.border_subtitle = str(index + 1)  # its key: the dice are picked by place
        self.tooltip = f"die {index + 1}: {face} (press {index + 1} or click to select)"

    def on_click(self) -> None:
        self.post_message(self.Toggled(self.index))


class DiceTray(Widget):
    """The dice on the table, drawn as dice; which are selected; a caption above them."""

    DEFAULT_CSS = """
    DiceTray {
        height: auto;
    }
    DiceTray #caption {
        height: auto;
    }
    DiceTray Horizontal {
        height: 5;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.faces: tuple[int, ...] = ()
        self.selected: frozenset[int] = frozenset()
        self.caption = ""
        self.dim = False

    def compose(self) -> ComposeResult:
        yield Static(Text(self.caption), id="caption")
        yield Horizontal(id="dice")

    def show(
        self,
        faces: tuple[int, ...],
        selected: frozenset[int],
        caption: str,
        *,
        dim: bool = False,
    ) -> None:
        """Draw these dice (only what changed, so a click is not lost to a redraw)."""
        self.query_one("#caption", Static).update(Text(caption))  # names: no markup
        self.caption = caption
        if (faces, selected, dim) == (self.faces, self.selected, self.dim):
            return
        self.faces, self.selected, self.dim = faces, selected, dim
        row = self.query_one("#dice", Horizontal)
        row.display = bool(faces)
        row.remove_children()
        row.mount_all(Die(face, i, selected=i in selected, dim=dim) for i, face in enumerate(faces))


class GameLog(RichLog):
    """The game's log: its lines wrapped again when its width changes (a line is wrapped
    as it is written, so a terminal made narrower cut the lines written before), the room
    of its scroll bar kept from the first line (the bar's coming cut the lines before it)."""

    DEFAULT_CSS = """
    GameLog { overflow-x: hidden; overflow-y: auto; scrollbar-gutter: stable; }
    """

    KEPT = 1000
    """The lines kept (and written again at a new width)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, wrap=True, markup=False, max_lines=self.KEPT, min_width=20)
        self.texts: deque[Text] = deque(maxlen=self.KEPT)
        self._width = 0

    def add(self, text: Text) -> None:
        self.texts.append(text)
        self.write(text)

    def on_resize(self, event: events.Resize) -> None:
        width = event.size.width
        if self._width and width != self._width and self.texts:
            self.clear()
            for text in self.texts:
                self.write(text, scroll_end=False)
            self.scroll_end(animate=False)
        self._width = width


class SheetView(Static):
    """The paper sheet of the game (``zloutch.console.render.sheet_table``), or a row a
    player where its columns do not fit (``by_rows``: ``scores_table``, p shows it whole)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state: GameState | None = None
        self.by_rows = False
        self.last: int | None = None
        """The rows of levels there is room for (``sheet_table``'s ``last``; None: all)."""

    def show(
        self, state: GameState, changes: dict[tuple[int, int], Change], *, by_rows: bool = False
    ) -> None:
        self.state = state
        self.by_rows = by_rows
        if by_rows:
            self.update(scores_table(state, changes, title="Sheet (p: whole)"))
        else:
            self.update(sheet_table(state, changes, title="Sheet", compact=True, last=self.last))


def advice_table(
    advice: Advice | None,
    who: str,
    *,
    solving: bool = False,
    warnings: Sequence[str | None] = (),
) -> RenderableType:
    """Each legal action with its value, the recommended one first and marked; ``solving``:
    the game is being solved in the background (said under the table); ``warnings``: by
    action, what loses the turn (``session.action_warning``), marked ! and said under."""
    if advice is None:
        return Text("Hint: no decision to make right now.")
    # The title and the notes above and under the table, as wide as the panel (a table's title
    # wraps to the table's width: three lines in a panel with room for one)
    title = Text(f"Hint for {who}: {advice.objective} (* best)", style="italic")
    table = Table(
        box=box.SIMPLE_HEAD,
        show_edge=False,
        padding=0,
    )  # narrow: a space between columns, so it fits the side of an 80-column screen
    table.add_column("action", no_wrap=True)
    table.add_column("value", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    digits = hint_digits(advice)
    for i, (action, value) in enumerate(advice.values):
        mark = "*" if i == 0 else ""  # one column: "best" was cut at 80 columns
        if i < len(warnings) and warnings[i]:
            mark += "!"  # one character: the panel is 26 columns wide at 80
        style = "bold green" if i == 0 else ""
        table.add_row(str(action), shown_value(advice, value, digits), mark, style=style)
    lost = next((w for w in warnings if w), "")
    said = (SOLVING_NOTE if solving else "", f"! {lost} (T-9)" if lost else "", advice.note)
    notes = [Text(n, style="italic") for n in said if n]
    return Group(title, table, *notes)


class HintPanel(Static):
    """The hint: the current decision's actions with their values (key h shows it)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.advice: Advice | None = None

    def show(
        self,
        advice: Advice | None,
        who: str,
        *,
        solving: bool = False,
        warnings: Sequence[str | None] = (),
    ) -> None:
        self.advice = advice
        self.update(advice_table(advice, who, solving=solving, warnings=warnings))
