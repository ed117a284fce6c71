"""Checking a rule set: refuse the rules that cannot mean anything together.

``validate`` runs on every rule set the loader builds and on every change of options; it
names the key and the reason of the first contradiction it finds.
"""

from __future__ import annotations

import math
from collections.abc import Collection

from zloutch.rules.dice import Dice, format_dice
from zloutch.rules.errors import InvalidRulesError, excerpt
from zloutch.rules.ruleset import (
    KIND_WORDS,
    OPTIONS,
    RuleSet,
    format_option,
    needs_words,
    resolve_kinds,
)
from zloutch.rules.scoring import throw_extremes
from zloutch.rules.values import MAX_POINTS


def validate(rules: RuleSet) -> None:
    """Refuse what the rules cannot mean together, naming the key and the reason.

    Whether every game of a rule set can end is the engine's to say, from its compiled turn
    (``zloutch.engine.endings``): its ``load_rules`` checks that too.
    """
    s, t, g, v = rules.scoring, rules.turn, rules.game, rules.variants
    dice = rules.dice
    try:
        kinds = resolve_kinds(s.kinds, g.five_ones_win, dice)
    except ValueError as exc:
        raise InvalidRulesError(str(exc), "scoring.kinds") from None
    for (count, face), value in kinds.items():
        if value != "win" and value > MAX_POINTS:
            raise InvalidRulesError(
                f"{KIND_WORDS[count]} {face}s would be worth {value}: a combination is worth at "
                f"most {MAX_POINTS}",
                f"scoring.kinds.{count}",
            )
    for kind in s.kinds:
        if kind.count > dice:
            raise InvalidRulesError(
                f"{KIND_WORDS[kind.count]} of a kind cannot be thrown with {dice} dice",
                f"scoring.kinds.{kind.count}",
            )
    if not _anything_scores(rules):
        raise InvalidRulesError(
            "nothing can ever score: no single die scores (singles), no multiple "
            "([scoring.kinds]), no pattern and no other combination, so every throw would be "
            "a farkle",
            "scoring",
        )
    same_faces: dict[Dice, int] = {}
    for j, pattern in enumerate(s.patterns):
        faces = tuple(sorted(pattern.faces))
        i = same_faces.setdefault(faces, j)
        if i != j:
            raise InvalidRulesError(
                f"{excerpt(pattern.name)} has the same faces ({format_dice(faces)}) as "
                f"scoring.patterns[{i}] {excerpt(s.patterns[i].name)}: one set of faces can be "
                "only one pattern, with one value",
                f"scoring.patterns[{j}]",
            )
    for kind in s.kinds:
        if kind.thrown and not kind.count <= kind.thrown <= dice:
            raise InvalidRulesError(
                f"{KIND_WORDS[kind.count]} of a kind counts only when {kind.thrown} dice are "
                f"thrown, this rule set has {dice}",
                "scoring.kinds",
            )
    for pattern in s.patterns:
        if pattern.thrown > dice:
            raise InvalidRulesError(
                f"{pattern.name} counts only when {pattern.thrown} dice are thrown, "
                f"this rule set has {dice}",
                "scoring.patterns",
            )
        if len(pattern.faces) > dice:
            raise InvalidRulesError(
                f"{pattern.name} needs {len(pattern.faces)} dice, this rule set has {dice}",
                "scoring.patterns",
            )
    for key in ("three_pairs", "four_and_pair", "two_triplets"):
        if getattr(s, key) and dice < 6:
            raise InvalidRulesError(f"needs six dice, this rule set has {dice}", f"scoring.{key}")
    if s.full_house != "off" and dice < 5:
        raise InvalidRulesError(
            f"a full house needs five dice, this rule set has {dice}", "scoring.full_house"
        )
    if s.full_house != "off" and not any(
        count == 3 and isinstance(points, int) and points > 0
        for (count, _), points in _kinds_or_none(rules).items()
    ):
        raise InvalidRulesError(
            "a full house is scored from its three of a kind (S-13, S-14), and no three of a "
            'kind is worth points here: give them a value in [scoring.kinds] (3 = "100 x '
            'face"), or switch the full house off (full_house = "off")',
            "scoring.full_house",
        )
    if s.full_house_pair < 1 and (s.full_house == "sum" or v.late_pair_scores):
        # 0 made a combination worth nothing: under V-7 a later pair kept for 0 points
        # turned a farkle into a full hand.
        raise InvalidRulesError(
            f"a pair worth {s.full_house_pair} x its face counts for nothing: give a "
            "multiple of at least 1 (full_house = sum, S-13; V-7's later pair), or switch "
            "them off",
            "scoring.full_house_pair",
        )
    if g.target <= 0:
        raise InvalidRulesError("the target must be positive", "game.target")
    if g.exact_target and g.target % rules.unit:
        raise InvalidRulesError(
            f"{g.target} cannot be reached exactly with points in steps of {rules.unit}",
            "game.target",
        )
    if g.exact_target:
        _check_exact_target(rules)
    if g.final_round and g.final_turns:
        raise InvalidRulesError(
            "final_round (G-6) and final_turns (F-4) are two different endings: choose one",
            "game.final_turns",
        )
    if g.min_players < 1 or g.max_players > 8 or g.min_players > g.max_players:
        raise InvalidRulesError(
            "players must satisfy 1 <= min_players <= max_players <= 8", "game.max_players"
        )
    if g.last_thousand and g.target <= 1000:
        raise InvalidRulesError(
            "the last 1000 in one turn (G-7) needs a target above 1000", "game.last_thousand"
        )
    if g.five_ones_win and dice < 5:
        raise InvalidRulesError(f"five 1s cannot be thrown with {dice} dice", "game.five_ones_win")
    if g.overshoot != "lost" and not g.exact_target:
        raise InvalidRulesError(
            "what a turn that passes the target does (T-9) needs exact_target; without it, "
            'switch this off too (overshoot = "lost"; in a spec: exact_target=false,'
            "overshoot=lost)",
            "game.overshoot",
        )
    if t.full_hand_win and not g.exact_target:
        raise InvalidRulesError(
            "winning on a full hand that lands exactly on the target (T-10) needs exact_target",
            "turn.full_hand_win",
        )
    if t.fresh_farkle_penalty % rules.unit:
        raise InvalidRulesError(
            f"{t.fresh_farkle_penalty} is off the rule set's step of {rules.unit} points: "
            "a penalty must keep the scores on it",
            "turn.fresh_farkle_penalty",
        )
    if t.farkle_penalty and t.farkle_penalty_after < 1:
        raise InvalidRulesError("must be at least 1", "turn.farkle_penalty_after")
    if v.four_two_one and dice < 3:
        raise InvalidRulesError(f"4-2-1 cannot be thrown with {dice} dice", "variants.four_two_one")
    if v.straights_over_throws:
        if dice != 5:
            raise InvalidRulesError(
                "straights over several throws (V-6) are a 5-dice variant",
                "variants.straights_over_throws",
            )
        if not any(len(set(p.faces)) == dice for p in s.patterns):
            raise InvalidRulesError(
                "straights over several throws (V-6) need a five-dice straight in scoring.patterns",
                "variants.straights_over_throws",
            )
    if v.multiples_over_throws and not any(k.count == 3 for k in s.kinds):
        raise InvalidRulesError(
            "multiples over several throws (V-7) need three of a kind to score",
            "variants.multiples_over_throws",
        )
    if t.entry and t.entry_by == "throw":
        most, wins = throw_extremes(rules)
        if t.entry > most and not wins:
            raise InvalidRulesError(
                f"entry by one throw (entry_by = throw, T-7) needs a single throw worth "
                f"{t.entry}, but no throw of this rule set scores more than {most} and none "
                "wins the game: no player could ever enter",
                "turn.entry",
            )
    if t.min_bank > g.target:
        raise InvalidRulesError(
            f"the smallest bank {t.min_bank} (F-3) is above the target {g.target}: every bank "
            "would end the game",
            "turn.min_bank",
        )


