"""What the table shows, in words: pure functions of the session, for the game screen."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from zloutch.app.dice import count_dice
from zloutch.app.session import (
    LogEntry,
    Session,
    busts_words,
    hand_words,
    keep_warning,
    keep_win_words,
    keeps_in_order,
    standing_words,
)
from zloutch.engine import GameState, Joker, Keep, Phase, throw_score
from zloutch.engine.events import Banked, Bumped, Crossed, Farkled, Thrown, Won
from zloutch.engine.game import takeover_busts
from zloutch.rules import Dice, format_dice


def log_text(entry: LogEntry) -> Text:
    """A line of the log, coloured by what happened."""
    style = ""
    if entry.kind == "refused":
        style = "yellow"
    elif entry.kind == "note":
        style = "dim italic"
    elif isinstance(entry.event, Won):
        style = "bold green"
    elif isinstance(entry.event, Banked):
        style = "green"
    elif isinstance(entry.event, Bumped | Crossed):
        style = "bold red"
    elif isinstance(entry.event, Farkled):
        style = "red"
    return Text(entry.text, style=style)


def status_text(session: Session, stopped: str) -> Text:
    """Where the turn stands: who, score, ticks, entry, turn total, dice, confirmation."""
    s = session
    state = s.state
    seat = state.turn.player
    if stopped:
        return Text(stopped, style="bold red")
    if state.phase is Phase.OVER:
        return Text("Game over", style="bold")
    who = s.names[seat] + (" (bot)" if s.is_bot(seat) else "")
    # The dice set aside and the jokers have their own line (aside_text).
    parts = [f"{who} to play", *standing_words(state, seat), *hand_words(state, aside=False)]
    return Text(" · ".join(parts))


def last_throw(session: Session) -> tuple[str, tuple[int, ...]]:
    """The throw that just ended a turn (a farkle), to show it before the next throw."""
    thrown: Thrown | None = None
    for event in session.last_events:
        if isinstance(event, Thrown):
            thrown = event
        if isinstance(event, Farkled) and thrown is not None:
            who = session.names[event.player]
            return f"{who} threw {format_dice(thrown.dice)}: no combination", thrown.dice
    return "", ()


def tray_faces(state: GameState) -> Dice:
    """The dice on the table: the throw to keep from, or the dice left to throw again."""
    if state.phase is Phase.KEEP:
        return state.turn.throw
    if state.phase is Phase.DECIDE:
        return state.turn.left
    return ()


def tray_view(session: Session, stopped: str) -> tuple[Dice, str, bool]:
    """The dice to draw, the caption above them, and whether they are dimmed."""
    s = session
    state = s.state
    t = state.turn
    name = s.names[t.player]
    phase = state.phase
    faces = tray_faces(state)
    dim = False
    bot = s.is_bot(t.player)
    if stopped:  # why: in the status line above, once
        caption = "The game stops here: s saves it, q quits"
    elif phase is Phase.KEEP and bot:  # nothing for the person to select: the bot chooses
        caption = f"{name}'s throw: the bot chooses its keep"
    elif phase is Phase.KEEP:
        caption = f"{name}'s throw: select the dice to keep (1 to {len(faces)}, or click)"
    elif phase is Phase.DECIDE and bot:
        caption = f"Left on the table: {count_dice(len(faces))}; the bot decides"
        dim = True
    elif phase is Phase.DECIDE:
        if t.full_hand:
            caption = f"Full hand: all {count_dice(state.rules.dice)} can be thrown again"
        else:
            caption = f"Left on the table: {count_dice(len(faces))} to throw again"
        if any(isinstance(a, Joker) for a in s.moves()):
            caption += " (select dice for jokers, j)"
        else:
            dim = True
    elif phase is Phase.ROLL:
        caption = f"{name} throws {count_dice(t.rolling)}: type their faces below, Enter"
    elif phase is Phase.START:
        farkle, thrown = last_throw(s)
        if thrown:
            faces, dim = thrown, True
        verb = "t, then type the faces" if s.dice.typed else "t throws"
        start = f"{name} to play: {verb}"
        if bot:
            start = f"{name} to play"
        elif state.offer is not None:
            start = f"{name} to play: x takes over {state.offer.total}, f starts fresh"
        caption = f"{farkle}. {start}" if farkle else start
    else:
        caption = ""
    return faces, caption, dim


def aside_text(session: Session) -> Text:
    """The dice set aside, the jokers, and a take-back offer (G-8)."""
    t = session.state.turn
    parts = []
    if t.set_aside and not (t.full_hand and session.state.phase is Phase.DECIDE):
        parts.append(f"set aside: {format_dice(t.set_aside)}")
    if t.jokers:
        parts.append(f"jokers: {format_dice(t.jokers)}")
    offer, by = session.state.offer, session.state.offered_by
    if offer is not None and by is not None and session.state.phase is Phase.START:
        banker = session.names[by]
        parts.append(f"{banker} banked {offer.total} with {count_dice(offer.dice)} left (G-8)")
        if takeover_busts(session.state):
            parts.append(busts_words(session.state))
    return Text(" · ".join(parts))


def keeps_view(session: Session, chosen: Dice) -> Group:
    """The legal keeps with their points; the selection's points, or why it is no keep. What
    a keep that loses the turn does under an exact target goes under its line, indented: at
    80 columns those words wrap, and they wrapped to the margin, under the keeps' dice."""
    s = session
    state = s.state
    if state.phase is not Phase.KEEP:
        return Group()
    # The selection first: six dice have more keeps than 80x24 shows, and it was below them.
    head = Text("")
    if chosen:
        reason = s.refusal(Keep(chosen))
        if reason is None:
            keep = next(k for k in throw_score(state).keeps if k.dice == chosen)
            head.append(f"Selected {format_dice(chosen)}: {keep.points}, k keeps it\n")
        else:
            head.append(f"Selected {format_dice(chosen)}: {reason}\n", style="yellow")
    elif not s.is_bot(state.turn.player):
        head.append("Nothing selected yet.\n", style="dim")
    head.append("Legal keeps:", style="bold")
    lines: list[RenderableType] = [head]
    for keep in keeps_in_order(state):
        points = "wins the game" if keep.wins else str(keep.points)
        line = f"  {format_dice(keep.dice):<14} {points:>6}"
        if keep.full_hand:
            line += "  full hand"
        lines.append(Text(line, style="reverse" if keep.dice == chosen else ""))
        warning = keep_warning(state, keep)
        if warning:
            lines.append(Padding(Text(warning, style="yellow"), (0, 0, 0, 4)))
        win = keep_win_words(state, keep)
        if win:
            lines.append(Padding(Text(win, style="green"), (0, 0, 0, 4)))
    return Group(*lines)


def worth_saying(state: GameState, name: str) -> bool:
    """Which refusals to spell out under the buttons (the others are in tooltips)."""
    if name == "bank":
        return state.phase is Phase.DECIDE
    if name == "throw":
        return state.phase is Phase.KEEP
    if name in ("take", "fresh"):
        return state.rules.game.take_back and state.phase is Phase.START
    if name == "joker":
        return state.rules.variants.joker and state.phase is Phase.DECIDE
    return False
