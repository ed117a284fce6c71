"""The review of a finished game: each player's accuracy and biggest mistakes.

The grading is ``zloutch.app.review`` (the same as ``zloutch review``); it runs in a thread so
the screen opens at once, even when a solved game table has to be read first.
"""

from __future__ import annotations

from typing import ClassVar

from rich.markup import escape
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from zloutch.app.review import Review, review_record, win_probability_reason
from zloutch.app.review_words import game_table, review_header
from zloutch.console.review import mistakes_table, summary_table
from zloutch.engine.record import Record
from zloutch.rules import ZloutchError
from zloutch.strategy.game_solver import solved_model


def grade(record: Record) -> Review:
    """The review of a game: in win probability where a solved table is cached, else points."""
    rules = record.rule_set()  # from the record's own rule file when it keeps one
    solution, note = game_table(rules, len(record.players), solve=False)
    model = solved_model(rules)  # the game the solver solves for these rules
    if solution is None and win_probability_reason(rules, len(record.players)) is None and model:
        # dix-mille's sheet is solved as its sheet-blind model: the command solves that
        note += f" (solve it with: zloutch solve --game --rules '{model.spec}')"
    return review_record(record, solution=solution, note=note)


class ReviewScreen(ModalScreen[None]):
    """Each player's accuracy, and the biggest mistakes with the best move and their cost.
    At 80 columns the frame holds 75 inside, beside a scroll bar of one: the players' table
    takes 72 with a name of 10 letters (at 95% wide it had 70, and cut its last column)."""

    DEFAULT_CSS = """
    ReviewScreen { align: center middle; }
    ReviewScreen > VerticalScroll {
        width: 100%; max-width: 120; height: 95%; border: round $accent; background: $surface;
        padding: 0 1; scrollbar-size-vertical: 1;
    }
    ReviewScreen #review-head { margin-bottom: 1; }
    ReviewScreen #review-mistakes { margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,r", "close", "Close")]

    def __init__(self, record: Record) -> None:
        super().__init__()
        self.record = record
        self.review: Review | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("Reviewing the game...", id="review-head")
            yield Static("", id="review-summary")
            yield Static("", id="review-mistakes")
        yield Footer()

    def on_mount(self) -> None:
        self.grade()

    @work(thread=True, exclusive=True)
    def grade(self) -> None:
        try:
            review = grade(self.record)
        except ZloutchError as exc:
            self.app.call_from_thread(self.show_error, str(exc))
            return
        self.app.call_from_thread(self.show, review)

    def show(self, review: Review) -> None:
        self.review = review
        self.query_one("#review-head", Static).update(
            "\n".join(escape(line) for line in review_header(review))
        )
        self.query_one("#review-summary", Static).update(summary_table(review))
        mistakes = self.query_one("#review-mistakes", Static)
        if any(s.mistakes for s in review.summaries):
            mistakes.update(mistakes_table(review))
        else:
            mistakes.update("No mistakes: every decision was as good as the best.")

    def show_error(self, message: str) -> None:
        self.query_one("#review-head", Static).update(
            f"The game cannot be reviewed: {escape(message)}"
        )

    def action_close(self) -> None:
        self.dismiss(None)