def settle_idle(rules: RuleSet, written: Collection[str], *, refuse: bool = True) -> RuleSet:
    """The rule set with every option that cannot act here back at its default (an option
    that acts only with another, which is off: ``RuleSet.idle_options``).

    Refused instead (``refuse``): one of those options that was written here (``written``:
    the option names of a file's own text or of a spec): written, it says a rule the table
    does not play, and the person who wrote ``four_and_pair_as_three_pairs = true`` without
    ``three_pairs`` should hear so (one that came with a base, ``zilch(three_pairs=0)``,
    goes quietly; the other mistakes of a person's text: ``refuse_mistakes``).
    ``refuse`` is false for a text or a spec this program stored (a record's, a game's in
    the server's store), written by a version that took them: read back as it was played.
    """
    if refuse:
        for name in rules.idle_options():
            if name in written:
                section = OPTIONS[name].section
                raise InvalidRulesError(
                    f"{format_option(name, rules.option(name))} needs {needs_words(name)}, "
                    "which this rule set does not have: it would change nothing (set that "
                    "too, or leave this out)",
                    f"{section}.{name}",
                )
    return rules.settled()


def refuse_mistakes(rules: RuleSet) -> None:
    """What a person's own text may say that the rule set cannot mean, checked once it is
    valid (``validate``) and not for a text this program stored (``settle_idle``): a
    pattern that can never count; a consecutive-farkle penalty off the rule set's step."""
    _refuse_dead_patterns(rules)
    penalty = rules.turn.farkle_penalty
    if penalty % rules.unit:
        raise InvalidRulesError(
            f"{penalty} is off the rule set's step of {rules.unit} points: a penalty must "
            "keep the scores on it",
            "turn.farkle_penalty",
        )


