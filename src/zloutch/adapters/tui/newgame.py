"""The new-game screen: the rule set and its options, and who plays.

Enter starts the game with what is on the screen; the defaults (dix-mille, a person against
one bot) make ``zloutch play`` then Enter then t a game under way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import (
    Button,
    Collapsible,
    Footer,
    Header,
    Input,
    Label,
    Select,
    Static,
    Switch,
)

from zloutch.adapters.tui.screens import QuitScreen
from zloutch.app.dice import DiceSource, choose_dice
from zloutch.app.match import BOT_PREFIX
from zloutch.app.session import BOT_LEVELS, PLAY_PLAYERS, TABLE_PLAYERS, Session
from zloutch.console.render import format_target, summary_text
from zloutch.engine.endings import load_rules
from zloutch.rules import COMMON_OPTIONS, OPTIONS, PRESETS, RuleSet, ZloutchError
from zloutch.rules import load_rules as parse_spec
from zloutch.rules.ruleset import OptionValue, format_option

if TYPE_CHECKING:
    from zloutch.adapters.tui.app import ZloutchApp

MAX_PLAYERS = 8
PERSON = "person"
KINDS: tuple[tuple[str, str], ...] = (
    ("person", PERSON),
    *((f"bot: {level}", f"{BOT_PREFIX}{level}") for level in BOT_LEVELS),
)
DEFAULT_RULES = "dix-mille"


class NewGameScreen(Screen[None]):
    """Choose the rule set, its options, and the players; Enter starts."""

    DEFAULT_CSS = """
    NewGameScreen #form { padding: 0 2; }
    NewGameScreen .heading { text-style: bold; margin-top: 1; }
    NewGameScreen .row { height: auto; }
    NewGameScreen .row Label { width: 24; padding-top: 0; }
    NewGameScreen #preset { width: 30; }
    NewGameScreen #summary { width: 1fr; padding-left: 2; color: $text-muted; }
    NewGameScreen #spec { width: 1fr; max-width: 60; }  /* 80 columns: inside the scrollbar */
    NewGameScreen .option {
        layout: grid; grid-size: 3; grid-columns: 14 1fr 22; height: auto; margin-bottom: 1;
    }
    NewGameScreen .option .rule { color: $accent; }
    NewGameScreen .option .control { width: 22; }
    /* The meaning on a line of its own, the width of the screen: at 80 columns it had 4. */
    NewGameScreen .option .meaning { column-span: 3; color: $text-muted; }
    NewGameScreen .player { height: auto; }
    NewGameScreen .player Label { width: 4; }
    NewGameScreen .player Input { width: 30; }
    NewGameScreen .player Select { width: 24; }
    NewGameScreen #error { color: $error; height: auto; margin-top: 1; }
    NewGameScreen #start-row { height: auto; dock: bottom; padding: 0 2 1 2; }
    NewGameScreen #start-row Button { margin-right: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # priority: in a name field ctrl+d was the field's own (delete the next letter)
        Binding("ctrl+n", "add_player", "Add player", priority=True),
        Binding("ctrl+d", "remove_player", "Remove player", priority=True),
        Binding("escape", "quit", "Quit"),
    ]

    def __init__(
        self,
        *,
        table_mode: bool = False,
        dice: DiceSource | None = None,
        last: tuple[str, tuple[str, ...]] | None = None,
    ) -> None:
        """``last``: the rule spec and players of the game just played, offered again (a
        preset with its options switched, or the spec typed; the same players)."""
        super().__init__()
        self.table_mode = table_mode
        self.dice = dice
        """The dice of --dice or --seed; None: random dice, or typed at a real table."""
        self.defaults = (TABLE_PLAYERS if table_mode else PLAY_PLAYERS).split(",")
        self.rules: RuleSet = load_rules(DEFAULT_RULES)
        self.typed_spec = ""
        if last is not None:
            spec, players = last
            self.defaults = list(players[:MAX_PLAYERS])
            base = spec.split("(", 1)[0]
            try:
                if base in PRESETS:
                    self.rules = load_rules(spec)  # the preset, its options as switched
                else:
                    self.typed_spec = spec  # a rule file: its spec, as typed
            except ZloutchError:
                self.rules = load_rules(DEFAULT_RULES)
        self.count = len(self.defaults)

    @property
    def zapp(self) -> ZloutchApp:
        return self.app  # type: ignore[return-value]

    # -- layout

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="form"):
            where = "at a real table (you throw real dice)" if self.table_mode else ""
            yield Static(f"New game {where}".strip(), classes="heading")
            with Horizontal(classes="row"):
                yield Label("Rule set")
                yield Select(
                    [(name, name) for name in PRESETS],
                    value=self.rules.name if self.rules.name in PRESETS else DEFAULT_RULES,
                    allow_blank=False,
                    id="preset",
                )
                yield Static(Text(self.rules.summary), id="summary")
            with Horizontal(classes="row"):
                yield Label("or a rule file / spec")
                yield Input(
                    self.typed_spec,
                    placeholder="my-table.toml, or dix-mille(joker,bump=any)",
                    id="spec",
                )
            # The options a table changes most in sight (the target was the 25th of 48 under
            # the fold), the others folded.
            for name in COMMON_OPTIONS:
                yield self.option_row(name)
            with Collapsible(title="Other options: rule id, option, meaning", id="opts"):
                for name in OPTIONS:
                    if name not in COMMON_OPTIONS:
                        yield self.option_row(name)
            yield Static(f"Players (1 to {MAX_PLAYERS}, in the order they play)", classes="heading")
            for i in range(MAX_PLAYERS):
                default = self.defaults[i] if i < len(self.defaults) else f"Player {i + 1}"
                kind = default if default.startswith(BOT_PREFIX) else PERSON
                with Horizontal(classes="player", id=f"player-{i}"):
                    yield Label(f"{i + 1}.")
                    yield Input(
                        default,
                        placeholder="name",
                        id=f"name-{i}",
                        disabled=kind != PERSON,
                        compact=True,
                    )
                    # A bot by name (bot:greedy, bot:threshold:300, from the command line):
                    # a choice of its own in its row, as the last game had it.
                    kinds = KINDS if kind in dict(KINDS).values() else (*KINDS, (kind, kind))
                    yield Select(kinds, value=kind, allow_blank=False, id=f"kind-{i}", compact=True)
            with Horizontal(classes="row"):
                yield Button("+ player (ctrl+n)", id="add", compact=True)
                yield Button("- player (ctrl+d)", id="remove", compact=True)
            yield Static(id="error")
        with Horizontal(id="start-row"):
            yield Button("Start the game (Enter)", id="start", variant="primary")
        yield Footer()

    def option_row(self, name: str) -> Horizontal:
        info = OPTIONS[name]  # its rule ids, meaning, kind and choices, as data
        value = self.rules.option(name)
        control: Switch | Select[str] | Input
        if info.kind == "bool":
            control = Switch(bool(value), id=f"opt-{name}", classes="control")
        elif info.kind == "choice":
            control = Select(
                [(c, c) for c in info.choices],
                value=str(value),
                allow_blank=False,
                id=f"opt-{name}",
                classes="control",
                compact=True,
            )
        else:
            control = Input(
                str(value), type="integer", id=f"opt-{name}", classes="control", compact=True
            )
        return Horizontal(
            Static(info.rule, classes="rule"),
            Static(name, classes="name"),
            control,
            Static(Text(info.meaning), classes="meaning"),
            classes="option",
        )

    def on_mount(self) -> None:
        self.show_players()
        if self.typed_spec:
            self.show_summary(self.typed_spec)
        self.query_one("#start", Button).focus()

    def action_quit(self) -> None:
        """Escape asks first: it also leaves a field or a list, and one press too many
        quit with the names and options typed (ctrl+q quits at once)."""

        def answer(choice: str | None) -> None:
            if choice == "quit":
                self.zapp.action_quit_game()

        self.app.push_screen(QuitScreen("Quit without starting a game?", can_save=False), answer)

    # -- the rule set

    def on_select_changed(self, event: Select.Changed) -> None:
        select_id = event.select.id or ""
        if select_id == "preset" and isinstance(event.value, str):
            if event.value == self.rules.name:
                return  # its first value (the last game's options stay as they were)
            self.rules = load_rules(event.value)
            self.query_one("#summary", Static).update(Text(self.rules.summary))
            for name in OPTIONS:
                self.set_option(name, self.rules.option(name))
        elif select_id.startswith("kind-"):
            i = int(select_id.removeprefix("kind-"))
            field = self.query_one(f"#name-{i}", Input)
            kind = str(event.value)
            if kind == PERSON:
                field.disabled = False
                if field.value.startswith(BOT_PREFIX):
                    field.value = f"Player {i + 1}"
            else:
                field.value = kind
                field.disabled = True

    def on_input_changed(self, event: Input.Changed) -> None:
        """A rule file or spec typed is the game's rule set: the summary says which (the
        preset and its options above no longer count), or why it is not one yet."""
        if event.input.id == "spec":
            self.show_summary(event.value)

    def show_summary(self, typed: str) -> None:
        """The summary of the rule set: the preset's, or the spec typed's."""
        summary = self.query_one("#summary", Static)
        typed = typed.strip()
        if not typed:
            summary.update(Text(self.rules.summary))
            return
        try:
            # read as the start reads it, less the check that its games can end (a keystroke
            # should not wait on it): the start still refuses such a rule set, and says why
            rules = parse_spec(typed)
        except ZloutchError as exc:
            summary.update(Text(f"not a rule set yet: {exc}", style="italic"))
            return
        summary.update(
            Text.assemble(
                (f"target {format_target(rules)}", "bold"),
                " · ",
                summary_text(rules),
                " (typed: the preset and options above are not used)",
            )
        )

    def set_option(self, name: str, value: OptionValue) -> None:
        control = self.query_one(f"#opt-{name}")
        if isinstance(control, Switch):
            control.value = bool(value)
        elif isinstance(control, Select | Input):
            control.value = str(value)

    def option_value(self, name: str) -> OptionValue:
        control = self.query_one(f"#opt-{name}")
        if isinstance(control, Switch):
            return control.value
        if isinstance(control, Select):
            return str(control.value)
        assert isinstance(control, Input)
        text = control.value.strip()
        if not text.lstrip("-").isdigit():
            raise ValueError(f"option {name}: {text!r} is not a whole number")
        return int(text)

    def spec(self) -> str:
        """The rule spec on the screen: the rule file or spec typed, or the preset + options."""
        typed = self.query_one("#spec", Input).value.strip()
        if typed:
            return typed
        preset = self.query_one("#preset", Select).value
        base = load_rules(str(preset))
        changed = []
        for name in OPTIONS:
            value = self.option_value(name)
            if value != base.option(name):
                changed.append(format_option(name, value))
        return f"{preset}({','.join(changed)})" if changed else str(preset)

    # -- players

    def show_players(self) -> None:
        for i in range(MAX_PLAYERS):
            self.query_one(f"#player-{i}").display = i < self.count

    def action_add_player(self) -> None:
        self.count = min(MAX_PLAYERS, self.count + 1)
        self.show_players()
        # the new row in view, its name to type (it was hidden under the start button)
        row = self.query_one(f"#player-{self.count - 1}")
        self.call_after_refresh(row.scroll_visible, animate=False)
        name = self.query_one(f"#name-{self.count - 1}", Input)
        if not name.disabled:
            self.call_after_refresh(name.focus)

    def action_remove_player(self) -> None:
        self.count = max(1, self.count - 1)
        self.show_players()

    def players(self) -> str:
        names = []
        for i in range(self.count):
            kind = str(self.query_one(f"#kind-{i}", Select).value)
            if kind != PERSON:
                names.append(kind)
                continue
            name = self.query_one(f"#name-{i}", Input).value.strip()
            if not name:
                raise ValueError(f"player {i + 1} needs a name")
            if "," in name:
                raise ValueError(f"player {i + 1}: a name cannot hold a comma")
            names.append(name)
        return ",".join(names)

    # -- starting

    def on_button_pressed(self, event: Button.Pressed) -> None:
        button = event.button.id
        if button == "start":
            self.action_start()
        elif button == "add":
            self.action_add_player()
        elif button == "remove":
            self.action_remove_player()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "spec" or (event.input.id or "").startswith("name-"):
            self.action_start()

    def action_start(self) -> None:
        error = self.query_one("#error", Static)
        try:
            spec = self.spec()
            players = self.players()
            dice = self.dice or choose_dice(dice_file=None, seed=None, table_mode=self.table_mode)
            session = Session.new(spec, players, table_mode=self.table_mode, dice=dice)
        except (ZloutchError, ValueError) as exc:
            error.update(Text(f"error: {exc}"))  # under the players: at 80x24 out of sight, so
            self.notify(str(exc), title="Cannot start", severity="error", timeout=10)
            return
        error.update("")
        self.zapp.start_game(session)
