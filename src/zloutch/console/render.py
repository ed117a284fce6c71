"""Rich renderings shared by the adapters: the rules of a rule set, the sheet, the ranking.

``zloutch rules show``, ``zloutch record show``, the line mode and the full-screen app all
draw from here, so a rule set or a sheet looks the same wherever it is shown. Nothing here
decides a rule: every value comes from the rule set's data or the engine's state.
"""

from __future__ import annotations

from rich import box
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from zloutch.engine import GameState, Level, PlayerSheet, outcome
from zloutch.rules import OPTIONS, PRESETS, RuleSet, format_dice, kinds_outscored, load_rules
from zloutch.rules.loader import summary_switches
from zloutch.rules.ruleset import FOUR_TWO_ONE, KIND_WORDS, STRAIGHT_OVER_THROWS
from zloutch.rules.scoring import NO_SCORE_BONUS

# ---------------------------------------------------------------------------- rules


def option_meaning(name: str) -> tuple[str, str]:
    """An option's rule ids as shown (``"T-5"``, ``"G-4 Reading"``) and its meaning.

    Both are data of the option (``zloutch.rules.OPTIONS``), never read from source files.
    """
    info = OPTIONS[name]
    return info.rule, info.meaning


def format_value(value: object) -> str:
    if value is True:
        return "on"
    if value is False:
        return "off"
    return str(value)


def format_target(rules: RuleSet) -> str:
    target = f"{rules.game.target:,}"
    return f"exactly {target}" if rules.game.exact_target else f"{target} or more"


def presets_table() -> Table:
    table = Table(title="Preset rule sets", title_justify="left")
    table.add_column("name", no_wrap=True)
    table.add_column("dice", justify="right")
    table.add_column("target", no_wrap=True)
    table.add_column("players", justify="right", no_wrap=True)  # G-1: two alone, for some
    table.add_column("summary")
    for name in PRESETS:
        rules = load_rules(name)
        low, high = rules.game.min_players, rules.game.max_players
        players = str(low) if low == high else f"{low}-{high}"
        table.add_row(name, str(rules.dice), format_target(rules), players, escape(rules.summary))
    return table


def kinds_table(rules: RuleSet) -> Table:
    """Three to six of a kind: the rule as written, and its value for every face."""
    table = Table(title="n of a kind (S-3..S-6, S-11)", title_justify="left")
    table.add_column("count")
    table.add_column("rule")
    for face in range(1, 7):
        table.add_column(f"{face}s", justify="right")
    values = rules.kinds_values()
    better = kinds_outscored(rules)
    written = {kind.count: kind for kind in rules.scoring.kinds}
    for count, word in KIND_WORDS.items():
        if count > rules.dice:
            continue
        kind = written.get(count)
        if kind is None:
            rule = "not a combination"
        else:
            rule = kind.default
            rule += "".join(f"; {face}s: {face_rule}" for face, face_rule in kind.faces)
            if kind.thrown:
                rule += f"; only when exactly {kind.thrown} dice are thrown"
        cells = []
        for face in range(1, 7):
            value = values.get((count, face))
            best = better.get((count, face))
            cell = "-" if value is None else "wins" if value == "win" else str(value)
            cells.append(f"{best}*" if best is not None else cell)
        table.add_row(f"{word} of a kind", escape(rule), *cells)
    if better:
        table.caption = "* " + "; ".join(
            f"{KIND_WORDS[count]} {face}s score {best} split into other combinations "
            f"(S-12), more than the rule's {values[(count, face)]}"
            for (count, face), best in better.items()
        )
        table.caption_justify = "left"
    return table


