"""``zloutch simulate``: tables, the JSON and CSV files, and one-line errors."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from zloutch.adapters.cli import app
from zloutch.adapters.cli.simulate import advantage, percent
from zloutch.sim import default_jobs

# One worker compiles the simulation's Numba kernels (about 9 s of CPU on a fresh clone),
# not every worker: the tests that play fast games share it (tests/conftest.py).
pytestmark = pytest.mark.xdist_group("sim-kernels")

runner = CliRunner()

BASE = ["simulate", "--rules", "greed(target=1000)", "--games", "40", "--seed", "3"]


WIDE = {"COLUMNS": "200"}
"""Rich wraps to the terminal's width: a narrow one split the lines these tests read."""


def test_simulate_prints_players_and_seats() -> None:
    result = runner.invoke(
        app, [*BASE, "--players", "threshold:300,greedy", "--jobs", "1"], env=WIDE
    )
    assert result.exit_code == 0, result.output
    assert "Players" in result.output and "Seats" in result.output
    assert "threshold:300" in result.output and "greedy" in result.output
    assert "40 games, seed 3; played on the fast path" in result.output  # --method auto's
    engine = runner.invoke(
        app, [*BASE, "-p", "threshold:300,greedy", "-j", "1", "-m", "engine"], env=WIDE
    )
    assert "40 games, seed 3; played through the engine" in engine.output


def test_json_and_csv_files(tmp_path: Path) -> None:
    json_path, csv_path = tmp_path / "out.json", tmp_path / "out.csv"
    args = [*BASE, "--players", "threshold:300,cautious,threshold:300", "--jobs", "2"]
    result = runner.invoke(app, [*args, "--json", str(json_path), "--csv", str(csv_path)])
    assert result.exit_code == 0, result.output
    document = json.loads(json_path.read_text())
    assert document["rules"] == "greed(target=1000)"
    assert document["games"] == 40 and document["seed"] == 3
    assert document["jobs"] == min(2, default_jobs())  # no more than the CPUs
    names = [p["name"] for p in document["players"]]
    assert names == ["threshold:300 #1", "cautious", "threshold:300 #2"]
    assert abs(sum(p["win_rate"] for p in document["players"]) - 1) < 1e-9
    assert [s["seat"] for s in document["seats"]] == [1, 2, 3]
    for p in document["players"]:
        low, high = p["win_rate_ci95"]
        assert 0 <= low <= p["win_rate"] <= high <= 1
        assert sum(p["banks"].values()) + p["farkles"] == p["turns"]
    rows = list(csv.DictReader(csv_path.read_text().splitlines()))
    assert [r["name"] for r in rows] == names
    assert {"win_rate", "win_low", "win_high", "farkle_rate", "take_backs"} <= set(rows[0])
    for row, player in zip(rows, document["players"], strict=True):
        assert float(row["win_rate"]) == pytest.approx(player["win_rate"])


def test_a_dash_prints_the_document_in_place_of_the_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = [*BASE, "--players", "greedy,random", "--jobs", "1"]
    to_file = runner.invoke(app, [*args, "--json", "out.json", "-q"])
    printed = runner.invoke(app, [*args, "--json", "-"])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.stdout) == json.loads((tmp_path / "out.json").read_text())
    assert to_file.exit_code == 0 and not (tmp_path / "-").exists()  # no file named '-'
    rows = runner.invoke(app, [*args, "--csv", "-"])
    assert rows.exit_code == 0 and rows.stdout.startswith("rules,seed,")
    assert [r["name"] for r in csv.DictReader(rows.stdout.splitlines())] == ["greedy", "random"]
    both = runner.invoke(app, [*args, "--json", "-", "--csv", "-"])
    assert both.exit_code == 2 and "choose one" in both.output


def test_jobs_do_not_change_the_document(tmp_path: Path) -> None:
    documents = []
    for jobs in ("1", "2"):
        path = tmp_path / f"jobs{jobs}.json"
        args = [*BASE, "--players", "greedy,random", "--jobs", jobs, "--json", str(path)]
        assert runner.invoke(app, [*args, "--quiet"]).exit_code == 0
        document = json.loads(path.read_text())
        document.pop("jobs")
        documents.append(document)
    assert documents[0] == documents[1]


