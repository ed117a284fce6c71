"""Every text the engine and the rules can say is known to the French catalog, and the
catalog itself is sound (``zloutch.adapters.web.i18n``, ``locale/fr/LC_MESSAGES``)."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations
from typing import Any

import pytest
from babel.messages.pofile import read_po
from hypothesis import given
from hypothesis import strategies as st

from zloutch.adapters.web.i18n import (
    LANGUAGES,
    LOCALE,
    UnknownLanguageError,
    catalog,
    negotiate,
    placeholders,
    translate,
    translate_event,
    ui_catalog,
)
from zloutch.adapters.web.protocol import event_json, preset_title, rules_json
from zloutch.app.review import WIN, Review, review_record, situation_words
from zloutch.app.review_words import game_table, review_header
from zloutch.engine import (
    Action,
    Bank,
    Fresh,
    GameState,
    Joker,
    Keep,
    Off,
    Phase,
    Roll,
    Take,
    Throw,
    legal_actions,
    new_game,
    parse_action,
    sample_roll,
    step,
    throw_score,
    why_illegal,
)
from zloutch.engine.record import Record
from zloutch.rules import OPTIONS, PRESETS, RuleSet, ZloutchError, load_rules

# Names with spaces, an apostrophe, "and", "'s" and digits: they must come through whole.
NAMES = ("Ana", "Jean-Luc Bob", "Zoé d'Arc", "Al and Sam's 2")

OPTION_SPECS = (
    "dix-mille(target=3000)",
    "dix-mille(target=2000,joker,confirmation)",
    "dix-mille(target=2000,four_two_one,straights_over_throws)",
    "dix-mille(target=2000,multiples_over_throws,bump=any,fallback_bumps)",
    "dix-mille(target=2000,final_round,take_back_counts_for_entry,reentry)",
    "dix-mille(target=2000,last_thousand,entry_by=throw,entry=300)",
    "dix-mille(target=2000,full_hand=optional,keep_whole_multiples,ticks_to_cross=2)",
    "dix-mille(target=2000,keep_all_scoring,full_hand_win,full_hand_win_from=300)",
    "dix-mille(target=2000,joker,joker_keeps_points=false)",
    "cinq-mille(target=2000,farkle_penalty=500,farkle_penalty_after=2)",
    "zilch(target=2000)",
    "farkle(target=2000)",
    "greed(target=1500)",
    "impair(target=3000)",
    "dix-mille-6(target=3000,entry=300)",
    "dix-mille-6(target=2000,entry=300,confirmation)",
    "dix-mille-6(target=2000,entry=300,four_and_pair=1500,two_triplets=2500)",
    "charentaise(target=2000)",
)

TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
"""The languages with catalogs: each must know every text the engine says."""

ONLY_NUMBERS = re.compile(r"[0-9 .,/:()+x-]*")


@dataclass
class Said:
    """What the engine said over the games: the texts, by what said them."""

    events: dict[str, dict[str, Any]] = field(default_factory=dict)
    """An event's text -> its JSON, as the server writes it to an English socket."""
    refusals: set[str] = field(default_factory=set)
    combinations: set[str] = field(default_factory=set)
    kinds: Counter[str] = field(default_factory=Counter)


def candidates(state: GameState) -> Iterator[Action]:
    """Actions to ask ``why_illegal`` about: every kind, legal or not, with dice that are on
    the table, that are not, too many and too few."""
    t = state.turn
    yield from (Throw(), Bank(), Take(), Fresh(), Off())
    subsets = {
        tuple(sorted(c)) for r in range(1, len(t.throw) + 1) for c in combinations(t.throw, r)
    }
    for dice in subsets:
        yield Keep(dice)
        yield Joker(dice)
    for face in range(1, 7):
        yield Keep((face,))
        yield Keep((face, face))
        yield Keep((face,) * 3)
        yield Joker((face, face))
    rolling = max(t.rolling, 1)
    yield Roll((1,) * rolling)
    yield Roll((2,) * (rolling + 1))
    yield Roll((9,) * rolling)


