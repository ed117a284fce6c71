"""The limits of a rule set (docs/rules-format.md, "Limits"), and rule sets that can end.

Every out-of-bound input is refused with one InvalidRulesError that quotes at most a short
excerpt of it; a rule set from which some reachable score could never finish is refused with
the reason (T-9, G-7, T-7, F-3), and its near misses, which do end, load.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zloutch.engine.endings import check_endings, load_rules, parse_rules_text
from zloutch.rules import InvalidRulesError, RuleSet
from zloutch.rules.loader import PRESETS, _parse_text, preset_text
from zloutch.rules.values import MAX_DEPTH, MAX_EXTENDS, MAX_FILE_BYTES, MAX_NUMBER

HEAD = '[rules]\nname = "x"\ndice = 5\n'


def rule_file(game: str = "target = 1000", extra: str = "") -> str:
    return f"{HEAD}[game]\n{game}\n{extra}"


def refused(load: Callable[[], object]) -> InvalidRulesError:
    """The error of a load that must fail, in one line and with a short quote."""
    with pytest.raises(InvalidRulesError) as info:
        load()
    text = str(info.value)
    assert "\n" not in text
    assert len(text) < 400, f"a long error line: {text[:120]}..."
    return info.value


def within(seconds: float, load: Callable[[], object]) -> InvalidRulesError:
    """``refused``, in a thread that must be done within ``seconds`` (a FIFO could hang)."""
    result: list[BaseException | None] = []

    def run() -> None:
        try:
            load()
        except BaseException as exc:  # handed to the test's thread
            result.append(exc)
        else:
            result.append(None)

    worker = threading.Thread(target=run, daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still loading after {seconds}s"
    assert time.monotonic() - started < seconds
    (error,) = result
    assert isinstance(error, InvalidRulesError), error
    assert "\n" not in str(error) and len(str(error)) < 400
    return error


# ---------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        (f"cinq-mille(target={MAX_NUMBER + 1})", "target"),
        (f"cinq-mille(entry={MAX_NUMBER + 1})", "entry"),
        (f"zilch(farkle_penalty={MAX_NUMBER + 1})", "farkle_penalty"),
        ("dix-mille(ticks_to_cross=101)", "ticks_to_cross"),
        ("zilch(farkle_penalty_after=101)", "farkle_penalty_after"),
    ],
)
def test_a_number_above_its_bound_is_refused(spec: str, key: str) -> None:
    err = refused(lambda: load_rules(spec))
    assert err.key == key
    assert "must be at most" in err.reason


def test_numbers_at_their_bounds_load() -> None:
    rules = load_rules(f"cinq-mille(target={MAX_NUMBER},entry={MAX_NUMBER})")
    assert rules.game.target == rules.turn.entry == MAX_NUMBER
    assert load_rules("dix-mille(ticks_to_cross=100)").game.ticks_to_cross == 100


@pytest.mark.parametrize(
    ("scoring", "key"),
    [
        ("[scoring]\nsingles = { 1 = 100001 }\n", "scoring.singles.1"),
        ("[[scoring.patterns]]\nfaces = [1, 2]\npoints = 100001\n", "scoring.patterns[0].points"),
        ("[scoring.kinds]\n3 = 100001\n", "scoring.kinds.3"),
        ('[scoring.kinds]\n3 = "100001"\n', "scoring.kinds.3"),
        ('[scoring.kinds]\n3 = "20000 x face"\n', "scoring.kinds.3"),  # six 3s: 120000
        # as a kind rule makes it: 60000, then four 6s doubled
        ('[scoring.kinds]\n3 = 60000\n4 = "double"\n', "scoring.kinds.4"),
    ],
)
def test_points_above_the_bound_are_refused(scoring: str, key: str) -> None:
    err = refused(lambda: parse_rules_text(rule_file(extra=scoring)))
    assert err.key == key
    assert "at most 100000" in str(err)


def test_the_smallest_bank_above_the_target_is_refused_even_without_an_exact_target() -> None:
    err = refused(lambda: load_rules("cinq-mille(target=1000,min_bank=1500)"))
    assert "turn.min_bank: the smallest bank 1500 (F-3) is above the target 1000" in str(err)
    assert load_rules("cinq-mille(target=1000,min_bank=1000)").turn.min_bank == 1000


def test_the_solver_sized_target_of_the_issue_is_refused_before_any_table() -> None:
    # 10^12 loaded, then the solver died with MemoryError.
    started = time.monotonic()
    err = refused(lambda: load_rules("cinq-mille(target=1000000000000)"))
    assert "at most 12 digits" in err.reason and err.key == "target"
    err = refused(lambda: load_rules("cinq-mille(target=100000000000)"))  # 12 digits: read
    assert "must be at most 100000" in err.reason
    assert time.monotonic() - started < 5


def test_huge_integers_give_one_short_line() -> None:
    digits = "7" * 5000
    err = refused(lambda: load_rules(f"cinq-mille(target={digits})"))
    assert "at most 12 digits" in err.reason and digits[:100] not in str(err)
    err = refused(lambda: parse_rules_text(rule_file(f"target = {digits}")))
    assert "thousands of digits" in str(err)
    # 4000 digits is still read by TOML: refused by its bound, described by its length
    err = refused(lambda: parse_rules_text(rule_file(f"target = {digits[:4000]}")))
    assert err.key == "game.target" and "a number of 4000 digits" in err.reason
    err = refused(lambda: parse_rules_text(rule_file(extra=f'[scoring.kinds]\n3 = "{digits}"\n')))
    assert err.key == "scoring.kinds.3" and "at most 12 digits" in err.reason
    err = refused(lambda: parse_rules_text(rule_file(extra=f"[scoring.singles]\n{digits} = 5\n")))
    assert "is not a face" in err.reason


# ---------------------------------------------------------------------------- nesting


@pytest.mark.parametrize(
    "value",
    ["[" * 1000 + "]" * 1000, "{a = " * 1000 + "1" + "}" * 1000, "[" * 9 + "1" + "]" * 9],
)
def test_deeply_nested_values_are_refused(value: str) -> None:
    err = refused(lambda: parse_rules_text(rule_file(f"target = 1000\nbump = {value}")))
    assert f"at most {MAX_DEPTH} deep" in err.reason


def test_a_shallow_wrong_value_names_its_key_with_an_excerpt() -> None:
    err = refused(lambda: parse_rules_text(rule_file("target = 1000\nbump = [[[1, 2]]]")))
    assert err.key == "game.bump" and "(in quotes), got [[[1, 2]]]" in err.reason
    err = refused(lambda: parse_rules_text(rule_file(f'target = 1000\nbump = "{"x" * 10**5}"')))
    assert err.key == "game.bump" and len(err.reason) < 200


def test_the_deepest_rules_still_load() -> None:
    # patterns: a table of a list of tables of lists, the deepest the format goes
    text = rule_file(extra="[[scoring.patterns]]\nfaces = [1, 2, 3]\npoints = 200\n")
    assert parse_rules_text(text).scoring.patterns[0].faces == (1, 2, 3)


def test_a_long_spec_or_key_is_quoted_short() -> None:
    err = refused(lambda: load_rules("dix-mille" + "(" * 1000 + "bump=any" + ")" * 1000))
    assert "(" * 100 not in str(err)
    err = refused(lambda: load_rules("no-such-preset-" + "x" * 10**6))
    assert len(str(err)) < 400
    err = refused(lambda: parse_rules_text(rule_file(f"target = 1000\n{'k' * 10**5} = 1")))
    assert err.key is not None and len(err.key) <= 60


# ---------------------------------------------------------------------------- files


def chain(folder: Path, length: int) -> Path:
    """``f0.toml`` extends ``f1.toml``... which extends dix-mille: ``length`` files."""
    for i in range(length):
        base = f"f{i + 1}.toml" if i + 1 < length else "dix-mille"
        (folder / f"f{i}.toml").write_text(f'[rules]\nextends = "{base}"\n', encoding="utf-8")
    return folder / "f0.toml"


def test_an_extends_chain_of_200_files_is_refused(tmp_path: Path) -> None:
    err = within(20, lambda: load_rules(str(chain(tmp_path, 200))))
    assert f"at most {MAX_EXTENDS} rule files" in str(err)


def test_an_extends_chain_at_the_bound_loads(tmp_path: Path) -> None:
    # The chain holds MAX_EXTENDS files, the dix-mille preset at its end included.
    rules = load_rules(str(chain(tmp_path, MAX_EXTENDS - 1)))
    assert rules.game.target == 10000


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "rules.toml"
    os.mkfifo(fifo)  # opening it to read would wait for a writer forever
    err = within(5, lambda: load_rules(str(fifo)))
    assert "not a regular file" in err.reason


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_dev_zero_is_refused_at_once() -> None:
    err = within(5, lambda: load_rules("/dev/zero"))
    assert "not a regular file" in err.reason


def test_a_folder_and_a_huge_file_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "rules.toml"
    folder.mkdir()
    assert "a folder" in refused(lambda: load_rules(str(folder))).reason
    big = tmp_path / "big.toml"
    big.write_text(rule_file() + "# " + "x" * MAX_FILE_BYTES + "\n", encoding="utf-8")
    assert "at most 256 KiB" in within(5, lambda: load_rules(str(big))).reason
    assert "at most 256 KiB" in refused(lambda: parse_rules_text("#" * (MAX_FILE_BYTES + 1))).reason


# ---------------------------------------------------------------------------- endings


def sevens_and_threes(target: int, more: str = "") -> RuleSet:
    """1s worth 7, 5s worth 3, nothing else, and an exact target (T-9)."""
    game = f"target = {target}\nexact_target = true{more}"
    return parse_rules_text(rule_file(game, "[scoring]\nsingles = { 1 = 7, 5 = 3 }\n"))


def test_t9_the_never_ending_rule_set_of_the_issue_is_refused() -> None:
    # 1s worth 7 and 5s worth 3 have a gcd of 1, yet no bank is ever worth 1.
    err = refused(lambda: sevens_and_threes(1))
    assert err.key == "game.target" and "1 can never be hit exactly" in err.reason


@pytest.mark.parametrize("target", [3, 6])
def test_t9_near_misses_that_end_load(target: int) -> None:
    # 3: one 5; 6: two 5s, or 3 then 3. Every score reached on the way can finish.
    assert sevens_and_threes(target).game.target == target


@pytest.mark.parametrize(("target", "stuck"), [(7, 3), (10, 6), (14, 3)])
def test_t9_a_reachable_score_that_cannot_finish_is_named(target: int, stuck: int) -> None:
    # 7: a bank of 3 leaves 4, and no sum of 3s and 7s is 4; 10: 3 + 3, then 4 left.
    err = refused(lambda: sevens_and_threes(target))
    assert err.key == "game.exact_target"
    assert f"a player at {stuck} could never finish" in err.reason


@pytest.mark.parametrize("target", [7, 10, 14, 100])
def test_g3_with_ticks_a_stuck_player_falls_back_and_the_game_ends(target: int) -> None:
    assert sevens_and_threes(target, "\nticks_to_cross = 3").game.target == target


@pytest.mark.parametrize("target", [4, 5, 8, 11])
def test_g3_ticks_cannot_help_a_target_no_sum_of_banks_makes(target: int) -> None:
    err = refused(lambda: sevens_and_threes(target, "\nticks_to_cross = 3"))
    assert err.key == "game.target"


def test_f1_a_penalty_moves_a_stuck_score_back() -> None:
    # 3 + 3 = 6 leaves 4 to 10, but a penalty of 2 takes 6 to 4, then 3 + 3 hits 10.
    with pytest.raises(InvalidRulesError):
        sevens_and_threes(10)
    assert sevens_and_threes(10, "\n[turn]\nfarkle_penalty = 2").game.target == 10
    # and a target no bank makes from the start: 4 = 3 + 3 - 2
    assert sevens_and_threes(4, "\n[turn]\nfarkle_penalty = 2").game.target == 4


def test_f3_min_bank_gaps_are_read_from_each_reachable_score() -> None:
    err = refused(lambda: load_rules("dix-mille(ticks_to_cross=0,min_bank=300,petit_palier=false)"))
    assert "a player at 9800 could never finish" in str(err)
    assert load_rules("dix-mille(ticks_to_cross=0)").game.ticks_to_cross == 0  # pp: 100
    assert load_rules("dix-mille(min_bank=300,petit_palier=false)").turn.min_bank == 300


PAIRS_ONLY = rule_file(
    "target = 2000{more}",
    "[scoring]\nsingles = {{}}\n[[scoring.patterns]]\nfaces = [1, 2]\npoints = 50\n",
)


def test_g7_the_last_thousand_needs_a_turn_of_1000() -> None:
    # 1-2 is the only combination: at most two of them in five dice, 100 a turn.
    err = refused(lambda: parse_rules_text(PAIRS_ONLY.format(more="\nlast_thousand = true")))
    assert err.key == "game.last_thousand" and "no turn can bank 1000" in err.reason
    assert parse_rules_text(PAIRS_ONLY.format(more="")).game.target == 2000


def test_t7_an_entry_no_turn_reaches_is_refused() -> None:
    text = PAIRS_ONLY.format(more="").replace("[scoring]", "[turn]\nentry = 150\n[scoring]")
    err = refused(lambda: parse_rules_text(text))
    assert "no turn can ever be banked" in err.reason
    assert parse_rules_text(text.replace("entry = 150", "entry = 100")).turn.entry == 100


def test_every_preset_can_end() -> None:
    """A shipped preset loads without the walk that proves its games end (``shipped``): the
    proof is made here, once, on the text the package ships."""
    assert list(PRESETS) == [
        "dix-mille",
        "dix-mille-6",
        "impair",
        "charentaise",
        "cinq-mille",
        "farkle",
        "farkle-minimal",
        "zilch",
        "facebook-farkle",
        "greed",
    ]
    for name in PRESETS:
        rules = load_rules(name)
        assert rules.name == name
        check_endings(rules)  # raises InvalidRulesError if some game could never end
        assert parse_rules_text(preset_text(name), source=name, load_base=load_rules) == rules


def test_the_rules_layer_reads_a_file_and_the_engine_proves_its_games_end() -> None:
    """``zloutch.rules`` reads a rule file and refuses what it cannot mean; whether its games
    can end is the engine's to say (``zloutch.engine.endings``, from the compiled turn): a
    never-ending target passes the first and is refused by the second, and any other
    contradiction is refused by both."""
    # 1s worth 7 and 5s worth 3: no bank is ever worth 1 (as in the T-9 tests above).
    endless = rule_file(
        "target = 1\nexact_target = true", "[scoring]\nsingles = { 1 = 7, 5 = 3 }\n"
    )
    refused(lambda: parse_rules_text(endless))
    assert read_text(endless).game.target == 1
    contradiction = rule_file("", "[turn]\nentry = -5\n")
    refused(lambda: read_text(contradiction))
    refused(lambda: parse_rules_text(contradiction))


def read_text(text: str) -> RuleSet:
    return _parse_text(text, source="", load_base=None)


def banks_of(a: int, b: int) -> set[int]:
    """Singles a and b on five dice, free choice, hot dice optional: any i a + j b > 0."""
    return {i * a + j * b for i in range(60) for j in range(60) if i + j}


def ends(a: int, b: int, target: int) -> bool:
    """By hand: every score reachable by banks below an exact target can still hit it."""
    banks = banks_of(a, b)
    reach, todo = {0}, [0]
    while todo:
        s = todo.pop()
        for bank in banks:
            if s + bank <= target and s + bank not in reach:
                reach.add(s + bank)
                todo.append(s + bank)
    can = {target}
    for s in range(target, -1, -1):
        if any(s + bank in can for bank in banks):
            can.add(s)
    return reach <= can


@settings(max_examples=60, deadline=None)
@given(a=st.integers(1, 12), b=st.integers(1, 12), target=st.integers(1, 60))
def test_t9_the_loader_agrees_with_a_count_by_hand(a: int, b: int, target: int) -> None:
    text = rule_file(
        f"target = {target}\nexact_target = true", f"[scoring]\nsingles = {{ 1 = {a}, 5 = {b} }}\n"
    )
    try:
        parse_rules_text(text)
    except InvalidRulesError:
        loads = False
    else:
        loads = True
    assert loads == ends(a, b, target)


@pytest.mark.parametrize("spec", ["dix-mille/\x00", "my\x00table.toml", "a\x00.toml(entry=500)"])
def test_a_nul_byte_in_a_rule_files_name_is_a_clear_error(spec: str) -> None:
    """The fuzzer found it: os.stat raised ValueError, a traceback instead of a refusal."""
    with pytest.raises(InvalidRulesError, match="cannot hold a NUL byte"):
        load_rules(spec)


def one_point_die(target: int, last_thousand: bool = False) -> str:
    """One die, a 1 scores 1 point, an exact target: every total is a bank, so a walk of the
    scores and their banks is quadratic in the target (the endings check once was)."""
    return (
        '[rules]\nname = "one point"\ndice = 1\n[scoring]\nsingles = { 1 = 1 }\n'
        f"[game]\ntarget = {target}\nexact_target = true\n"
        + ("last_thousand = true\n" if last_thousand else "")
    )


@pytest.mark.default_cases(2)
@pytest.mark.parametrize("last_thousand", [False, True], ids=["", "G-7"])
@pytest.mark.parametrize("target", [10_000, 99_999])
def test_the_endings_check_is_close_to_linear_in_the_target(
    target: int, last_thousand: bool
) -> None:
    """A generous bound, to catch a walk quadratic in the target on a loaded machine (it took
    46 s at 10,000 and over 120 s at 99,999), not to time the check (about 1 s at 99,999:
    benchmarks/endings.py)."""
    begin = time.process_time()
    rules = parse_rules_text(one_point_die(target, last_thousand))
    assert rules.game.target == target
    assert time.process_time() - begin < 15


def test_a_target_that_is_no_sum_of_the_banks_is_refused() -> None:
    """Three dice whose only score is three of a kind, worth 3: every score is a multiple of
    3, so an exact 10 is never hit (the sums of banks, read as a monoid's)."""
    text = (
        '[rules]\nname = "threes"\ndice = 3\n[scoring]\nkinds = { 3 = { default = "3" } }\n'
        "[game]\ntarget = 10\nexact_target = true\n"
    )
    with pytest.raises(InvalidRulesError, match="10 can never be hit exactly"):
        parse_rules_text(text)


def test_booleans_are_spelt_as_a_rule_file_spells_them() -> None:
    text = '[rules]\nname = "b"\ndice = true\n[game]\ntarget = 3000\n'
    with pytest.raises(InvalidRulesError, match=r"expected a whole number, got true$"):
        parse_rules_text(text)


def test_a_kind_of_false_is_none_and_true_is_refused_with_why() -> None:
    base = '[rules]\nname = "k"\ndice = 5\n[scoring]\nkinds = {{ 3 = {} }}\n[game]\ntarget = 3000\n'
    assert parse_rules_text(base.format("false")).scoring.kinds == ()
    with pytest.raises(InvalidRulesError, match='false means "none"'):
        parse_rules_text(base.format("true"))
