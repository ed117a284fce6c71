// The page's routes: / the lobby, /g/{game} the table (?watch to watch), /join/{code} and
// /g/{game}/open/{code} the invitations (they seat this browser, then go to the table).

import { getJSON, holdSeat, postJSON, seatsHeld } from "./api.js";
import { h } from "./dom.js";
import { LANGUAGES, chooseLanguage, lang, loadLanguage, shownName, t } from "./i18n.js";
import { showLobby } from "./lobby.js";
import { Table } from "./table.js";

const NAMES = { en: "English", fr: "Français" };

function header() {
  const apply = (code) => {
    if (code === lang()) return;
    chooseLanguage(code);
    const url = new URL(location.href);
    url.searchParams.delete("lang");
    location.replace(url.toString());
  };
  // By the keyboard, an arrow only moves through the languages (it reloaded the page at the
  // first press): Enter applies the one chosen; leaving the list leaves the language as it was.
  let byKey = false;
  const select = h(
    "select",
    {
      id: "language",
      "aria-label": t("Language"),
      onkeydown: (e) => {
        if (e.key === "Enter") apply(e.target.value);
        else byKey = true;
      },
      onchange: (e) => {
        if (!byKey) apply(e.target.value);
      },
      onblur: (e) => {
        e.target.value = lang();
        byKey = false;
      },
    },
    LANGUAGES.map((code) => h("option", { value: code, selected: code === lang() }, NAMES[code])),
  );
  document.getElementById("top").replaceChildren(
    h("a", { href: "/", class: "brand" }, "Zloutch"),
    h("span", { class: "tagline" }, t("10,000 and its family")),
    select,
  );
}

async function seatAndGo(main, path) {
  main.replaceChildren(h("p", { class: "loading" }, t("Taking your seat…")));
  try {
    const joined = await postJSON(path);
    holdSeat(joined.game, joined.seat, joined.token);
    try {
      sessionStorage.setItem(`zloutch:ask-name:${joined.game}`, String(joined.seat));
    } catch {
      // storage refused: the table does not ask for a name (the seat list still offers it)
    }
    location.replace(`/g/${joined.game}`);
  } catch (error) {
    // A game's open link names its game: with every seat taken, it can still be watched.
    const game = path.match(/^\/api\/games\/([^/]+)\/open\//);
    const said = String(error.message);
    main.replaceChildren(
      h("p", { class: "error", role: "alert" }, said.charAt(0).toUpperCase() + said.slice(1)),
      h(
        "div",
        { class: "actions" },
        game ? h("a", { href: `/g/${game[1]}?watch`, class: "button primary", id: "watch-game" }, t("Watch")) : null,
        h("a", { href: "/", class: "button" }, t("Back to the lobby")),
      ),
    );
  }
}

// An invitation opened where another seat of its game is held (a host who tapped a
// friend's link to share it): asked first, for that seat would be taken from the friend.
async function joinOrAsk(main, code) {
  let invite = null;
  try {
    invite = await getJSON(`/api/join/${code}`);
  } catch {
    invite = null; // the join says what is wrong with the code
  }
  const held = invite ? Object.keys(seatsHeld(invite.game)).map(Number) : [];
  if (!invite || !held.length || held.includes(invite.seat)) {
    await seatAndGo(main, `/api/join/${code}`);
    return;
  }
  const name = shownName(invite.name);
  main.replaceChildren(
    h(
      "section",
      { class: "card", id: "other-seat", role: "alert" },
      h("h2", {}, t("The invitation for {name}", { name })),
      h(
        "p",
        {},
        t("This browser already plays another seat of this game. Send this link to {name}; take the seat here only to play both seats on this device.", { name }),
      ),
      h(
        "div",
        { class: "actions" },
        h("a", { href: `/g/${invite.game}`, class: "button primary", id: "back-to-game" }, t("Back to my game")),
        h(
          "button",
          { type: "button", id: "take-seat", onclick: () => seatAndGo(main, `/api/join/${code}`) },
          t("Take {name}'s seat here", { name }),
        ),
      ),
    ),
  );
}

async function start() {
  await loadLanguage();
  document.title = t("Zloutch");
  header();
  const main = document.getElementById("main");
  const path = location.pathname;
  let match;
  if ((match = path.match(/^\/join\/([^/]+)$/))) {
    await joinOrAsk(main, match[1]);
  } else if ((match = path.match(/^\/g\/([^/]+)\/open\/([^/]+)$/))) {
    await seatAndGo(main, `/api/games/${match[1]}/open/${match[2]}`);
  } else if ((match = path.match(/^\/g\/([^/]+)$/))) {
    const watch = new URLSearchParams(location.search).has("watch");
    window.zloutchTable = new Table(main, match[1], { watch });
  } else if (path === "/") {
    await showLobby(main);
  } else {
    // A link to no page here (the server answered 404 with this page): say so.
    main.replaceChildren(
      h(
        "section",
        { class: "card", id: "no-page", role: "alert" },
        h("h2", {}, t("No page here")),
        h("p", {}, t("This address is not one of this server's pages: its link may be mistyped.")),
        h("a", { href: "/", class: "button" }, t("Back to the lobby")),
      ),
    );
  }
}

start();
