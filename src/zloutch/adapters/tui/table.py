"""The table: the dice, the keeps, the actions, the sheet, the log and the hint.

Every question ("can Ana bank now?", "is 1 1 5 a keep?", "what is it worth?") goes to the
session, which asks the engine; this screen draws the answers and turns keys and clicks into
actions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Button, Footer, Header, Input, Static

from zloutch.adapters.tui.screens import HelpScreen, SheetScreen
from zloutch.adapters.tui.views import (
    aside_text,
    keeps_view,
    log_text,
    status_text,
    tray_faces,
    tray_view,
    worth_saying,
)
from zloutch.adapters.tui.widgets import DiceTray, Die, GameLog, HintPanel, SheetView
from zloutch.app.dice import DiceExhaustedError, DiceFileError
from zloutch.app.match import Need
from zloutch.app.session import (
    Command,
    Session,
    action_warning,
    short_reason,
)
from zloutch.console.render import Change, format_target, sheet_changes
from zloutch.engine import (
    Action,
    Bank,
    Fresh,
    GameState,
    Joker,
    Keep,
    Off,
    Phase,
    Take,
    Throw,
)
from zloutch.engine.events import Bumped, Crossed
from zloutch.rules import ZloutchError, parse_dice

if TYPE_CHECKING:
    from zloutch.adapters.tui.app import ZloutchApp

GAME_ACTIONS: dict[str, Action] = {
    "throw": Throw(),
    "bank": Bank(),
    "take": Take(),
    "fresh": Fresh(),
    "off": Off(),
}
ABSENT_KEYS: tuple[tuple[str, str], ...] = (
    ("x", "take"),
    ("f", "fresh"),
    ("j", "joker"),
    ("o", "off"),
    ("u", "undo"),
)
"""The keys of moves that may be out of the footer (``GameScreen.check_action``)."""
BUTTONS: tuple[tuple[str, str], ...] = (
    ("keep", "Keep (k)"),
    ("throw", "Throw (t)"),
    ("bank", "Bank (b)"),
    ("take", "Take (x)"),
    ("fresh", "Fresh (f)"),
    ("joker", "Joker (j)"),
    ("off", "Off (o)"),
    ("undo", "Undo (u)"),
)


SIDE_MIN_WIDTH = 26
SIDE_MAX_WIDTH = 56
SIDE_FRAME = 4
"""The side's padding (one a side) and its scroll bars' room."""
SIDE_SHARE = 36
"""The side's share of a terminal's columns (percent) where the sheet needs fewer: the log
under the sheet reads better wide."""
SHEET_SHARE = 60
SHEET_SHARE_HINTING = 35
"""The sheet's share of the side's rows (percent), the hint shown or not: the log has the
rest (the CSS's max-height of ``#sheet-scroll``, and the levels ``fit_side`` shows)."""
SHEET_FRAME = 5
"""The sheet's rows that are not levels: its title, the names and their rule, the scores
and their rule."""
SCREEN_FRAME = 2
"""The rows of the screen that are not the play or the side: the header and the footer."""
PLAY_MIN_WIDTH = 49
"""Six dice of seven columns, their gaps and the padding."""
BUTTON_MIN_WIDTH = 8
"""The narrowest a button under the dice is drawn."""
BUTTON_ROOM = 11
"""The columns a button under the dice takes to say its label on one line ("Bank (b)", its
padding and the gutter): the buttons take as many columns of the grid as fit."""


class GameScreen(Screen[None]):
    """A game in progress."""

    AUTO_FOCUS = "#keeps-scroll"
    """Not the typed faces' input: keys are moves until real dice are in the air."""

    DEFAULT_CSS = """
    GameScreen #main { height: 1fr; }
    GameScreen #play { width: 1fr; padding: 0 1; }
    GameScreen #side { width: 36%; min-width: 26; max-width: 56; padding: 0 1; }
    GameScreen #sheet-scroll {
        height: auto; max-height: {SHEET_SHARE}%; overflow: auto auto;
    }
    GameScreen #side.hinting #hint { max-height: 55%; }
    GameScreen #side.hinting #sheet-scroll { max-height: {SHEET_SHARE_HINTING}%; }
    GameScreen #sheet { width: auto; }
    GameScreen #status { height: auto; color: $text; text-style: bold; }
    GameScreen #aside { height: auto; }
    GameScreen #keeps-scroll { height: 1fr; min-height: 2; }
    GameScreen #keeps { height: auto; }
    GameScreen #actions {
        layout: grid; grid-size: 4; grid-gutter: 0 1; height: auto;
    }
    GameScreen #actions Button { width: 1fr; min-width: {BUTTON_MIN_WIDTH}; }
    GameScreen #reasons { height: auto; color: $text-muted; }
    GameScreen #typed { height: auto; margin-top: 1; }
    GameScreen #typed Input { width: 1fr; max-width: 48; }
    GameScreen #typed Horizontal { height: auto; }
    GameScreen #typed Button { min-width: 5; margin-right: 1; }
    GameScreen.narrow #typed Button { min-width: 3; }
    GameScreen #hint { height: auto; max-height: 80%; margin-bottom: 1; display: none; }
    GameScreen #hint.shown { display: block; }
    GameScreen #log {
        height: 1fr; min-height: 3; border-top: solid $foreground 30%;
        scrollbar-size-vertical: 1;
    }
    GameScreen.narrow #main { layout: vertical; }
    GameScreen.narrow #play { height: auto; }
    GameScreen.narrow #keeps-scroll { height: auto; max-height: 6; }
    GameScreen.narrow #side { width: 1fr; max-width: 100%; height: 1fr; min-width: 0; }
    """
    DEFAULT_CSS = (
        DEFAULT_CSS.replace("{SHEET_SHARE_HINTING}", str(SHEET_SHARE_HINTING))
        .replace("{SHEET_SHARE}", str(SHEET_SHARE))
        .replace("{BUTTON_MIN_WIDTH}", str(BUTTON_MIN_WIDTH))
    )

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "throw", "Throw"),
        Binding("k", "keep", "Keep"),
        Binding("enter", "default", "Keep/throw", show=False),
        Binding("b", "bank", "Bank"),
        Binding("x", "take", "Take over"),
        Binding("f", "fresh", "Fresh"),
        Binding("j", "joker", "Joker"),
        Binding("o", "off", "Off"),
        Binding("u", "undo", "Undo"),
        Binding("h", "hint", "Hint"),
        Binding("p", "sheet", "Sheet"),
        Binding("s", "app.save_game", "Save"),
        Binding("question_mark,f1", "help", "Help"),
        Binding("q", "app.quit_game", "Quit"),
        *(Binding(str(i), f"pick({i - 1})", show=False) for i in range(1, 7)),
        # Where a key above is out of the footer (it cannot apply in this game or now), the
        # same key still answers: the engine's or the session's reason, as in line mode.
        *(Binding(key, f"absent('{name}')", show=False) for key, name in ABSENT_KEYS),
    ]

    def __init__(self, session: Session, *, pace: float) -> None:
        super().__init__()
        self.session = session
        self.pace = pace
        self.selected: frozenset[int] = frozenset()
        self.baseline = session.state
        """The sheet as the person to move last saw it: what changed since is highlighted."""
        self.stopped = ""
        """Why the game cannot go on (the dice file ran out), or empty."""
        self._shown = 0
        self._timer: Timer | None = None
        self._bindings_for: tuple[bool, bool] | None = None

    @property
    def zapp(self) -> ZloutchApp:
        return self.app  # type: ignore[return-value]

    # -- layout

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            # The buttons under the dice, the keeps below them in the room the rest
            # leaves, scrolling: however many a throw has, the buttons stay on 80x24.
            with Vertical(id="play"):
                yield Static(id="status")
                yield DiceTray(id="tray")
                yield Static(id="aside")
                with Horizontal(id="actions"):
                    for name, label in BUTTONS:
                        yield Button(label, id=f"do-{name}", action=f"screen.{name}", compact=True)
                yield Static(id="reasons")
                if self.session.state.table_mode:
                    with Vertical(id="typed"):
                        yield FacesInput(placeholder="faces (1 1 4 4 3)", id="faces", compact=True)
                        with Horizontal():
                            for face in range(1, 7):
                                yield _face_button(str(face), f"face-{face}")
                            yield _face_button("clear", "face-clear")
                with VerticalScroll(id="keeps-scroll"):
                    yield Static(id="keeps")
            with Vertical(id="side"):
                # The hint above the sheet, and the sheet scrolls in the room the hint
                # leaves: a long sheet never pushes the hint off the screen. The log under
                # them, in the room the sheet leaves: under the whole screen, it took five
                # of an 80x24 terminal's rows from the keeps.
                yield HintPanel(id="hint")
                with ScrollableContainer(id="sheet-scroll"):
                    yield SheetView(id="sheet")
                yield GameLog(id="log")
        yield Footer(compact=True, show_command_palette=False)  # ctrl+p still opens it

    def on_mount(self) -> None:
        for button in self.query(Button):
            if button.id and button.id.startswith("do-"):
                button.can_focus = False
        if not self.session.state.table_mode:
            for name in ("off", "undo"):
                self.query_one(f"#do-{name}", Button).display = False
        self.advance()

    # -- driving the game

    def advance(self) -> None:
        """Roll the dice the session draws and let the bots play, until a person must act."""
        self._timer = None
        s = self.session
        while not self.stopped:
            need = s.need()
            if need is Need.DICE:
                try:
                    s.roll()
                except DiceExhaustedError as exc:
                    self.stop(f"{exc}.")
                except DiceFileError as exc:
                    self.zapp.exit_code = 2  # a dice file that stops matching is an error
                    self.stop(f"error: {exc}")
                continue
            if need is Need.BOT:
                if self.pace > 0:
                    self.refresh_view()
                    self._timer = self.set_timer(self.pace, self.bot_move)
                    return
                s.bot_step()
                continue
            break
        self.refresh_view()
        need = s.need()
        if need is Need.OVER:
            self.zapp.game_over()
        elif need is Need.TYPED_DICE and not self.stopped:
            self.query_one("#faces", Input).focus()

    def bot_move(self) -> None:
        if self.session.need() is Need.BOT and not self.stopped:
            self.session.bot_step()
        self.advance()

    def stop(self, why: str) -> None:
        """The dice ran out: say so, write the record, and take no more moves."""
        self.stopped = why
        self.session.note(why)
        self.zapp.autosave()
        self.notify(why, severity="warning", timeout=15)

    def play(self, command: Command) -> None:
        """A person's move: the session refuses it with the engine's reason, or plays it."""
        if self.stopped:
            self.notify(self.stopped, severity="warning")
            return
        before = self.session.state
        logged = len(self.session.log)
        try:
            self.session.play(command)
        except ZloutchError as exc:
            if len(self.session.log) == logged:  # a refused move is in the log, in colour:
                # a notice would say it again, over the log's last lines
                self.notify(_capital(short_reason(str(exc))), severity="warning")
            self.refresh_view()
            return
        self.baseline = before
        self.selected = frozenset()
        self.advance()

    def person_to_move(self) -> bool:
        return self.session.need() is Need.PERSON and not self.stopped

    def may_act(self, name: str) -> bool:
        """Whether a person may play this now: a person's move, or, while real dice are in
        the air, what the match allows besides their faces (a die off the table, V-1)."""
        if self.session.need() is Need.TYPED_DICE:
            action = GAME_ACTIONS.get(name)
            return not self.stopped and action is not None and action in self.session.moves()
        return self.person_to_move()

    # -- actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Off and undo exist at a real table only; moves wait while the bots play.

        A key of a move that is not legal now still runs: the refusal, with the engine's
        reason, goes to the log ("Ana banks 650? No: ..."); the buttons show legality.
        """
        if action in ("off", "undo") and not self.session.state.table_mode:
            return False
        # Take over and start fresh answer a take-back offer (G-8), jokers need V-2: out of
        # the footer (and the buttons) where they cannot apply, so that the keys fit 80 columns.
        if action in ("take", "fresh") and self.session.state.offer is None:
            return False
        if action == "joker" and not self.session.state.rules.variants.joker:
            return False
        if action in (*GAME_ACTIONS, "keep", "joker", "pick", "default", "absent"):
            return True if self.may_act(action) else None
        return True

    def _phase(self) -> Phase:
        return self.session.state.phase

    def _joker_choices(self) -> list[Action]:
        return [a for a in self.session.moves() if isinstance(a, Joker)]

    def act(self, action: Action) -> None:
        self.play(Command((action,)))

    def action_throw(self) -> None:
        self.act(Throw())

    def action_bank(self) -> None:
        self.act(Bank())

    def action_take(self) -> None:
        self.act(Take())

    def action_fresh(self) -> None:
        self.act(Fresh())

    def action_off(self) -> None:
        self.act(Off())

    def selection(self) -> tuple[int, ...]:
        faces = self.tray_faces()
        return tuple(sorted(faces[i] for i in self.selected if i < len(faces)))

    def action_keep(self) -> None:
        if self._phase() is not Phase.KEEP:
            self.notify("There is no throw to keep from: t throws", severity="warning")
            return
        if not self.selected:
            self.notify(f"Select dice first: keys 1 to {len(self.tray_faces())}, or click them")
            return
        self.act(Keep(self.selection()))

    def action_joker(self) -> None:
        if not self.selected:
            self.notify("Select the dice to set aside as jokers first (keys or clicks)")
            return
        self.act(Joker(self.selection()))

    def action_default(self) -> None:
        """Enter: keep the selection when a throw is on the table; else throw if nothing
        else can be done (at the start of a turn)."""
        if self._phase() is Phase.KEEP:
            self.action_keep()
        elif self._phase() is Phase.START and self.session.moves() == (Throw(),):
            self.action_throw()
        else:
            self.notify("t throws, b banks")

    def action_absent(self, name: str) -> None:
        """A key whose move is out of the footer: why it cannot be played (the engine's
        reason for a move, the session's for undo)."""
        if name == "undo":
            self.action_undo()
        elif name == "joker":
            self.act(Joker(self.selection()))
        else:
            self.act(GAME_ACTIONS[name])

    def action_pick(self, index: int) -> None:
        if index >= len(self.tray_faces()) or not self.person_to_move():
            return
        if self._phase() is Phase.DECIDE and not self._joker_choices():
            return
        self.selected = self.selected ^ {index}
        self.refresh_view()

    def on_die_toggled(self, message: Die.Toggled) -> None:
        self.action_pick(message.index)

    def action_undo(self) -> None:
        try:
            self.session.undo()
        except ZloutchError as exc:
            self.notify(_capital(str(exc)), severity="warning")
            return
        self.stopped = ""
        self.selected = frozenset()
        self.baseline = self.session.state
        self.advance()

    def action_hint(self) -> None:
        hint = self.query_one("#hint", HintPanel)
        hint.toggle_class("shown")
        # The hint, the sheet and the log share the side (a long sheet scrolls in its part).
        self.query_one("#side", Vertical).set_class(hint.has_class("shown"), "hinting")
        self.refresh_view()
        # The log's last line stays in view as its room changes.
        log = self.query_one("#log", GameLog)
        self.call_after_refresh(log.scroll_end, animate=False)

    def action_sheet(self) -> None:
        self.app.push_screen(SheetScreen(self.session.state, self.changes()))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.session.state.rules))

    # -- real dice typed in

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "faces":
            return
        text = event.value.strip()
        if not text:
            return
        try:
            command = self.session.read(text)
        except ZloutchError as exc:
            self.notify(_capital(str(exc)), severity="warning")
            return  # the faces stay in the field, to be put right
        played = len(self.session.record.actions)
        if command.word:
            self.run_word(command.word)
        else:
            self.play(command)
        if len(self.session.record.actions) == played and not command.word:
            return  # refused: the faces stay in the field, to be put right
        event.input.value = ""
        if self.session.need() is not Need.TYPED_DICE:
            self.set_focus(None)

    def run_word(self, word: str) -> None:
        actions = {
            "hint": self.action_hint,
            "sheet": self.action_sheet,
            "help": self.action_help,
            "undo": self.action_undo,
            "save": self.zapp.action_save_game,
            "quit": self.zapp.action_quit_game,
        }
        actions[word]()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        button = event.button.id or ""
        if not button.startswith("face-"):
            return
        faces = self.query_one("#faces", Input)
        if button == "face-clear":
            faces.value = ""
        else:
            faces.value = (faces.value + " " + button.removeprefix("face-")).strip()
        faces.focus()

    # -- drawing

    def tray_faces(self) -> tuple[int, ...]:
        return tray_faces(self.session.state)

    def changes(self) -> dict[tuple[int, int], Change]:
        return sheet_changes(self.baseline, self.session.state)

    def refresh_view(self) -> None:
        s = self.session
        state = s.state
        seat = state.turn.player
        name = s.names[seat]
        self.title = f"Zloutch: {state.rules.spec}, target {format_target(state.rules)}"
        self.sub_title = f"{name} to play" if state.phase is not Phase.OVER else "game over"
        self.query_one("#status", Static).update(status_text(s, self.stopped))
        self.draw_tray()
        aside = aside_text(s)
        self.query_one("#aside", Static).update(aside)
        self.query_one("#aside", Static).display = bool(aside.plain)  # no blank line
        self.query_one("#keeps", Static).update(keeps_view(s, self.selection()))
        self.draw_buttons()
        self.fit_side(state)
        # The last levels are the ones in play: keep them in view as the sheet grows.
        self.query_one("#sheet-scroll", ScrollableContainer).scroll_end(animate=False)
        hint = self.query_one("#hint", HintPanel)
        if hint.has_class("shown"):
            advice = s.advice() if self.person_to_move() else None
            warnings = [action_warning(state, a) for a, _ in advice.values] if advice else []
            hint.show(advice, name, solving=s.solving(), warnings=warnings)
        self.write_log()
        typed = self.query("#typed")
        if typed:  # the faces' field only while real dice are in the air
            typed.first().display = s.need() is Need.TYPED_DICE
        shown = (self.person_to_move(), state.offer is not None)
        if self._bindings_for != shown:
            self._bindings_for = shown
            self.refresh_bindings()  # the footer is rebuilt: only when moves open or close

    def on_resize(self, event: events.Resize) -> None:
        """A terminal resized: the side as wide as the new width gives it, the log's last
        line in view."""
        self.fit_side(self.session.state)
        log = self.query_one("#log", GameLog)
        self.call_after_refresh(log.scroll_end, animate=False)

    def fit_side(self, state: GameState) -> None:
        """The sheet, and the side as wide as it needs (three players fit at 80 columns),
        leaving the dice their room; where its columns do not fit, a row a player. On a
        terminal too narrow for the dice and the side together, the side goes under the
        dice, as wide as the screen, and the buttons take as many columns as fit."""
        narrow = self.size.width < PLAY_MIN_WIDTH + SIDE_MIN_WIDTH
        self.set_class(narrow, "narrow")
        play = self.size.width if narrow else self.size.width - SIDE_MIN_WIDTH
        actions = self.query_one("#actions", Horizontal)
        columns = max(1, min(4, (play - 2 + 1) // BUTTON_ROOM))
        if actions.styles.grid_size_columns != columns:
            actions.styles.grid_size_columns = columns
        sheet = self.query_one("#sheet", SheetView)
        changes = self.changes()
        room = self.size.width if narrow else self.size.width - PLAY_MIN_WIDTH
        # The levels there is room for, under the names: the side's share for the sheet
        # (the CSS's max-height) less the title, the names, the scores and their rules.
        hinting = self.query_one("#side", Vertical).has_class("hinting")
        share = SHEET_SHARE_HINTING if hinting else SHEET_SHARE
        last = (self.size.height - SCREEN_FRAME) * share // 100 - SHEET_FRAME
        sheet.last = max(1, last)
        sheet.show(state, changes)
        wanted = sheet.get_content_width(self.size, self.app.size) + SIDE_FRAME
        if wanted > min(room, SIDE_MAX_WIDTH):
            sheet.show(state, changes, by_rows=True)
            wanted = sheet.get_content_width(self.size, self.app.size) + SIDE_FRAME
        # The log shares the side: a wide terminal gives it a third of its columns.
        wanted = max(wanted, self.size.width * SIDE_SHARE // 100)
        side = self.query_one("#side", Vertical)
        if narrow:
            side.styles.width = None  # the CSS's: the screen's width
            return
        width = max(SIDE_MIN_WIDTH, min(wanted, room, SIDE_MAX_WIDTH))
        if side.styles.width is None or side.styles.width.value != width:
            side.styles.width = width

    def draw_tray(self) -> None:
        faces, caption, dim = tray_view(self.session, self.stopped)
        self.query_one("#tray", DiceTray).show(faces, self.selected, caption, dim=dim)

    def draw_buttons(self) -> None:
        s = self.session
        reasons: list[str] = []
        person = self.person_to_move()
        for name, _ in BUTTONS:
            button = self.query_one(f"#do-{name}", Button)
            button.display = self.check_action(name, ()) is not False
            if not button.display:
                continue
            if name in GAME_ACTIONS:
                reason = s.refusal(GAME_ACTIONS[name]) if self.may_act(name) else "not your move"
            elif name == "keep":
                reason = None if self._phase() is Phase.KEEP else "no throw to keep from"
                if person and reason is None and self.selection():
                    reason = s.refusal(Keep(self.selection()))
            elif name == "joker":
                reason = None if self._joker_choices() else "no jokers now (V-2)"
                if person and reason is None and self.selection():
                    reason = s.refusal(Joker(self.selection()))
            else:
                reason = None
            if not self.may_act(name) and name != "undo":
                reason = reason or "not your move"
            button.disabled = reason is not None
            button.tooltip = reason
            if name == "throw" and reason is None and s.state.offer is not None:
                # G-8: a throw answers an offer as fresh does (t keeps starting a turn)
                button.tooltip = "starts fresh, as f does: x takes the offer over"
            if reason is not None and person and worth_saying(s.state, name):
                reasons.append(f"{name}: {short_reason(reason)}")
        self.query_one("#reasons", Static).update(Text("\n".join(reasons)))

    def write_log(self) -> None:
        log = self.query_one("#log", GameLog)
        entries = self.session.log
        for entry in entries[self._shown :]:
            log.add(log_text(entry))
            if isinstance(entry.event, Bumped | Crossed):
                self.notify(entry.text, severity="warning")
        self._shown = len(entries)


def _face_button(label: str, button_id: str) -> Button:
    """A button of the faces' pad. Textual drops a click on a button still showing its
    last press (0.2 s): two 1s tapped quickly entered one. These show none."""
    button = Button(label, id=button_id, compact=True)
    button.active_effect_duration = 0
    return button


class FacesInput(Input):
    """The faces of real dice, typed: digits and spaces go in the field; any other key is
    the table's (q quits, h hints, u undoes...), as when no dice are in the air."""

    FACE_KEYS = frozenset("123456 ")

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """Only a face or a space is the field's: the bindings see every other key."""
        if character is not None and character.isprintable():
            return character in self.FACE_KEYS
        return super().check_consume_key(key, character)

    async def _on_key(self, event: events.Key) -> None:
        # Textual runs Input's own handler after this one unless the default is prevented.
        if event.is_printable and event.character not in self.FACE_KEYS:
            event.prevent_default()
            if event.character is not None and event.character.isdigit():
                try:  # the rules' own words for a face no die has
                    parse_dice([event.character])
                except ZloutchError as exc:
                    self.notify(_capital(str(exc)))


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