def choose(state: GameState, rng: random.Random) -> Action:
    """A random legal move that banks more often than not, so that games reach their end."""
    if state.phase is Phase.ROLL:
        return sample_roll(state, rng)
    legal = legal_actions(state)
    if state.table_mode and state.phase is Phase.KEEP and rng.random() < 0.05:
        return Off()
    if Bank() in legal and rng.random() < 0.6:
        return Bank()
    return rng.choice([a for a in legal if not isinstance(a, Off)] or legal)


def play(rules: RuleSet, seed: int, said: Said, *, table_mode: bool, moves: int) -> None:
    rng = random.Random(seed)
    players = rng.randint(rules.game.min_players, min(rules.game.max_players, len(NAMES)))
    state = new_game(rules, NAMES[:players], table_mode=table_mode)
    for _ in range(moves):
        for action in candidates(state):
            reason = why_illegal(state, action)
            if reason is not None:
                said.refusals.add(reason)
        if state.phase is Phase.KEEP:
            for keep in throw_score(state).scoring:
                said.combinations.update(c.name for c in keep.combinations)
        if state.phase is Phase.OVER:
            return
        state, events = step(state, choose(state, rng))
        for event in events:
            said.events[event.describe(state.names)] = event_json(event, state.names)
            said.kinds[type(event).__name__] += 1


@cache
def said_in_games(games: int, moves: int) -> Said:
    said = Said()
    specs = (*PRESETS, *OPTION_SPECS)
    for i in range(games):
        rules = load_rules(specs[i % len(specs)])
        play(rules, i, said, table_mode=i % 5 == 4, moves=moves)
    return said


def numbers(text: str) -> Counter[str]:
    return Counter(re.findall(r"[0-9]+", text))


def assert_translated(
    text: str, lang: str, names: tuple[str, ...] = (), french: str | None = None
) -> None:
    french = translate(text, lang) if french is None else french
    if ONLY_NUMBERS.fullmatch(text):
        assert french == text
        return
    assert french != text, f"not translated: {text!r}"
    missing = numbers(text) - numbers(french)
    for name in names:
        if name in text:
            assert name in french, f"{name!r} lost in {french!r} (from {text!r})"
            missing -= numbers(name)
    assert not missing, f"{french!r} lost the numbers {sorted(missing)} of {text!r}"


# -------------------------------------------------------------------------- the catalogs