def combination_rows(rules: RuleSet) -> list[tuple[str, str, str, str]]:
    """Every combination of the rule set but the n of a kind, as plain words: its name, its
    dice, its points and a note (empty where none): ``zloutch rules show``'s combinations,
    the page's rules panel's."""
    s, v = rules.scoring, rules.variants
    rows: list[tuple[str, str, str, str]] = []

    def add(name: str, dice: str, points: str, note: str) -> None:
        rows.append((name, dice, points, note))

    for face, points in s.singles:
        add(f"single {face}", str(face), str(points), "")
    for pattern in s.patterns:
        note = f"only when exactly {pattern.thrown} dice are thrown" if pattern.thrown else ""
        add(pattern.name, format_dice(pattern.faces), str(pattern.points), note)
    if s.three_pairs:
        also = [
            text
            for on, text in (
                (s.four_and_pair_as_three_pairs, "four of a kind + a pair"),
                (s.six_of_a_kind_as_three_pairs, "six of a kind"),
            )
            if on
        ]
        note = f"also counted: {', '.join(also)}" if also else ""
        add("three pairs", "six dice", str(s.three_pairs), note)
    if s.four_and_pair:
        add("four of a kind + a pair", "six dice", str(s.four_and_pair), "")
    if s.two_triplets:
        note = "also counted: six of a kind" if s.six_of_a_kind_as_two_triplets else ""
        add("two triplets", "six dice", str(s.two_triplets), note)
    if s.full_house == "sum":
        formula = f"three + {s.full_house_pair} x pair"
        add("full house", "three + a pair", formula, "S-13, a full hand")
    elif s.full_house == "times":
        add("full house", "three + a pair", "three x pair", "S-14, a full hand")
    if v.four_two_one:
        add("421", "4 2 1", str(FOUR_TWO_ONE), "S-15: exactly three dice thrown, a full hand")
    if v.straights_over_throws:
        one, two = STRAIGHT_OVER_THROWS[1], STRAIGHT_OVER_THROWS[2]
        add("straight over throws", "with 1 / 2 set aside", f"{one} / {two}", "V-6, a full hand")
    if v.multiples_over_throws:
        add(
            "multiple over throws",
            "a later die of it",
            "doubles it",
            f"V-7; a later pair: {s.full_house_pair} x face"
            if v.late_pair
            else "V-7; a later pair: nothing",
        )
    if v.multiples_over_throws and v.multiples_take_all:
        add("", "", "", "V-7: a keep adding to it takes every die of its face")
    if s.no_score_bonus:
        add(NO_SCORE_BONUS, f"all {rules.dice} dice", str(s.no_score_bonus), "F-2: throw again")
    return rows


def combinations_table(rules: RuleSet) -> Table:
    """Every other combination of the rule set, with its points."""
    rows = [tuple(Text(cell) for cell in row) for row in combination_rows(rules)]  # no markup
    notes = any(row[-1] for row in rows)
    table = Table(title="Combinations", title_justify="left")
    table.add_column("combination")
    table.add_column("dice")
    table.add_column("points", justify="right")
    if notes:
        table.add_column("note")
    for row in rows:
        table.add_row(*(row if notes else row[:-1]))
    return table


OPTIONS_WIDE = 110
"""The width from which an options table has a column for the meaning: narrower (80
columns), the meaning goes under the option's name, else it was squeezed to a word a line."""


class OptionsTable:
    """The options of one section: rule id, name, value (``*`` = switched by the spec) and
    meaning, laid out for the width it is drawn at."""

    def __init__(self, rules: RuleSet, section: str, title: str) -> None:
        self.rules, self.section, self.title = rules, section, title

    def table(self, width: int) -> Table:
        rules = self.rules
        switched = {name for name, _ in rules.options}
        wide = width >= OPTIONS_WIDE
        table = Table(title=self.title, title_justify="left")
        table.add_column("rule", no_wrap=wide)
        table.add_column("option" if wide else "option: meaning", no_wrap=wide)
        table.add_column("value", no_wrap=True)
        if wide:
            table.add_column("meaning")
        for name, info in OPTIONS.items():
            if info.section != self.section:
                continue
            value = format_value(rules.option(name)) + (" *" if name in switched else "")
            if wide:
                table.add_row(info.rule, name, value, escape(info.meaning))
            else:
                cell = Text(name, style="bold")
                cell.append("\n" + info.meaning, style="dim")
                table.add_row(info.rule, cell, value)
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.table(options.max_width)


def options_table(rules: RuleSet, section: str, title: str) -> OptionsTable:
    """The options of one section (``OptionsTable``)."""
    return OptionsTable(rules, section, title)