def test_more_jobs_than_cpus_play_on_the_cpus_and_say_so() -> None:
    """--jobs 999 started 999 interpreters for 2,000 games of the engine (84 s, against 10 s
    on the 2 CPUs): the jobs are the CPUs at most, and a note says so."""
    args = [*BASE, "--players", "greedy,random", "--jobs", "999", "--method", "engine"]
    result = runner.invoke(app, [*args, "--quiet", "--json", "-"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["jobs"] == default_jobs()
    assert f"note: --jobs 999: this process may use {default_jobs()} CPU" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "greedy,nobody"], "no bot is called"),
        (["--players", "greedy,bold:lots"], "bold:150, not bold:lots"),
        (["--players", "greedy,bold:\u00b2"], "bold:150, not bold:\u00b2"),
        (["--players", "greedy,threshold:\u0661"], "threshold:350, not threshold:\u0661"),
        (["--players", "greedy,"], "--players"),
        (["--players", "greedy", "--games", "0"], "--games"),
        (["--players", "greedy", "--jobs", "0"], "--jobs"),
        (["--players", "greedy", "--rules", "no-such-game"], "unknown preset"),
        (["--players", ",".join(["greedy"] * 9), "--rules", "dix-mille"], "players"),
    ],
)
def test_bad_input_is_one_error_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["simulate", "--games", "5", *args])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    assert message in lines[0]