def _refuse_dead_patterns(rules: RuleSet) -> None:
    """A pattern of one face worth no more than the multiple ``[scoring.kinds]`` gives the
    same dice, wherever the pattern counts: it can never count."""
    s = rules.scoring
    values = _kinds_or_none(rules)
    thrown_of = {kind.count: kind.thrown for kind in s.kinds}
    for j, pattern in enumerate(s.patterns):
        count, face = len(pattern.faces), pattern.faces[0]
        worth = values.get((count, face))
        if len(set(pattern.faces)) != 1 or not isinstance(worth, int) or worth <= 0:
            continue
        if thrown_of.get(count, 0) in (0, pattern.thrown) and pattern.points <= worth:
            # a throw is read at its best: the multiple's value always won, the pattern
            # was never counted, and nothing said so
            raise InvalidRulesError(
                f"{excerpt(pattern.name)} ({format_dice(pattern.faces)}, {pattern.points}) can "
                f"never count: [scoring.kinds] values {KIND_WORDS[count]} {face}s at {worth}, "
                f"and a throw is read at its best; to give {KIND_WORDS[count]} {face}s "
                f"another value, write it in [scoring.kinds] ({count} = {{ {face} = "
                f"{pattern.points}, default = ... }})",
                f"scoring.patterns[{j}]",
            )


def _anything_scores(rules: RuleSet) -> bool:
    """Whether some throw can score at all (a rule set where none can is a mistake)."""
    s = rules.scoring
    kinds = resolve_kinds(s.kinds, rules.game.five_ones_win, rules.dice)
    shapes = (s.three_pairs, s.four_and_pair, s.two_triplets, s.no_score_bonus)
    return bool(s.singles or kinds or s.patterns or any(shapes) or rules.variants.four_two_one)


def _check_exact_target(rules: RuleSet) -> None:
    """T-9: refuse an exact target that no player could ever hit."""
    t, g = rules.turn, rules.game
    if t.bank_multiple_of_100:
        # T-6: every bank is a multiple of 100 (and of the unit); only an F-1 penalty can
        # move a score off that step.
        step = math.lcm(rules.unit, 100)
        reach = step
        for penalty in (t.farkle_penalty, t.fresh_farkle_penalty):
            reach = math.gcd(reach, penalty) if penalty else reach
        if g.target % reach:
            raise InvalidRulesError(
                f"{g.target} can never be hit exactly: with bank_multiple_of_100 (T-6) every "
                f"bank is a multiple of {step}",
                "game.target",
            )
    if t.entry > g.target:
        raise InvalidRulesError(
            f"the entry {t.entry} (T-7) is above the exact target {g.target} (T-9): the first "
            "bank would always pass the target, so no player could ever enter",
            "turn.entry",
        )
    if t.min_bank > g.target:
        raise InvalidRulesError(
            f"the smallest bank {t.min_bank} (F-3) is above the exact target {g.target} (T-9): "
            "every bank would pass the target",
            "turn.min_bank",
        )


def _kinds_or_none(rules: RuleSet) -> dict[tuple[int, int], object]:
    """The kinds' values, or none where a kind rule cannot be evaluated (refused elsewhere,
    with its own message)."""
    try:
        return dict(rules.kinds_values())
    except ValueError:
        return {}