def summary_text(rules: RuleSet) -> Text:
    """A rule set's name and summary, with what the summary's words leave out: the options
    a spec switches after them, or that they are another rule set's (``zloutch rules
    show``'s first line, the new-game screen's)."""
    summary = escape(rules.summary)
    left_out = summary_switches(rules)  # the summary is the rule file's words, before options
    if summary and left_out is None:  # (a rule file without a summary has no words to note)
        summary += f" [dim](the words of {escape(rules.name)}, whose rules these are not)[/]"
    elif summary and left_out is not None and left_out.options:
        switched = ", ".join(f"{n}={format_value(v)}" for n, v in left_out.options)
        these = (
            "the spec switches" if left_out.preset is None else f"these rules are {rules.name} with"
        )
        summary += f" [dim](as written; {these} {escape(switched)})[/]"
    # a rule file without a summary: its name alone, no colon left hanging
    return Text.from_markup(f"[bold]{escape(rules.name)}[/]" + (f": {summary}" if summary else ""))


def rules_renderables(rules: RuleSet) -> list[RenderableType]:
    """Everything ``zloutch rules show`` prints about a rule set, in order."""
    parts: list[RenderableType] = [
        summary_text(rules),
        Text(f"dice: {rules.dice}    target: {format_target(rules)}"),
        Text(f"spec: {rules.spec}"),
        Text(""),
        combinations_table(rules),
        kinds_table(rules),
        options_table(rules, "scoring", "Scoring and keep rules"),
        options_table(rules, "turn", "Turn rules"),
        options_table(rules, "game", "Game rules"),
        options_table(rules, "variants", "Variants"),
    ]
    if rules.options:
        parts.append(Text("* switched by the spec"))
    return parts


# ---------------------------------------------------------------------------- the sheet

TICK = "/"
"""How a tick looks beside a level, as on paper."""

Change = str
"""How a level changed in the last move: ``new``, ``crossed`` or ``ticked``."""


def sheet_changes(before: GameState, after: GameState) -> dict[tuple[int, int], Change]:
    """The levels that changed between two states, by (seat, index): what to highlight."""
    changes: dict[tuple[int, int], Change] = {}
    for seat, (old, new) in enumerate(zip(before.sheets, after.sheets, strict=True)):
        for i, level in enumerate(new.levels):
            if i >= len(old.levels):
                changes[(seat, i)] = "new"
            elif level.crossed and not old.levels[i].crossed:
                changes[(seat, i)] = "crossed"
            elif level.ticks != old.levels[i].ticks:
                changes[(seat, i)] = "ticked"
    return changes


_CHANGE_STYLES = {"new": "bold green", "crossed": "bold red", "ticked": "bold yellow"}


def level_label(level: Level) -> str:
    """A level as written on the sheet: its value, ``pp``, and its ticks beside it."""
    label = str(level.value)
    if level.pp:
        label += " pp"
    if level.ticks:
        label += " " + TICK * level.ticks
    return label


def level_text(
    level: Level, *, current: bool, change: Change | None = None, words: bool = False
) -> Text:
    """A level as the sheet shows it: crossed struck through, the current one bold;
    ``words``: a crossed level also says so (" crossed"), where no style is drawn (a pipe,
    a screen reader)."""
    style = "strike dim" if level.crossed else "bold" if current else ""
    if change is not None:
        style = f"{style} {_CHANGE_STYLES[change]}".strip()
    label = level_label(level) + (" crossed" if words and level.crossed else "")
    return Text(label, style=style)


def seat_mark(state: GameState, seat: int) -> str:
    """Beside a player's name on the sheet: `` *`` a winner, `` <`` whose turn it is."""
    if seat in state.winners:
        return " *"
    return " <" if not state.winners and seat == state.turn.player else ""


def loose_score(sheet: PlayerSheet) -> str:
    """A player's score, with the ticks that stand with no level beside them (G-3
    Reading): under the column of the sheet, beside the score in a row."""
    if sheet.current_index is None and sheet.current_ticks:
        return f"{sheet.score} {TICK * sheet.current_ticks}"
    return str(sheet.score)


