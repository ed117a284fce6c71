"""The page in a real browser: Playwright driving Debian's Chromium against a real
``zloutch serve`` on 127.0.0.1 (marker ``browser``, run by ``.ci/run``).

Without Chromium these tests fail and say how to install it: they never skip silently.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from served import Server

from zloutch.app.fairdice import message, throw_faces
from zloutch.engine import legal_actions
from zloutch.engine.record import PlayerSeed, load_record, sheet_json
from zloutch.server import MemoryStore, NewGame, Rooms, SeatSpec

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
INSTALL = (
    f"the browser tests drive Debian's Chromium at {CHROMIUM}: install it with "
    "`apt-get install -y chromium` (as root; .ci/run does it), and Playwright with "
    "`pip install playwright` (in the dev extra; never `playwright install`)"
)
SHORT = "zilch"
"""Zilch to 500 points: a game of a few turns."""
PHONE = {"width": 360, "height": 640}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.fail(INSTALL)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail(INSTALL)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("web")
    running = Server(
        f"sqlite:///{folder / 'games.sqlite'}", log=folder / "server.log", cache=folder / "cache"
    )
    running.start()
    yield running
    running.stop()


@pytest.fixture
def new_page(browser: Any) -> Iterator[Callable[..., Any]]:
    """Pages, each in a browser context of its own (its own localStorage: its own seats)."""
    contexts: list[Any] = []
    errors: list[str] = []
    dialogs: list[str] = []

    def make(locale: str = "en-GB", viewport: dict[str, int] = PHONE, *, settle: int = 0) -> Any:
        """``settle``: how long (ms) the page ignores a tap on buttons a throw has just moved
        (a double tap's second one; 450 on the page); the tests click as soon as the state
        moves on, so it is 0 but where a test checks it."""
        context = browser.new_context(locale=locale, viewport=viewport)
        context.add_init_script(f"globalThis.zloutchSettleMs = {settle}")
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        # A question the page asks (a die off the table, a new invitation) is answered yes.
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.accept()))
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, errors


def create_game(
    page: Any,
    web: Server,
    *,
    preset: str = SHORT,
    target: int | None = 500,
    people: tuple[str, ...] = ("Ana", "Bob"),
    real_dice: bool = False,
    hints: bool = True,
) -> dict[str, str]:
    """Fill the lobby and create the game; the links it shows (invites, watch)."""
    page.goto(web.base + "/")
    page.select_option("#preset", preset)
    if target is not None:
        page.fill("#option-target", str(target))  # a common choice: in sight, not folded
    page.fill("#seat-0-name", people[0])
    for i, name in enumerate(people[1:], start=1):
        if page.locator(f"#seat-{i}-kind").count() == 0:
            page.click("#add-seat")
        page.select_option(f"#seat-{i}-kind", "person")
        page.fill(f"#seat-{i}-name", name)
    if real_dice:
        page.check("#real-dice")
    if not hints:
        page.uncheck("#hints")
    page.fill("#pace", "0")
    page.click("#create")
    page.wait_for_selector("#go-table")
    links = {"watch": page.input_value("#watch-link")}
    for i in range(1, len(people)):
        if page.locator(f"#invite-{i}").count():
            links[f"invite-{i}"] = page.input_value(f"#invite-{i}")
    return links


def version(page: Any) -> int:
    return int(page.get_attribute("#status", "data-version"))


def click_and_wait(page: Any, selector: str) -> None:
    """Click, then wait until the state moved on (the server stored the move)."""
    before = version(page)
    page.click(selector)
    page.wait_for_function(f"Number(document.querySelector('#status').dataset.version) > {before}")


def roll_real(page: Any, *faces: int) -> None:
    """At a real table: throw (when it is a turn's start), tap the faces, send them."""
    if page.locator("#act-throw:enabled").count():
        click_and_wait(page, "#act-throw")
    for face in faces:
        page.click(f"#face-{face}")
    click_and_wait(page, "#act-roll")


def play_one(page: Any) -> bool:
    """One move of a simple player, through the buttons: the first legal keep, bank when
    the bank is enabled, else throw (or start fresh). False when nothing is enabled."""
    for selector in ("#keep-0", "#act-bank", "#act-fresh", "#act-throw"):
        if page.locator(f"{selector}:enabled").count():
            click_and_wait(page, selector)
            return True
    return False


def events_in_log(page: Any) -> list[str]:
    return page.locator("#log li.event, #log li.farkle").all_inner_texts()


def test_two_people_create_join_and_play_a_whole_game_watched(
    new_page: Callable[..., Any], web: Server
) -> None:
    ana = new_page()
    links = create_game(ana, web)
    ana.click("#go-table")
    ana.wait_for_selector("#act-throw")
    game = ana.url.rsplit("/", 1)[1]
    bob = new_page(viewport={"width": 1280, "height": 800})
    bob.goto(links["invite-1"])
    bob.wait_for_url(re.compile(rf"/g/{game}$"))
    bob.wait_for_selector("#act-throw")
    assert "Bob" in bob.inner_text("#status") or "Ana" in bob.inner_text("#status")
    watcher = new_page()
    watcher.goto(links["watch"])
    watcher.wait_for_selector("#status")
    assert "watching" in watcher.inner_text("#status")
    assert watcher.locator("#act-throw:enabled").count() == 0

    deadline = time.monotonic() + 40
    while ana.locator("#end").count() == 0:
        assert time.monotonic() < deadline, "the game did not end in 40 s"
        if not (play_one(ana) or play_one(bob)):
            ana.wait_for_timeout(50)
    for page in (ana, bob, watcher):
        page.wait_for_selector("#ranking")
    # The spectator saw every move the players saw, in order.
    final = version(ana)
    watcher.wait_for_function(
        f"Number(document.querySelector('#status').dataset.version) === {final}"
    )
    assert events_in_log(watcher) == events_in_log(ana) == events_in_log(bob)
    # The watcher holds no seat: no rematch to ask for (it had a greyed button, no reason).
    watcher.wait_for_selector("#download")
    assert watcher.locator("#rematch").count() == 0
    # On a desktop the panels under the end take the whole width, two by two (they sat in
    # the felt's column, gone at the end, half the page empty beside them).
    watcher.set_viewport_size({"width": 1280, "height": 800})
    sheet = watcher.locator("#sheet").bounding_box()
    rules = watcher.locator("#rules-panel").bounding_box()
    assert sheet is not None and rules is not None
    assert rules["x"] > sheet["x"] + sheet["width"] and abs(rules["y"] - sheet["y"]) < 60
    record = web.get(f"/api/games/{game}/record")
    _, state = load_record(json.dumps(record))
    winner = state.sheets[state.winners[0]].name
    assert winner in ana.inner_text("#ranking tbody tr:first-child")
    assert "kicks given" in ana.inner_text("#ranking")
    # The review: the curve drawn, every decision listed.
    ana.wait_for_selector("#curve polyline")
    assert ana.locator("#curve polyline").count() == 2
    # One plain sentence on top; the rule set, the model and the solve folded under it.
    note = ana.locator("#review .review-note").first.inner_text()
    assert note.startswith("Each decision is graded by what it cost of") and "accurate" in note
    assert not ana.locator(".review-how > p").first.is_visible()
    # The dice checked in the page: the commitment and every throw.
    ana.click("#check-dice")
    verdict = ana.locator("#dice-verdict")
    verdict.wait_for()
    throws = sum(a.startswith("roll") for a in record["actions"])
    words = "throw matches" if throws == 1 else "throws match"  # a zilch game can end in one
    assert f"{throws} of {throws} {words}" in verdict.inner_text()
    assert verdict.inner_text().startswith("✓")
    assert ana.get_attribute("#download", "href") == f"/api/games/{game}/record"
    # Rematch: the same seats in a new game. Its host is the first game's (new invitations
    # hers to make), and Bob joining is seen on her page at once (it said "not yet joined").
    ana.click("#rematch")
    ana.wait_for_url(re.compile(r"/g/(?!" + re.escape(game) + r")[^/]+$"))
    ana.wait_for_selector("#act-throw")
    ana.wait_for_selector("#reissue-1")
    assert ana.get_attribute("#seat-1", "data-taken") == "false"
    bob.wait_for_selector("#rematch:has-text('Join the rematch')")
    bob.click("#rematch")
    bob.wait_for_url(ana.url)
    ana.wait_for_selector("#seat-1[data-taken=true]", timeout=5000)
    rematch = ana.url.rsplit("/", 1)[1]
    ana.goto(web.base + "/")  # her games: the rematch says it is one (the same line, else)
    ana.wait_for_function(
        f"document.querySelector('#game-{rematch}')?.parentElement"
        ".querySelector('.rematch-tag')?.textContent === 'rematch'"
    )
    assert ana.locator(f"#game-{game} ~ .rematch-tag").inner_text() == ""


def test_a_refused_move_shows_its_reason(new_page: Callable[..., Any], web: Server) -> None:
    ana = new_page()
    create_game(ana, web, preset="dix-mille", target=None, real_dice=True)
    ana.click("#go-table")
    ana.wait_for_selector("#act-throw:enabled")
    # Disabled, with the engine's reason under the button.
    assert ana.inner_text("#why-bank") == "you cannot bank now: there is nothing kept to bank"
    # Tried anyway (the key b): refused by the server, with the reason, under the buttons:
    # none of them moves from under a finger.
    buttons = {b: ana.locator(b).bounding_box() for b in ("#act-throw", "#act-bank")}
    ana.keyboard.press("b")
    ana.wait_for_selector("#notice.refused")
    assert "nothing kept to bank" in ana.inner_text("#notice")
    assert {b: ana.locator(b).bounding_box() for b in buttons} == buttons
    # Throw on, Bank off: as tall, so that turning on or off moves no button.
    assert buttons["#act-throw"]["height"] == buttons["#act-bank"]["height"] >= 44
    assert ana.locator(".felt #notice").count() == 1
    click_and_wait(ana, "#act-throw")
    # While the dice are in the air a die may fall off the table (V-1 Reading), as the
    # engine and the terminal allow.
    assert ana.locator("#act-off:enabled").count() == 1
    roll_real(ana, 1, 2, 3, 4, 6)
    # A throw on the table: what a bank lacks is a keep from it (T-2).
    assert "keep dice from the throw first (T-2)" in ana.inner_text("#why-bank")
    ana.keyboard.press("2")  # the second die: the 2
    assert ana.get_attribute("#die-1", "aria-pressed") == "true"
    assert "✓" in ana.inner_text("#die-1")  # marked, not only coloured
    ana.keyboard.press("Enter")
    ana.wait_for_function("document.querySelector('#notice')?.textContent.includes('T-2')")
    assert "the 2 does not score (T-2)" in ana.inner_text("#notice")
    assert "the 2 does not score" in ana.inner_text("#log")


def test_a_reload_in_the_middle_of_a_turn_comes_back_to_the_same_state(
    new_page: Callable[..., Any], web: Server
) -> None:
    ana = new_page()
    create_game(ana, web, preset="dix-mille", target=None, real_dice=True)
    ana.click("#go-table")
    ana.wait_for_selector("#act-throw:enabled")
    roll_real(ana, 1, 1, 5, 3, 4)
    click_and_wait(ana, "#keep-0")  # the first keep listed
    before = {
        "status": ana.inner_text("#status"),
        "turn": ana.inner_text("#turn-line"),
        "sheet": ana.inner_text("#sheet"),
        "log": ana.inner_text("#log"),
        "version": version(ana),
    }
    ana.reload()
    ana.wait_for_selector("#act-throw:enabled")
    after = {
        "status": ana.inner_text("#status"),
        "turn": ana.inner_text("#turn-line"),
        "sheet": ana.inner_text("#sheet"),
        "log": ana.inner_text("#log"),
        "version": version(ana),
    }
    assert after == before
    assert "Turn total" in after["turn"]


def test_real_dice_keep_a_scripted_games_sheet(new_page: Callable[..., Any], web: Server) -> None:
    """One phone keeps the score of two people playing with real dice: faces typed, keeps
    picked, a mistyped throw undone, a farkle, a bank, a take-back offer, a die off the table."""
    phone = new_page()
    links = create_game(phone, web, preset="dix-mille", target=None, real_dice=True)
    assert "invite-1" not in links  # this phone holds both seats
    phone.click("#go-table")
    phone.wait_for_selector("#act-throw:enabled")
    game = phone.url.rsplit("/", 1)[1]

    def keep(dice: str) -> None:
        button = phone.locator(
            "button.keep", has=phone.locator(".keep-dice", has_text=re.compile(f"^{dice}$"))
        )
        before = version(phone)
        button.click()
        phone.wait_for_function(
            f"Number(document.querySelector('#status').dataset.version) > {before}"
        )

    roll_real(phone, 1, 2, 3, 4, 6)
    keep("1")
    roll_real(phone, 1, 1, 5, 6)  # mistyped: it was 1 1 5 5
    click_and_wait(phone, "#act-undo")
    assert phone.get_attribute("#status", "data-phase") == "roll"
    roll_real(phone, 1, 1, 5, 5)
    keep("1 1 5 5")
    roll_real(phone, 2, 3, 4, 6, 6)  # a farkle: Ana's turn is lost, a tick with no level
    assert "Bob" in phone.inner_text("#status")
    roll_real(phone, 5, 5, 5, 2, 3)
    keep("5 5 5")
    click_and_wait(phone, "#act-bank")
    click_and_wait(phone, "#act-fresh")  # Ana refuses Bob's 500 (G-8) and throws fresh
    roll_real(phone, 1, 5, 2, 3, 4)
    click_and_wait(phone, "#act-off")  # a die off the table: the turn is lost

    record = web.get(f"/api/games/{game}/record")
    assert "undo" not in record["actions"] and "roll 1 1 5 6" not in record["actions"]
    _, state = load_record(json.dumps(record))
    expected = sheet_json(state)
    assert [p["score"] for p in expected["players"]] == [0, 500]
    columns = phone.locator("#sheet tfoot td").all_inner_texts()
    assert [c.split()[0] for c in columns] == ["0", "500"]
    head = phone.locator("#sheet thead th").all_inner_texts()
    assert [h.split()[0] for h in head] == ["Ana", "Bob"]
    cells = phone.locator("#sheet tbody td").all_inner_texts()
    drawn = [c.strip() for c in cells if c.strip()]
    written = [str(lv["value"]) for p in expected["players"] for lv in p["levels"]]
    assert drawn == written == ["500"]
    # Ana's two lost turns stand as ticks with no level, under her column (G-3).
    ticks = expected_loose_ticks(web, game)
    assert columns[0].count("/") == ticks[0] > 0
    assert "Bob" in phone.inner_text("#status") or "Ana" in phone.inner_text("#status")


def test_a_winning_throw_typed_wrong_is_undone_from_the_end(
    new_page: Callable[..., Any], web: Server
) -> None:
    """At a real table the end offers an undo: the game opens again where it was before
    the last entry, and the review and the rematch wait for its real end."""
    phone = new_page()
    create_game(phone, web, preset="dix-mille", target=1000, real_dice=True)
    phone.click("#go-table")
    phone.wait_for_selector("#act-throw:enabled")
    roll_real(phone, 1, 1, 1, 2, 3)
    before = version(phone)
    phone.locator("button.keep").first.click()  # 1 1 1: lands on the target
    phone.wait_for_function(f"Number(document.querySelector('#status').dataset.version) > {before}")
    click_and_wait(phone, "#act-bank")
    phone.wait_for_selector("#end-undo")
    assert phone.locator("#rematch").count() == 1
    click_and_wait(phone, "#end-undo")
    phone.wait_for_selector("#act-bank:enabled")
    assert phone.locator("#end").count() == 0
    assert phone.get_attribute("#status", "data-phase") == "decide"
    game = phone.url.rsplit("/", 1)[1]
    assert web.get(f"/api/games/{game}")["status"] == "playing"


def test_a_host_who_opens_a_friends_invitation_is_asked_before_taking_the_seat(
    new_page: Callable[..., Any], web: Server
) -> None:
    """Tapping Bob's link on the host's phone (to share it) took Bob's seat without a word:
    the page asks first, and going back leaves the seat to Bob."""
    ana = new_page()
    links = create_game(ana, web)
    ana.click("#go-table")
    ana.wait_for_selector("#act-throw")
    game = ana.url.rsplit("/", 1)[1]
    ana.goto(links["invite-1"])
    ana.wait_for_selector("#other-seat")
    assert "Bob" in ana.inner_text("#other-seat h2")
    ana.click("#back-to-game")
    ana.wait_for_url(re.compile(rf"/g/{game}$"))
    ana.wait_for_selector("#act-throw")
    assert ana.get_attribute("#seat-1", "data-taken") == "false"
    ana.goto(links["invite-1"])
    ana.click("#take-seat")  # both seats on this phone, as asked
    ana.wait_for_url(re.compile(rf"/g/{game}$"))
    ana.wait_for_selector("#seat-1[data-taken=true]")
    bob = new_page()  # a browser with no seat of the game is seated at once, as before
    bob.goto(links["invite-1"])
    bob.wait_for_url(re.compile(rf"/g/{game}$"))


def test_the_open_link_of_a_full_game_offers_to_watch_it(
    new_page: Callable[..., Any], web: Server
) -> None:
    ana = new_page()
    create_game(ana, web, people=("Ana", "", ""))
    link = ana.input_value("#open-link")
    for _ in range(2):
        friend = new_page()
        friend.goto(link)
        friend.wait_for_selector("#status")
    late = new_page()
    late.goto(link)
    late.wait_for_selector("#watch-game")
    assert late.inner_text("[role=alert]") == "Every seat of this game is taken"
    late.click("#watch-game")
    late.wait_for_function("document.querySelector('#status')?.innerText.includes('watching')")


def test_a_keyboard_alone_plays_and_opens_every_fold_out(
    new_page: Callable[..., Any], web: Server
) -> None:
    """Enter on a fold-out threw the dice (the page's Enter took it); a keep's spoken name
    dropped its warning; after Throw the focus fell to the page; the language list
    reloaded the page at the first arrow; a refusal was spoken again at every drawing."""
    phone = new_page()
    create_game(phone, web, preset="dix-mille", target=1000, real_dice=True)
    phone.click("#go-table")
    phone.wait_for_selector("#act-throw:enabled")
    before = version(phone)
    phone.focus("#rules-summary")
    phone.keyboard.press("Enter")
    phone.wait_for_selector("#rules-panel[open]")
    assert version(phone) == before and phone.get_attribute("#status", "data-phase") == "start"
    phone.focus("#act-throw")
    phone.keyboard.press("Enter")
    phone.wait_for_function(f"Number(document.querySelector('#status').dataset.version) > {before}")
    phone.wait_for_function("document.activeElement && document.activeElement !== document.body")
    roll_real(phone, 1, 1, 1, 5, 2)  # 1 1 1 5 passes 1000 (T-9), 1 1 1 lands on it
    names = phone.locator("button.keep").evaluate_all("bs => bs.map(b => b.ariaLabel)")
    assert "keep 1 1 1 for 1000, lands on 1000: bank it to win" in names
    assert any(n.startswith("keep 1 1 1 5 for 1050, passes 1000") for n in names), names
    phone.keyboard.press("b")  # refused: nothing kept
    phone.wait_for_selector("#notice")
    assert phone.get_attribute("#notice", "role") is None  # the live log says it, once
    phone.locator("body").focus()
    phone.keyboard.press("1")  # a die picked by its key is said (no focus tells it)
    phone.wait_for_function(
        "document.querySelector('#live').innerText.includes('die 1: 1, selected')"
    )
    phone.focus("#language")
    phone.keyboard.press("ArrowDown")
    phone.wait_for_timeout(300)
    assert phone.get_attribute("html", "lang") == "en"  # not reloaded in French
    # The keys are listed on the page, and one switch turns the one-key shortcuts off.
    phone.click("#keys-summary")
    assert "pick dice" in phone.inner_text("#keys-list")
    phone.uncheck("#keys-on")
    phone.locator("body").focus()
    before = version(phone)
    phone.keyboard.press("u")  # would undo the faces: off, nothing happens
    phone.wait_for_timeout(300)
    assert version(phone) == before
    phone.reload()
    phone.wait_for_selector("#keys-on", state="attached")
    assert not phone.is_checked("#keys-on")  # kept by the browser
    phone.focus("#language")
    phone.keyboard.press("ArrowDown")
    phone.keyboard.press("Enter")  # the language chosen, applied
    phone.wait_for_function("document.documentElement.lang === 'fr'")


def expected_loose_ticks(web: Server, game: str) -> list[int]:
    state = web.get(f"/api/games/{game}")
    return [s["loose_ticks"] for s in state["standing"]]


def test_the_pages_sha256_hmac_and_throws_are_pythons(
    new_page: Callable[..., Any], web: Server
) -> None:
    """The page's own SHA-256 and HMAC (crypto.subtle is missing on plain http) against
    hashlib, and its throws against the server's scheme, seeds in any script included."""
    page = new_page()
    page.goto(web.base + "/static/icon.svg")
    messages = [b"", b"abc", b"a" * 55, b"a" * 56, b"a" * 64, bytes(range(256)) * 5]
    keys = [b"", b"k", bytes(range(32)), b"x" * 64, b"y" * 65, bytes(range(200))]
    seeds = [
        PlayerSeed(0, "ana's words", 0),
        PlayerSeed(1, 'café ☕ 😀 \\ "quoted"', 2),
    ]
    secret = "00" * 31 + "ff"
    found = page.evaluate(
        """async ([messages, keys, secret, seeds]) => {
            const m = await import('/static/js/sha256.js');
            const v = await import('/static/js/verify.js');
            const bytes = (list) => new Uint8Array(list);
            return {
                sha: messages.map((x) => m.toHex(m.sha256(bytes(x)))),
                hmac: keys.map((k, i) => m.toHex(m.hmacSha256(bytes(k), bytes(messages[i])))),
                faces: [0, 1, 2, 3, 9].map((i) => v.throwFaces(secret, seeds, i, 6)),
                json: v.asciiJson([3, 0, seeds.map((s) => [s.seat, s.seed])]),
            };
        }""",
        [
            [list(x) for x in messages],
            [list(k) for k in keys],
            secret,
            [{"seat": s.seat, "seed": s.seed, "from_throw": s.from_throw} for s in seeds],
        ],
    )
    assert found["sha"] == [hashlib.sha256(x).hexdigest() for x in messages]
    assert found["hmac"] == [
        hmac.new(k, x, hashlib.sha256).hexdigest() for k, x in zip(keys, messages, strict=True)
    ]
    assert found["faces"] == [list(throw_faces(secret, seeds, i, 6)) for i in (0, 1, 2, 3, 9)]
    assert found["json"].encode() == message(3, 0, seeds)


def test_the_page_catches_a_forged_throw(new_page: Callable[..., Any], web: Server) -> None:
    rooms = Rooms(MemoryStore())
    created = rooms.create(NewGame((SeatSpec("Ana"), SeatSpec(bot="easy")), "zilch(target=500)"))
    token = rooms.join(created.invites[0][1]).token
    for n in range(3000):
        room = rooms.room(created.game_id)
        if room.over:
            break
        if room.bot_to_move() is not None:
            rooms.bot_move(created.game_id, room.version)
            continue
        action = str(legal_actions(room.state)[0])
        rooms.intent(created.game_id, token, room.version, f"c{n}", action)
    record = json.loads(rooms.room(created.game_id).record_text())
    place = next(i for i, a in enumerate(record["actions"]) if a.startswith("roll"))
    faces = [int(f) for f in record["actions"][place].split()[1:]]
    faces[0] = faces[0] % 6 + 1  # one die changed: every face moved would leave 1..6 as it was
    record["actions"][place] = "roll " + " ".join(map(str, sorted(faces)))
    page = new_page()
    page.goto(web.base + "/static/icon.svg")
    result = page.evaluate(
        "async (r) => (await import('/static/js/verify.js')).verifyRecord(r)", record
    )
    assert result["commitmentOk"] and not result["ok"]
    assert [t["action"] for t in result["throws"] if not t["matches"]] == [place + 1]


def test_the_french_page_plays_a_turn(new_page: Callable[..., Any], web: Server) -> None:
    """A browser in French gets the page in French (its labels from ui.po), plays a turn,
    and the switch brings English back."""
    phone = new_page(locale="fr-FR")
    phone.goto(web.base + "/")
    phone.wait_for_selector("#create")
    assert phone.get_attribute("html", "lang") == "fr"
    assert phone.inner_text("#create") == "Créer la partie"
    links = create_game(phone, web, preset="dix-mille", target=None, real_dice=True)
    assert links["watch"].endswith("?watch")
    phone.click("#go-table")
    phone.wait_for_selector("#act-throw:enabled")
    assert phone.inner_text("#status").startswith("À Ana de jouer")
    assert phone.inner_text("#act-throw").startswith("Lancer")
    phone.click("#rules-panel summary")  # the rules: the straights too, in French
    assert "suite 1-5" in phone.inner_text("#combinations")
    assert phone.evaluate("document.documentElement.scrollWidth") == PHONE["width"]
    phone.click("#rules-panel summary")
    # The engine's words come translated from the server (hello and ?lang=fr).
    assert (
        phone.inner_text("#why-bank") == "vous ne pouvez pas marquer maintenant : rien n'est gardé"
    )
    click_and_wait(phone, "#act-throw")
    assert "Touchez" in phone.inner_text(".face-pad")
    roll_real(phone, 5, 5, 5, 2, 3)
    assert "Prises possibles" in phone.inner_text(".keeps")
    phone.keyboard.press("3")
    phone.keyboard.press("4")
    phone.keyboard.press("5")
    assert phone.inner_text("#act-keep").startswith("Garder 5 5 5")
    before = version(phone)
    phone.keyboard.press("Enter")
    phone.wait_for_function(f"Number(document.querySelector('#status').dataset.version) > {before}")
    assert phone.inner_text("#act-bank").startswith("Marquer 500")
    click_and_wait(phone, "#act-bank")
    assert phone.inner_text("#status").startswith("À Bob de jouer")
    log = phone.inner_text("#log")
    assert "Ana garde 5 5 5 pour 500 (total du tour 500)" in log
    assert "Ana marque 500 : nouveau palier 500" in log
    assert "keeps" not in log and "banks" not in log
    assert phone.locator("#sheet tbody td").all_inner_texts()[0].strip() == "500"
    phone.click("#hint-toggle")  # its values in French numbers: 1 234,5 (it wrote 1234.5)
    phone.wait_for_selector(".hint td.num")
    values = phone.locator(".hint td.num").all_inner_texts()
    assert values and all("," in v and "." not in v for v in values), values
    # The rules panel: a choice in words, a rule id's Reading in French (both were English).
    phone.click("#rules-panel > summary")
    rules = phone.inner_text("#rules-panel")
    assert "Reading" not in rules and "interprétation" in rules
    assert phone.inner_text("[data-option='bump'] .value") == "le palier courant"
    assert phone.inner_text("[data-option='overshoot'] .value") == "le tour est perdu"
    phone.select_option("#language", "en")
    phone.wait_for_selector("#act-throw")
    assert phone.get_attribute("html", "lang") == "en"
    assert phone.inner_text("#status").startswith("Bob to play")
    # The switch reloads the page: the hint and the rules panel stay open, now in English.
    phone.wait_for_selector(".hint td.num")
    assert phone.get_attribute("#hint-toggle", "aria-expanded") == "true"
    assert phone.inner_text("#hint-toggle").startswith("Hide the hint")
    assert phone.get_attribute("#rules-panel", "open") is not None
    phone.wait_for_selector("[data-option='bump'] .value")
    assert phone.inner_text("[data-option='bump'] .value") != "le palier courant"


def test_a_keep_that_passes_an_exact_target_is_marked(
    new_page: Callable[..., Any], web: Server, tmp_path: Path
) -> None:
    """1 1 1 5 6 at 0 of an exact 1,000: 1 1 1 5 passes it (T-9), 1 1 1 lands on it (and
    says so: bank it to win)."""
    phone = new_page()
    create_game(phone, web, preset="dix-mille", target=1000, real_dice=True)
    phone.click("#go-table")
    phone.wait_for_selector("#act-throw:enabled")
    roll_real(phone, 1, 1, 1, 5, 6)
    rows = {
        phone.locator(f"#keep-{i} .keep-dice").inner_text(): phone.locator(
            f"#keep-{i}"
        ).inner_text()
        for i in range(phone.locator("button.keep").count())
    }
    assert "passes 1000: the turn is lost" in rows["1 1 1 5"]
    assert "passes" not in rows["1 1 1"]
    assert "lands on 1000: bank it to win" in rows["1 1 1"]
    assert "lands" not in rows["1 1 1 5"] and "lands" not in rows["1"]
    # The hint marks it too, whatever its value says (a chance to win near 100% where the
    # other player is far behind would not)
    phone.click("#hint-toggle")
    passing = ".hint-table tr[data-action='keep 1 1 1 5']"
    phone.wait_for_selector(passing)
    assert "passes 1000: the turn is lost" in phone.inner_text(passing)
    assert "passes" not in phone.inner_text(".hint-table tr[data-action='keep 1 1 1']")
    assert phone.evaluate("document.documentElement.scrollWidth") == PHONE["width"]
    phone.screenshot(path=str(tmp_path / "passes.png"), full_page=True)


def test_seats_cannot_be_lost_and_the_table_never_goes_silent(
    browser: Any, new_page: Callable[..., Any], tmp_path: Path
) -> None:
    """The host closes the table and opens it again: the seat list still has Bob's
    invitation, copied from there; Bob opens it in two browsers and holds his seat in
    both. The server is killed (SIGKILL): the page says so within 2 s; a keep tapped
    meanwhile is queued, said, and played once the server is back."""
    server = Server(f"sqlite:///{tmp_path / 'games.sqlite'}", log=tmp_path / "server.log")
    server.start()
    try:
        ana = new_page()
        ana.context.grant_permissions(["clipboard-read", "clipboard-write"])
        create_game(ana, server, target=2000)
        ana.click("#go-table")
        ana.wait_for_selector("#act-throw")
        game = ana.url.rsplit("/", 1)[1]
        ana.close()

        ana = ana.context.new_page()  # the host's browser, the page opened again
        ana.goto(f"{server.base}/g/{game}")
        ana.wait_for_selector("#seat-link-1")
        assert "not yet joined" in ana.inner_text("#seat-1")
        ana.click("#seat-link-1-copy")
        ana.wait_for_function("document.querySelector('#seat-link-1-copy').textContent !== 'Copy'")
        link = ana.input_value("#seat-link-1")
        if ana.inner_text("#seat-link-1-copy") == "Copied":
            assert ana.evaluate("navigator.clipboard.readText()") == link
        assert re.fullmatch(rf"{re.escape(server.base)}/join/[\w-]+", link), link
        ana.click("#seat-link-1-show-qr")
        ana.wait_for_function("document.querySelector('#seat-link-1-qr').naturalWidth > 0")

        bobs = [new_page(), new_page()]  # a chat app's browser, then the real one
        for bob in bobs:
            bob.goto(link)
            bob.wait_for_url(re.compile(rf"/g/{game}$"))
            bob.wait_for_selector("#status .role")
            assert bob.inner_text("#status .role") == "you are Bob · seat 2"
        ana.wait_for_function("document.querySelector('#seat-1').dataset.taken === 'true'")
        assert "joined" in ana.inner_text("#seat-1")

        click_and_wait(ana, "#act-throw")
        ana.wait_for_selector("#keep-0")
        before = version(ana)
        server.kill()
        killed = time.monotonic()
        ana.wait_for_selector("#connection[data-state='reconnecting']", timeout=5_000)
        noticed = time.monotonic() - killed
        assert noticed < 5, noticed  # at once on a quiet machine; a loaded one is slower
        assert "Connection lost" in ana.inner_text("#connection")
        kept = ana.locator("#keep-0 .keep-dice").inner_text()
        ana.click("#keep-0")
        ana.wait_for_selector("#connection[data-queued='1']")
        assert f"keep {kept} is sent when the connection is back" in ana.inner_text("#log")

        server.start()
        ana.wait_for_function(
            f"Number(document.querySelector('#status').dataset.version) > {before}",
            timeout=30_000,
        )
        ana.wait_for_selector("#connection[data-queued='0']")
        assert ana.get_attribute("#connection", "data-state") in ("back", "connected")
        record = server.get(f"/api/games/{game}/record")
        assert record["actions"][-1] == f"keep {kept}", record["actions"][-3:]
        assert "Traceback" not in server.read_log()
    finally:
        server.stop()


def test_the_table_says_what_each_bot_plays(new_page: Callable[..., Any], web: Server) -> None:
    ana = new_page()
    create_game(ana, web, preset="dix-mille", target=None, people=("Ana",))
    ana.click("#go-table")
    ana.wait_for_selector("#bots-line li")
    line = ana.inner_text("#bots-line")
    assert "medium (bot): keeps as strong does but pushes its luck: it throws on unless" in line


def test_the_felt_shows_a_farkle_the_last_round_and_keeps_its_buttons_in_place(
    new_page: Callable[..., Any], web: Server
) -> None:
    """Real dice on one phone (greed to 1000): a farkle stays on the felt with its dice and
    words until the next throw (it was only in the log); the buttons keep one order whatever
    can be done (enabled ones moved first, a thumb found another); once Ana reaches the
    target, Bob's status says it is the last round and at what score."""
    phone = new_page()
    create_game(phone, web, preset="greed", target=1000, real_dice=True)
    phone.click("#go-table")
    phone.wait_for_selector("#act-throw:enabled")

    def order() -> list[str]:
        return phone.locator(".actions button").evaluate_all("(bs) => bs.map((b) => b.id)")

    start = order()
    roll_real(phone, 2, 3, 4, 6, 6)  # Ana farkles
    assert "Bob" in phone.inner_text("#status")
    assert phone.locator("#farkle .die").count() == 5
    assert "Ana loses the turn (no combination): 0 lost" in phone.inner_text(".farkle-note")
    assert order() == start
    roll_real(phone, 2, 2, 3, 4, 6)  # Bob farkles too: his farkle replaces hers
    assert "Bob loses the turn" in phone.inner_text(".farkle-note")
    roll_real(phone, 1, 1, 1, 2, 3)
    assert phone.locator("#farkle").count() == 0  # a throw on the felt: the farkle goes
    kept = order()
    assert [b for b in kept if b in start] == [b for b in start if b in kept]
    button = phone.locator("button.keep", has=phone.locator(".keep-dice", has_text="1 1 1"))
    before = version(phone)
    button.first.click()
    phone.wait_for_function(f"Number(document.querySelector('#status').dataset.version) > {before}")
    assert phone.locator("#final").count() == 0
    click_and_wait(phone, "#act-bank")  # Ana 1000: Bob's last turn (F-4)
    assert phone.inner_text("#final") == "Last round: Ana leads with 1000"
    assert order() == start


def test_a_double_tap_on_throw_does_not_keep_dice(
    new_page: Callable[..., Any], web: Server
) -> None:
    """A second tap right after a throw lands on the buttons the throw moved (a keep where
    Throw was, on a phone): it is not taken; a tap once they have settled is."""
    phone = new_page(settle=1500)  # longer than the page's: a loaded machine clicks late
    create_game(phone, web, preset="greed", target=1000, real_dice=True)
    phone.click("#go-table")
    phone.wait_for_selector("#act-throw:enabled")
    click_and_wait(phone, "#act-throw")
    for face in (1, 1, 1, 2, 3):
        phone.click(f"#face-{face}")
    phone.wait_for_timeout(1600)  # a person takes longer to tap five faces
    click_and_wait(phone, "#act-roll")
    before = version(phone)
    phone.click("#keep-0")  # at once: the second tap of a double tap
    phone.wait_for_timeout(300)
    assert version(phone) == before and phone.get_attribute("#status", "data-phase") == "keep"
    phone.wait_for_timeout(1400)
    click_and_wait(phone, "#keep-0")  # settled: taken
    assert phone.get_attribute("#status", "data-phase") == "decide"


def test_the_french_lobby_says_each_choice_in_words_and_cuts_no_player_kind(
    new_page: Callable[..., Any], web: Server
) -> None:
    """The choices of an option in French, each with its value as a spec writes it (they
    were English codes: off, current, any); the select of a player's kind shows its whole
    word on a phone ("personne" was cut); the list of rules has no scroll box of its own; a
    bot's level says what its bot plays."""
    page = new_page(locale="fr-FR")
    page.goto(web.base + "/")
    page.wait_for_selector("#option-bump", state="attached")
    choices = page.locator("#option-bump option").evaluate_all(
        "(os) => os.map((o) => o.textContent)"
    )
    assert choices == [
        "comme le préréglage (le palier courant)",
        "pas de palier rejoint (off)",
        "le palier courant (current)",
        "tout palier (any)",
    ]
    page.click("details.options > summary")
    page.select_option("#option-bump", "any")
    assert "bump=any" in page.inner_text("#spec")
    kind = page.locator("#seat-0-kind")
    assert kind.evaluate("(s) => s.scrollWidth <= s.clientWidth")
    assert kind.evaluate("(s) => s.options[s.selectedIndex].textContent") == "personne"
    listed = page.locator("#more-options")
    assert listed.evaluate("(u) => getComputedStyle(u).overflowY") == "visible"
    # Each bot's level says what it plays, in French, and follows the choice.
    assert page.inner_text("#seat-1-plays").startswith("garde comme le niveau fort")
    page.select_option("#seat-1-level", "easy")
    assert page.inner_text("#seat-1-plays") == (
        "garde le plus de points et marque dès qu'il le peut"
    )
    page.select_option("#seat-0-kind", "bot")
    assert page.inner_text("#seat-0-plays").startswith("garde comme le niveau fort")


def test_the_search_of_the_rules_leaves_only_the_rules_it_finds(
    new_page: Callable[..., Any], web: Server
) -> None:
    """Words typed in the lobby's search of the rules leave the rules that hold every one
    of them (the others stayed on screen, hidden in name only), and clearing it shows all."""
    page = new_page()
    page.goto(web.base + "/")
    page.wait_for_selector("#option-search", state="attached")
    page.click("details.options > summary")
    rows = page.locator("#more-options > li")
    total = rows.count()
    page.fill("#option-search", "joker")
    shown = [row for row in rows.all() if row.is_visible()]
    assert 0 < len(shown) < total
    assert all("joker" in (row.get_attribute("data-search") or "") for row in shown)
    page.fill("#option-search", "")
    assert sum(row.is_visible() for row in rows.all()) == total


def test_the_reviews_curve_keeps_the_names_of_lines_that_end_level_apart(
    new_page: Callable[..., Any], web: Server
) -> None:
    """Two players who end at the same value: their names at the lines' end were written
    on top of each other; they are a line of text apart, inside the plot, in seat order."""
    page = new_page()
    page.goto(web.base + "/")
    page.wait_for_selector("#preset")
    labels = page.evaluate(
        """async () => {
          const { curve } = await import("/static/js/end.js");
          const review = {
            players: ["Ana", "bot:medium", "Bea"],
            curve: {
              measure: "win probability",
              points: [{ values: [0.4, 0.3, 0.3] }, { values: [0.5, 0.25, 0.25] }],
            },
          };
          const figure = curve(review);
          document.body.append(figure);
          return [...figure.querySelectorAll("text.curve-label")].map((t) => [
            t.textContent,
            Number(t.getAttribute("y")),
          ]);
        }"""
    )
    names = [name for name, _ in labels]
    assert names == ["Ana", "medium (bot)", "Bea"]
    ana, bot, bea = (y for _, y in labels)
    assert bea - bot >= 14 and abs(ana - bot) >= 14  # a line of their 12-unit text
    assert all(0 < y <= 160 for _, y in labels)


def test_a_second_move_before_the_first_is_drawn_waits_and_an_undo_clears_a_farkle(
    new_page: Callable[..., Any], web: Server
) -> None:
    """The server acknowledges a move, then sends its events in a frame of their own: a
    second press in between went out on the old version and came back refused as stale
    ("the game has moved on since version N"). It waits now, says so, and the notice goes
    with the events (held back here, as a slow network would). An undo that takes back a
    farkle takes it off the felt too."""
    phone = new_page()
    held: list[str] = []
    hold = {"events": False}
    sockets: list[Any] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        sockets.append(ws)

        def down(message: str) -> None:
            if hold["events"] and '"type":"events"' in message.replace(" ", ""):
                held.append(message)
            else:
                ws.send(message)

        server.on_message(down)

    phone.route_web_socket(re.compile(r".*/ws/.*"), route)
    create_game(phone, web, preset="greed", target=1000, real_dice=True)
    phone.click("#go-table")
    phone.wait_for_selector("#act-throw:enabled")
    hold["events"] = True
    phone.keyboard.press("t")
    deadline = time.monotonic() + 10  # the ack is in, its events held (polled: a busy machine)
    while not held:
        assert time.monotonic() < deadline, "no events came after the throw in 10 s"
        phone.wait_for_timeout(50)
    assert phone.get_attribute("#status", "data-phase") == "start"
    phone.keyboard.press("t")
    phone.wait_for_function(
        "(document.querySelector('#notice')?.innerText ?? '').includes('on its way')"
    )
    hold["events"] = False
    for frame in held:
        sockets[-1].send(frame)
    phone.wait_for_function("document.querySelector('#status').dataset.phase === 'roll'")
    phone.wait_for_timeout(300)
    assert "Refused" not in phone.inner_text("#log")
    assert phone.locator("#notice").count() == 0
    roll_real(phone, 2, 3, 4, 6, 6)  # Ana farkles
    assert phone.locator("#farkle").count() == 1
    click_and_wait(phone, "#act-undo")
    click_and_wait(phone, "#act-undo")
    assert "Ana" in phone.inner_text("#status") and phone.locator("#farkle").count() == 0


def test_links_that_lead_nowhere_say_so_and_a_pasted_code_joins(
    new_page: Callable[..., Any], web: Server
) -> None:
    """A game not on the server reconnected for ever ("Connection lost"), a mistyped page was
    a bare line of JSON, the join box took only a whole link of this server's address, and a
    seat whose invitation was made again locked its browser out of the game."""
    lost = new_page()
    sockets: list[Any] = []
    lost.on("websocket", lambda socket: sockets.append(socket))
    lost.goto(web.base + "/g/nosuchgame")
    lost.wait_for_selector("#refused")
    assert "No such game" in lost.inner_text("#refused")
    lost.wait_for_timeout(2_500)  # the first retry came after 0.5 s
    assert len(sockets) == 1 and lost.locator("#connection").count() == 0
    lost.goto(web.base + "/no/such/page")
    assert "No page here" in lost.inner_text("#no-page")

    ana = new_page()
    links = create_game(ana, web, people=("Ana", "Bob", "Chloe"))
    ana.click("#go-table")
    ana.wait_for_selector("#act-throw")
    game = ana.url.rsplit("/", 1)[1]
    bob, chloe = new_page(), new_page()
    bob.goto(web.base + "/")
    bob.fill("#join-link", "hello world")
    bob.click("#join-link ~ button")
    assert "not an invitation" in bob.inner_text("#join-error")
    read = bob.evaluate(
        """async (cases) => {
            const { joinPath } = await import("/static/js/lobby.js");
            return cases.map((text) => joinPath(text));
        }""",
        [
            "localhost:8000/g/Iv-DV8_IVh01",  # no scheme
            "<http://h/join/ABCDEFGHIJKLMNOP>.",  # in brackets, ending a sentence
            "http://h/g/Iv-DV8_IVh01?x&watch=1",
            "http://h/g/abc/other",
        ],
    )
    assert read == ["/g/Iv-DV8_IVh01", "/join/ABCDEFGHIJKLMNOP", "/g/Iv-DV8_IVh01?watch", None]
    bob.fill("#join-link", links["invite-1"].rsplit("/", 1)[1])  # the code alone
    bob.click("#join-link ~ button")
    bob.wait_for_url(re.compile(rf"/g/{game}$"))
    chloe.goto(web.base + "/")  # the link as sent from another of the server's addresses
    chloe.fill("#join-link", links["invite-2"].replace(web.base, "http://192.0.2.7:8000"))
    chloe.click("#join-link ~ button")
    chloe.wait_for_url(re.compile(rf"/g/{game}$"))
    chloe.wait_for_selector("#status .role")
    assert chloe.inner_text("#status .role") == "you are Chloe · seat 3"

    ana.wait_for_function("document.querySelector('#seat-1').dataset.taken === 'true'")
    assert ana.locator("#reissue-0").count() == 0  # not the host's own seat
    ana.click("#seat-1 summary")
    ana.click("#reissue-1")  # the question is answered yes
    ana.wait_for_function("document.querySelector('#seat-1').dataset.taken === 'false'")
    bob.reload()
    bob.wait_for_selector("#refused")
    assert "Your seat's link no longer works" in bob.inner_text("#refused")
    bob.click("#watch-instead")
    bob.wait_for_selector("#status .role")
    assert "watching" in bob.inner_text("#status .role")


def test_a_friend_seated_by_an_invitation_names_their_seat(
    new_page: Callable[..., Any], web: Server
) -> None:
    """The host leaves the second name blank ("Player 2"); the friend who opens the
    invitation is asked their name at the table, a name already taken is refused there in
    words, and the name they save is on the host's page (its seats and its sheet) and in the
    seat list, which also lets them change it again."""
    ana = new_page()
    links = create_game(ana, web, people=("Ana", ""))
    ana.click("#go-table")
    ana.wait_for_selector("#act-throw")
    assert ana.locator("#naming").count() == 0  # the host named herself in the lobby
    game = ana.url.rsplit("/", 1)[1]
    bea = new_page()
    bea.goto(links["invite-1"])
    bea.wait_for_url(re.compile(rf"/g/{game}$"))
    bea.wait_for_selector("#naming")
    assert bea.inner_text("#naming label") == "Your name at this table"
    assert bea.input_value("#my-name") == "Player 2"
    bea.keyboard.type("Ana")  # the field has the focus, its text selected: typed over
    assert bea.input_value("#my-name") == "Ana"
    bea.click("#save-name")
    bea.wait_for_selector("#name-error")
    assert "another player of this game is called 'Ana'" in bea.inner_text("#name-error")
    bea.fill("#my-name", "Bea")
    bea.click("#save-name")
    bea.wait_for_selector("#naming", state="detached")
    bea.wait_for_selector("#status .role")
    bea.wait_for_function("document.querySelector('#status .role').textContent.includes('Bea')")
    ana.wait_for_function("document.querySelector('#seat-1 .seat-name').textContent === 'Bea'")
    ana.wait_for_function("document.body.innerText.includes('Bea')")
    assert "Player 2 is now called Bea" in ana.inner_text("#log")  # the lines before say
    assert "Player 2" not in ana.inner_text("main").replace("Player 2 is now", "")
    assert ana.locator("#rename-1").count() == 0  # not her seat: no button for it
    bea.click("#rename-1")  # changed again, from the seat list
    assert bea.input_value("#my-name") == "Bea"
    bea.fill("#my-name", "Béa")
    bea.press("#my-name", "Enter")
    ana.wait_for_function("document.querySelector('#seat-1 .seat-name').textContent === 'Béa'")
    bea.wait_for_selector("#naming", state="detached")  # her page has its answer too
    assert bea.evaluate("localStorage.getItem('zloutch:name')") == "Béa"
    # A later game's one link for everyone, on this browser: the name it remembers offered.
    links = create_game(ana, web, people=("Ana", "", ""))
    assert ana.locator("#open-link").count() == 1  # two seats to take: one link for both
    bea.goto(ana.input_value("#open-link"))
    bea.wait_for_selector("#naming")
    assert bea.input_value("#my-name") == "Béa"
    bea.click("#keep-name")
    bea.wait_for_selector("#naming", state="detached")
    # The host's own browser, opening the other invitation: asked first (it plays a seat of
    # this game), then not her own name, which is taken.
    ana.goto(links["invite-2"])
    ana.click("#take-seat")
    ana.wait_for_selector("#naming")
    assert ana.input_value("#my-name") == "Player 3"
    # Two bots of one level stay two names on the page, as in the record.
    shown = ana.evaluate(
        """async () => {
            const { shownName } = await import("/static/js/i18n.js");
            return [shownName("bot:medium"), shownName("bot:medium#2")];
        }"""
    )
    assert shown == ["medium (bot)", "medium (bot) 2"]


def test_a_long_name_of_one_word_breaks_and_the_page_stays_a_phones_width(
    new_page: Callable[..., Any], web: Server
) -> None:
    ana = new_page()
    create_game(ana, web, people=("Ana", "W" * 40))
    ana.click("#go-table")
    ana.wait_for_selector("#act-throw:enabled")
    click_and_wait(ana, "#act-throw")
    assert ana.evaluate("document.documentElement.scrollWidth") == PHONE["width"]
    # The sheet's other column keeps its words whole.
    first = ana.locator(".sheet th .name").first.bounding_box()
    assert first is not None and first["height"] < 30  # "Ana" on one line


def test_eight_players_sheet_scrolls_in_its_card_and_the_page_stays_a_phones_width(
    new_page: Callable[..., Any], web: Server
) -> None:
    """Six players and more pushed the page past a phone's width (the sheet's columns): the
    sheet scrolls sideways in its card now, its columns narrower."""
    ana = new_page()
    people = ("Ana", "Bob", "Chloé", "Dmitri", "Fatoumata", "Gaspard", "Hortense", "Isidore")
    create_game(ana, web, people=people)
    ana.click("#go-table")
    ana.wait_for_selector("#act-throw:enabled")
    assert ana.evaluate("document.documentElement.scrollWidth") == PHONE["width"]
    assert ana.locator(".sheet th .name").count() == 8
    scroll = ana.locator(".sheet-scroll")
    assert scroll.evaluate("e => e.scrollWidth >= e.clientWidth")


def test_a_seat_turned_into_a_bot_shows_the_level_it_will_have(
    new_page: Callable[..., Any], web: Server
) -> None:
    """The level box showed beginner (its first) while the words under it, and the game
    made, were medium's."""
    page = new_page()
    page.goto(web.base + "/")
    page.wait_for_selector("#create")
    page.click("#add-seat")
    page.select_option("#seat-2-kind", "bot")
    assert page.input_value("#seat-2-level") == "medium"
    assert page.inner_text("#seat-2-plays") == page.inner_text("#seat-1-plays")  # medium's


def test_a_game_made_without_hints_offers_none(new_page: Callable[..., Any], web: Server) -> None:
    ana = new_page()
    assert create_game(ana, web, hints=False)
    ana.click("#go-table")
    ana.wait_for_selector("#act-throw:enabled")
    assert "no hints" in ana.inner_text("#rules-line")
    assert ana.locator("#hint-toggle").count() == 0
    ana.keyboard.press("h")
    ana.wait_for_selector("#notice")
    assert ana.inner_text("#notice") == "The host turned the hints off for this game"
    assert ana.locator("#hint-toggle").count() == 0


def test_the_bots_wait_takes_a_decimal_comma_and_a_bot_may_play_for_who_left(
    new_page: Callable[..., Any], web: Server
) -> None:
    page = new_page()
    page.goto(web.base + "/")
    page.fill("#pace", "soon")
    page.click("#create")
    assert "number of seconds" in page.inner_text("#create-error")
    page.fill("#pace", "0,2")
    page.select_option("#leave-after", "60")  # a bot plays for a person gone a minute
    with page.expect_request(lambda r: "/api/games?" in r.url and r.method == "POST") as sent:
        page.click("#create")
    body = sent.value.post_data_json
    assert (body["pace"], body["leave_after"]) == (0.2, 60)  # 0.2 s: the number field read 02
    assert sent.value.url.endswith("/api/games?lang=en")  # a refusal in the page's language
    page.wait_for_selector("#go-table")
    assert re.fullmatch(r"/g/[\w-]+", page.get_attribute("#go-table", "href"))