def po_messages(domain: str, lang: str) -> list[tuple[str, str, str | None, bool]]:
    with (LOCALE / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as f:
        po = read_po(f)
    assert po.locale is not None and str(po.locale) == lang
    return [(m.id, m.string, m.context, m.fuzzy) for m in po if m.id]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_engine_catalog_parses_and_has_no_fuzzy_or_empty_entry(lang: str) -> None:
    messages = po_messages("engine", lang)
    assert len(messages) > 100
    for msgid, msgstr, _, fuzzy in messages:
        assert isinstance(msgid, str) and isinstance(msgstr, str), msgid
        assert msgstr.strip(), f"empty: {msgid!r}"
        assert not fuzzy, f"fuzzy: {msgid!r}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_msgstr_has_the_placeholders_of_its_msgid(lang: str) -> None:
    for msgid, msgstr, _, _ in po_messages("engine", lang):
        assert sorted(placeholders(msgstr)) == sorted(placeholders(msgid)), msgid


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_ui_catalog_parses_and_is_sent_as_it_is(lang: str) -> None:
    messages = po_messages("ui", lang)
    assert ui_catalog(lang) == {msgid: msgstr for msgid, msgstr, ctx, _ in messages if not ctx}
    assert ui_catalog("en") == {}


def test_an_unknown_language_is_a_one_line_error() -> None:
    with pytest.raises(UnknownLanguageError, match=r"^unknown language 'de': the languages are"):
        translate("the game is over", "de")
    with pytest.raises(UnknownLanguageError):
        ui_catalog("xx")


# -------------------------------------------------------------------------- what is said


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_text_the_engine_says_in_seeded_games_is_translated(lang: str) -> None:
    said = said_in_games(games=len(PRESETS) + len(OPTION_SPECS), moves=400)
    # The games went where the rare texts are said.
    for kind in ("Won", "Banked", "Farkled", "Ticked", "Crossed", "Bumped", "TookBack"):
        assert said.kinds[kind], kind
    assert {"Jokered", "Confirmed", "Entered", "Penalised"} <= set(said.kinds)
    for text, event in said.events.items():
        assert_translated(text, lang, NAMES, translate_event(event, lang, NAMES)["text"])
    assert len(said.refusals) > 30
    for text in said.refusals:
        assert_translated(text, lang)
    for name in said.combinations:
        assert_translated(name, lang)


@pytest.mark.slow
@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_text_the_engine_says_in_many_seeded_games_is_translated(lang: str) -> None:
    said = said_in_games(games=10 * (len(PRESETS) + len(OPTION_SPECS)), moves=1000)
    assert {"FinalRound", "Penalised", "Jokered"} <= set(said.kinds)
    for text, event in said.events.items():
        assert_translated(text, lang, NAMES, translate_event(event, lang, NAMES)["text"])
    for text in said.refusals | said.combinations:
        assert_translated(text, lang)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_refusal_of_typed_actions_is_translated(lang: str) -> None:
    for typed in ("", "keep", "keep x", "keep 1 1 1 1 1 1 1", "bank 5", "dance", "roll"):
        with pytest.raises(ZloutchError) as caught:
            parse_action(typed)
        assert_translated(str(caught.value), lang)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_option_meaning_and_preset_summary_is_translated(lang: str) -> None:
    for info in OPTIONS.values():
        assert_translated(info.meaning, lang)
    for name in PRESETS:
        assert_translated(load_rules(name).summary, lang)


COMBINATION_SPECS = (
    *PRESETS,  # charentaise's full house: three x pair
    "farkle(six_of_a_kind_as_three_pairs,six_of_a_kind_as_two_triplets)",
    "dix-mille(full_house=sum)",
    "dix-mille(full_house=times)",
    "impair(four_two_one)",
    "dix-mille(straights_over_throws)",
    "dix-mille(multiples_over_throws)",
    "dix-mille(multiples_over_throws,late_pair=false)",
    "dix-mille(multiples_over_throws,multiples_take_all)",
)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_rules_panels_combinations_are_listed_and_translated(lang: str) -> None:
    """The rules panel lists the combinations that are no n of a kind (its scores table
    had none: straights went unsaid), every word of them in the language."""
    dix = rules_json(load_rules("dix-mille"))["combinations"]
    assert [(c["name"], c["dice"], c["points"]) for c in dix] == [
        ("straight 1-5", "1 2 3 4 5", "1500"),
        ("straight 2-6", "2 3 4 5 6", "1500"),
    ]
    for spec in COMBINATION_SPECS:
        english = rules_json(load_rules(spec))["combinations"]
        assert english or spec in ("farkle-minimal", "greed"), spec  # n of a kind alone
        french = rules_json(load_rules(spec), lang)["combinations"]
        for row, translated in zip(english, french, strict=True):
            for key in ("name", "note"):
                if row[key]:
                    assert_translated(row[key], lang, french=translated[key])
            for key in ("dice", "points"):  # faces and figures as they are, words translated
                if any(ch.isalpha() for ch in row[key]):
                    assert_translated(row[key], lang, french=translated[key])


def test_a_preset_title_is_translated_where_french_says_it_otherwise() -> None:
    assert translate(preset_title("dix-mille"), "fr") == "Dix mille"
    assert translate(preset_title("dix-mille-6"), "fr") == "Dix mille à six dés"


# -------------------------------------------------------------------------- the matching


@given(
    st.sampled_from(NAMES) | st.text(min_size=1, max_size=12).filter(lambda s: s.strip() == s),
    st.integers(0, 20000),
    st.integers(0, 20000),
)
def test_names_and_numbers_come_through_as_they_are(name: str, total: int, level: int) -> None:
    english = f"{name} banks {total}: new level {level}"
    assert translate(english, "fr") == f"{name} marque {total} : nouveau palier {level}"
    with_pp = f"{name} banks {total}: new level {level} (pp)"
    assert translate(with_pp, "fr") == f"{name} marque {total} : nouveau palier {level} (pp)"


def test_words_inside_texts_are_translated_by_their_context() -> None:
    assert translate("three 4s", "fr") == "brelan de 4"
    assert translate("there are only two 5s in the throw 1 5 5", "fr") == (
        "il n'y a que deux 5 dans le lancer 1 5 5"
    )
    assert translate("Ana and Bob won", "fr") == "Partie gagnée par Ana et Bob"
    assert translate("keep: 'x' is not a die face: faces are 1 to 6", "fr") == (
        "keep : 'x' n'est pas une face de dé : les faces vont de 1 à 6"
    )


def test_english_and_unknown_texts_are_returned_as_they_are() -> None:
    assert translate("Ana keeps 1 5 for 150 (turn total 150)", "en") == (
        "Ana keeps 1 5 for 150 (turn total 150)"
    )
    assert translate("something no engine says", "fr") == "something no engine says"
    assert catalog("en").templates == ()


def test_the_winners_are_read_from_the_event_when_the_names_are_known() -> None:
    names = ("Al and Sam", "Bo")
    event = {"type": "Won", "player": 0, "winners": [0, 1], "text": "Al and Sam and Bo won"}
    assert translate_event(event, "fr", names)["text"] == "Partie gagnée par Al and Sam et Bo"
    assert translate_event(event, "en", names) == event


def test_translate_event_copies_the_event_with_its_text_in_the_language() -> None:
    event = {"type": "Kept", "player": 0, "dice": [1, 5], "points": 150, "text": "Ana keeps 1 5"}
    event["text"] = "Ana keeps 1 5 for 150 (turn total 150)"
    french = translate_event(event, "fr")
    assert french == {**event, "text": "Ana garde 1 5 pour 150 (total du tour 150)"}
    assert event["text"].startswith("Ana keeps")


@pytest.mark.parametrize(
    ("header", "requested", "chosen"),
    [
        (None, None, "en"),
        ("fr-FR,fr;q=0.9,en;q=0.8", None, "fr"),
        ("de-DE, en;q=0.5, fr;q=0.7", None, "fr"),
        ("de, it", None, "en"),
        ("fr;q=0, en", None, "en"),
        ("fr;q=oops, en;q=0.1", None, "en"),
        ("en-GB", "fr", "fr"),
        ("fr", "xx", "fr"),
        ("*", None, "en"),
    ],
)
def test_negotiate_takes_the_request_then_the_header_then_english(
    header: str | None, requested: str | None, chosen: str
) -> None:
    assert negotiate(header, requested) == chosen
    assert chosen in LANGUAGES


@pytest.mark.parametrize("lang", TRANSLATED)
def test_an_undo_at_a_real_table_is_said_in_the_language(lang: str) -> None:
    from types import SimpleNamespace

    from zloutch.adapters.web.protocol import undone_json

    played = SimpleNamespace(undone=("keep 1 5", "throw"))
    english = undone_json(played)[0]["text"]  # type: ignore[arg-type]
    assert english == "undone: keep 1 5, then throw"
    french = undone_json(played, lang)[0]["text"]  # type: ignore[arg-type]
    assert french == "annulé : garder 1 5, puis lancer"  # it said "annulé: keep 1 5, puis throw"
    typed = SimpleNamespace(undone=("roll 2 5 5",))
    assert undone_json(typed)[0]["text"] == "undone: throw 2 5 5"  # type: ignore[arg-type]
    assert undone_json(typed, lang)[0]["text"] == "annulé : lancer 2 5 5"  # type: ignore[arg-type]
    for refusal in ("there is nothing to undo", "undo exists only at a real table (real dice)"):
        assert_translated(refusal, lang)


# -------------------------------------------------------------------------- the review


def reviewed_game(spec: str, seed: int, players: int, *, solve: bool = False) -> Review:
    """A game of random moves (at most 100), reviewed as the server reviews one."""
    rules = load_rules(spec)
    rng = random.Random(seed)
    state = new_game(rules, NAMES[:players], table_mode=seed % 5 == 4)
    actions: list[Action] = []
    while state.phase is not Phase.OVER and len(actions) < 100:
        action = choose(state, rng)
        actions.append(action)
        state, _ = step(state, action)
    record = Record(rules.spec, NAMES[:players], table_mode=state.table_mode)
    solution, note = game_table(rules, players, solve=solve)
    return review_record(record.extended(actions), solution=solution, note=note)


def review_texts(review: Review) -> Iterator[str]:
    yield from review_header(review)
    for decision in review.decisions:
        yield situation_words(decision)
        yield decision.chosen.words
        yield decision.best.words
        yield from (option.action for option in decision.options)  # the hint's words


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_text_of_a_review_is_translated(lang: str) -> None:
    """The review's paragraph and its table (the web's end of game) in the language: every
    preset and option set, two and three players, finished and not."""
    specs = (*PRESETS, *OPTION_SPECS[::2], "farkle-minimal(target=500)", "greed(target=500)")
    texts: set[str] = set()
    for seed, spec in enumerate(specs):
        rules = load_rules(spec)
        players = 3 if seed % 3 == 2 and rules.game.max_players >= 3 else 2
        texts.update(review_texts(reviewed_game(spec, seed, players)))
    joined = "\n".join(texts)
    for words in ("not finished.", "won.", "solved for two players", "does not model", "bank "):
        assert words in joined, words
    for text in texts:
        assert_translated(text, lang, NAMES)


@pytest.mark.xdist_group("sim-kernels")  # the game solver's kernels: tests/conftest.py
@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_review_in_win_probability_is_translated(lang: str) -> None:
    solved = reviewed_game("farkle-minimal(target=500)", 3, 2, solve=True)
    assert solved.objective == WIN
    cached = reviewed_game("farkle-minimal(target=500)", 4, 2)
    assert cached.objective == WIN
    header = [*review_header(solved), *review_header(cached)]
    assert "cached" in header[1] + header[4] and "chance to win" in header[2]
    for line in header:
        assert_translated(line, lang, NAMES)
    assert translate(header[2], lang) == (
        "Une décision est juste quand elle coûte moins de 0,1 % de la chance de gagner."
    )


def test_the_hints_notes_on_the_target_are_in_french() -> None:
    from zloutch.app.hints import WINS_NOTE

    assert translate(WINS_NOTE, "fr").startswith("marquer gagne la partie (G-2)")
    last = (
        "banking reaches the target and starts the last turns (F-4): these values count the "
        "turn, not the game"
    )
    assert translate(last, "fr").startswith("marquer atteint le but et ouvre les derniers tours")
    below = (
        "banking ends this last turn (F-4) at 1050, below 1500: it cannot win; these values "
        "count the turn, not the game"
    )
    assert translate(below, "fr").startswith("marquer termine ce dernier tour (F-4) à 1050, sous")
    keep = "keep 1 1, then bank: it wins the game; these values count the turn, not the game"
    assert translate(keep, "fr").startswith("gardez 1 1, puis marquez : cela gagne la partie")


def test_the_hints_note_of_a_sheet_blind_model_is_in_french() -> None:
    note = "chances of the game solved without ticks, bumps, take-back, read {how}"
    french = translate(note.format(how="one turn ahead on the sheet"), "fr")
    assert french == (
        "chances de la partie résolue sans les barres, les paliers rejoints, la reprise, lues "
        "avec un tour d'avance sur la feuille"
    )
    french = translate(note.format(how="by the banked scores"), "fr")
    assert french.endswith("lues d'après les scores marqués")


def test_the_summary_of_a_file_that_extends_a_preset_is_in_french() -> None:
    """A rule file under a name of its own, with no summary, says what it starts from (the
    base's words described a table it changed): in French on a French page."""
    from zloutch.engine.record import rules_from_text

    rules = rules_from_text('[rules]\nextends = "farkle"\nname = "mine"\n')
    assert rules.summary == "starts from farkle"
    assert translate(rules.summary, "fr") == "à partir de farkle"
    assert translate("starts from ../tables/my base.toml", "fr") == (
        "à partir de ../tables/my base.toml"
    )


@pytest.mark.parametrize(
    ("english", "french"),
    [
        (
            "target: expected a whole number, got '1e3'",
            "target : un nombre entier est attendu, et non '1e3'",
        ),
        ("farkle-minimal is played by exactly 2 players, not 3", "farkle-minimal se joue à 2"),
        ("greed is played by 2 to 8 players, not 9", "greed se joue de 2 à 8 joueurs, et non 9"),
        ("a bot's pace is a number of seconds from 0 to 60", "l'attente d'un robot est un"),
    ],
)
def test_the_lobbys_refusals_of_a_new_game_are_in_french(english: str, french: str) -> None:
    """What the lobby is refused with (a number that is no whole number, too many players
    for the rules, a bot's wait out of range) came in English on a French page."""
    assert translate(english, "fr").startswith(french)