def sheet_table(
    state: GameState,
    changes: dict[tuple[int, int], Change] | None = None,
    *,
    title: str | None = None,
    compact: bool = False,
    words: bool = False,
    last: int | None = None,
) -> Table:
    """The paper sheet: one column per player, levels under each other, crossed struck through.

    The player whose turn it is has a marker; winners a star; ``changes`` highlights the
    levels the last move wrote, ticked or crossed (bumps and fall-backs show in red).
    ``compact`` draws only the lines between the columns and under the names, for the side
    of an 80-column screen (three players fit in 30 columns). ``words``: a crossed level
    says so, for an output with no styles (see ``level_text``). ``last``: the rows of levels
    there is room for (at least 1): a longer sheet shows its last levels under a row of ⋮
    (only the ⋮ where there is room for one row), its names and its scores always in view
    (scrolled, it hid whose column was whose).
    """
    changes = changes or {}
    rows = max((len(s.levels) for s in state.sheets), default=0)
    first = 0 if last is None or rows <= last else rows - max(last, 1) + 1
    table = Table(
        title=title,
        title_justify="left",
        # No level yet: the scores are the only row (a footer under no rows drew two rules)
        show_footer=rows > 0,
        expand=False,
        box=box.MINIMAL if compact else box.HEAVY_HEAD,  # HEAVY_HEAD: Rich's default
        show_edge=not compact,
    )
    for seat, sheet in enumerate(state.sheets):
        mark = seat_mark(state, seat)
        table.add_column(
            Text(sheet.name + mark, style="bold" if mark else ""),
            footer=Text(loose_score(sheet), style="bold"),
            justify="right",
            min_width=6 if compact else 8,
        )
    if not rows:
        table.add_row(*(Text(loose_score(sheet), style="bold") for sheet in state.sheets))
    if first:
        table.add_row(*(Text("⋮", style="dim") for _ in state.sheets))
    for i in range(first, rows):
        cells: list[Text] = []
        for seat, sheet in enumerate(state.sheets):
            if i < len(sheet.levels):
                current = sheet.current_index == i
                cells.append(
                    level_text(
                        sheet.levels[i],
                        current=current,
                        change=changes.get((seat, i)),
                        words=words,
                    )
                )
            else:
                cells.append(Text(""))
        table.add_row(*cells)
    return table


def scores_table(
    state: GameState,
    changes: dict[tuple[int, int], Change] | None = None,
    *,
    title: str | None = None,
) -> Table:
    """The sheet a row a player, for a side too narrow for its columns (four players or
    more at 80 columns): each player's current level, its ticks, its last change in colour;
    the whole sheet is ``sheet_table``."""
    changes = changes or {}
    table = Table(
        title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1)
    )
    table.add_column("player", no_wrap=True, max_width=16)
    table.add_column("score", justify="right", no_wrap=True)
    for seat, sheet in enumerate(state.sheets):
        mark = seat_mark(state, seat)
        i = sheet.current_index
        if i is None:
            score = Text(loose_score(sheet))
        else:
            score = level_text(sheet.levels[i], current=True, change=changes.get((seat, i)))
        table.add_row(
            Text(sheet.name + mark, style="bold" if mark else "", overflow="ellipsis"), score
        )
    return table


def ranking_rows(state: GameState) -> list[tuple[int, str, int, int, int, bool]]:
    """(rank, name, score, kicks given, kicks taken, winner) best first (G-9)."""
    result = outcome(state)
    if result is None:
        return []
    kicks = {seat: (given, taken) for seat, given, taken in result.kicks}
    return [
        (
            rank,
            state.sheets[seat].name,
            state.sheets[seat].score,
            *kicks[seat],
            seat in result.winners,
        )
        for seat, rank in result.ranking
    ]


def ranking_table(state: GameState) -> Table:
    """The final ranking and the sailors' kicks table (G-9)."""
    table = Table(title="Ranking and kicks (G-9)", title_justify="left")
    table.add_column("rank", justify="right")
    table.add_column("player")
    table.add_column("score", justify="right")
    table.add_column("kicks given", justify="right")
    table.add_column("kicks taken", justify="right")
    for rank, name, score, given, taken, won in ranking_rows(state):
        style = "bold green" if won else ""
        table.add_row(str(rank), Text(name), str(score), str(given), str(taken), style=style)
    return table


def throw_text(dice: tuple[int, ...]) -> str:
    return format_dice(dice) if dice else "-"