def test_unwritable_output_is_a_user_error(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "out.json"
    result = runner.invoke(app, [*BASE, "--players", "greedy,cautious", "--json", str(target)])
    assert result.exit_code == 2
    assert result.output.strip().startswith(f"error: --json {target}: cannot write it")


def test_optimal_solves_its_game_first_and_the_json_says_what_each_seat_played(
    tmp_path: Path, _private_cache: Path
) -> None:
    """With no solved game cached, optimal played the turn-optimal policy and said nothing
    (every game the same as expert's): it solves the game first now, and the JSON names
    the policy each seat played."""
    out = tmp_path / "out.json"
    args = ["simulate", "-r", "greed(target=1000)", "-n", "200", "--seed", "2", "-j", "1"]
    result = runner.invoke(app, [*args, "-p", "best,expert", "--json", str(out), "-q"])
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert document["policies"] == [
        "the solved game of greed(target=1000) (win probability)",
        "expert",
    ]
    assert list(_private_cache.rglob("*game*")), "the solved game is cached for the next run"
    optimal = runner.invoke(app, [*args, "-p", "optimal,expert", "--json", str(out), "-q"])
    expert = runner.invoke(app, [*args, "-p", "expert,expert", "--json", str(tmp_path / "e")])
    assert optimal.exit_code == expert.exit_code == 0
    played = json.loads(out.read_text())
    same = json.loads((tmp_path / "e").read_text())
    assert played["players"][0]["wins"] != same["players"][0]["wins"]  # another policy


def test_optimal_at_a_table_of_three_says_it_plays_against_the_most_dangerous(
    tmp_path: Path, _private_cache: Path
) -> None:
    """With more than two players optimal plays the solved two-player game against the most
    dangerous opponent, and the JSON's policies say so."""
    out = tmp_path / "out.json"
    args = ["simulate", "-r", "greed(target=1000)", "-n", "60", "--seed", "2", "-j", "1"]
    result = runner.invoke(app, [*args, "-p", "optimal,expert,greedy", "--json", str(out), "-q"])
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert document["policies"] == [
        "the solved game of greed(target=1000) (win probability, against the most dangerous "
        "of the 2 opponents)",
        "expert",
        "greedy",
    ]
    assert sum(p["wins"] for p in document["players"]) == pytest.approx(60)
    shown = runner.invoke(app, [*args, "-p", "optimal,expert,greedy"])
    assert shown.exit_code == 0, shown.output
    assert "optimal played the solved game of greed(target=1000)" in " ".join(shown.output.split())


@pytest.mark.parametrize("method", ["engine", "fast"])
@pytest.mark.parametrize("rules", ["greed(target=1000)", "dix-mille(final_round,target=2000)"])
def test_optimal_alone_plays_expert_s_games_and_solves_nothing(
    rules: str, method: str, tmp_path: Path, _private_cache: Path
) -> None:
    """Alone, optimal has no one to beat (it crashed on its first move): it plays each turn
    for the most points, expert's games to the last one, says so, and solves nothing (not
    even where it could not play against opponents, as under final_round)."""
    args = ["simulate", "-r", rules, "-n", "60", "--seed", "2", "-j", "1", "-m", method]
    out, same = tmp_path / "optimal.json", tmp_path / "expert.json"
    result = runner.invoke(app, [*args, "-p", "optimal", "--json", str(out)])
    assert result.exit_code == 0, result.output
    words = "the turn-optimal policy: a game of one player has no one to beat"
    assert f"optimal played {words}." in " ".join(result.output.split())
    expert = runner.invoke(app, [*args, "-p", "expert", "--json", str(same), "-q"])
    assert expert.exit_code == 0, expert.output
    played, base = json.loads(out.read_text()), json.loads(same.read_text())
    assert played["policies"] == [words] and base["policies"] == ["expert"]
    for key in ("turns", "farkles", "average_score", "banks", "ticks", "take_backs"):
        assert played["players"][0][key] == base["players"][0][key], key
    assert not list(_private_cache.rglob("*game*")), "nothing solved"


@pytest.mark.parametrize(
    ("rules", "players", "words"),
    [
        ("dix-mille(final_round)", "optimal,expert", "does not model"),
        ("greed(min_players=3)", "optimal,expert,expert", "a game of 3 players or more, never"),
    ],
)
def test_optimal_is_refused_in_one_line_where_it_cannot_play_its_policy(
    rules: str, players: str, words: str
) -> None:
    result = runner.invoke(app, ["simulate", "-r", rules, "-p", players, "-n", "5"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: optimal") and words in lines[0]


@given(st.integers(1, 10**7), st.data())
def test_two_seats_rates_always_add_up_to_a_hundred_percent(
    games: int, data: st.DataObject
) -> None:
    """A seat's rate and the other's, shown to a tenth of a percent, add up to 100.0% (a
    tie's half win included), and the advantages over a fair half read alike: 51.85% and
    48.15% were shown 51.8% and 48.1%, +1.8% and -1.9% (binary fractions rounded)."""
    halves = data.draw(st.integers(0, 2 * games))
    first, second = halves / 2 / games, (2 * games - halves) / 2 / games
    one, other = percent(first), percent(second)
    assert Decimal(one[:-1]) + Decimal(other[:-1]) == 100
    up, down = (percent(advantage(rate, 2), sign=True) for rate in (first, second))
    assert up.lstrip("+-") == down.lstrip("+-")


def test_a_rate_is_rounded_from_its_decimal_digits() -> None:
    assert (percent(0.5185), percent(0.4815)) == ("51.8%", "48.2%")
    # 1,037 wins of 2,000: the binary differences from a half are 0.01849999... and
    # -0.01850000...1, shown +1.8% and -1.9% when rounded as they are
    first, second = 1037 / 2000, 963 / 2000
    assert (first - 0.5, second - 0.5) != (0.0185, -0.0185)
    shown = [percent(advantage(rate, 2), sign=True) for rate in (first, second)]
    assert shown == ["+1.8%", "-1.8%"]
    assert percent(advantage(0.3335, 3), sign=True) == "+0.0%"
    assert (percent(0.0185, sign=True), percent(-0.0185, sign=True)) == ("+1.8%", "-1.8%")
    assert (percent(1.0), percent(0.0, sign=True), percent(-0.0001, sign=True)) == (
        "100.0%",
        "+0.0%",
        "+0.0%",
    )


def test_the_players_help_names_every_bot_level() -> None:
    from zloutch.strategy.bots import LEVELS

    text = runner.invoke(app, ["simulate", "--help"], env={"COLUMNS": "300"}).stdout
    assert all(level in text for level in LEVELS), text


def test_the_tables_say_which_bot_each_level_asked_for_is() -> None:
    """The tables name the bots (bold, cautious): the levels typed are said beside them."""
    args = ["simulate", "-r", "farkle(target=1000)", "-p", "medium,bot:easy,expert", "-n", "20"]
    text = runner.invoke(app, args, env={"COLUMNS": "120"}).stdout
    assert "The levels: medium is the bold bot; easy is the cautious bot." in text
    plain = runner.invoke(app, [*args[:4], "-p", "greedy,expert", "-n", "20"]).stdout
    assert "The levels" not in plain


def test_quiet_with_nowhere_to_write_and_one_file_for_two_documents_are_refused(
    tmp_path: Path,
) -> None:
    """``-q`` without --json or --csv played every game and showed nothing (exit 0); --json
    and --csv naming one file wrote the CSV over the JSON. Both are said before a game."""
    quiet = runner.invoke(app, ["simulate", "-r", "greed", "-n", "5", "-q"])
    assert quiet.exit_code == 2
    assert quiet.stderr == (
        "error: --quiet leaves nothing to show: add --json FILE or --csv FILE\n"
    )
    same = str(tmp_path / "out")
    both = runner.invoke(app, ["simulate", "-r", "greed", "-n", "5", "--json", same, "--csv", same])
    assert both.exit_code == 2
    assert "one file, the second would replace the first" in both.stderr
    assert not (tmp_path / "out").exists()
