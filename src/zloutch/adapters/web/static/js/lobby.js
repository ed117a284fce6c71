// The lobby: a rule set (a preset and its options), the players and bots, real dice or the
// server's; create, then share the invitations and go to the table.

import { ApiError, getJSON, holdHost, holdSeat, knownGames, postJSON } from "./api.js";
import { h } from "./dom.js";
import { N_, choiceWord, number, ruleId, shownName, t } from "./i18n.js";
import { linkRow, origin } from "./share.js";

const MAX_SEATS = 8;
const DEFAULT_LEVEL = "medium"; // a bot seat's level until one is chosen (the server's default)
// The bots' levels, as the server names them (for the catalog): translated with t(level).
N_("beginner");
N_("easy");
N_("medium");
N_("strong");
N_("best");

const CODE = "[A-Za-z0-9_-]+";
// The page's links, found anywhere in what was pasted: a whole link from any address, one
// without its scheme (localhost:8000/g/ID), in angle brackets or ending a sentence.
const LINKS = [
  new RegExp(`(?:^|/)join/(${CODE})(?![A-Za-z0-9_-])`),
  new RegExp(`(?:^|/)g/(${CODE})/open/(${CODE})(?![A-Za-z0-9_-])`),
  new RegExp(`(?:^|/)g/(${CODE})(?![A-Za-z0-9_/-])`),
];

/** Where a pasted invitation or game link leads on this server: a link from any address
 * (a friend may have been sent another of this server's), a path, or an invitation's code
 * alone; null for anything else. */
export function joinPath(pasted) {
  const text = pasted.trim().replace(/^[<("'‹«\s]+|[>)"'.,;:!?›»\s]+$/g, "");
  const [join, open, game] = LINKS.map((pattern) => text.match(pattern));
  if (join) return `/join/${join[1]}`;
  if (open) return `/g/${open[1]}/open/${open[2]}`;
  if (game) return `/g/${game[1]}` + (/[?&]watch(?:[=&#]|$)/.test(text) ? "?watch" : "");
  if (new RegExp(`^${CODE}$`).test(text) && text.length >= 16) return `/join/${text}`;
  return null;
}

export async function showLobby(main) {
  let data;
  try {
    data = await getJSON("/api/presets");
  } catch (error) {
    main.replaceChildren(h("p", { class: "error", role: "alert" }, String(error.message)));
    return;
  }
  const lobby = new Lobby(main, data);
  lobby.render();
}

class Lobby {
  constructor(main, data) {
    this.main = main;
    this.presets = data.presets;
    this.options = data.options;
    this.common = data.common; // shown first, in this order (zloutch.rules.COMMON_OPTIONS)
    this.levels = data.bots; // the server's levels (/api/presets), weakest first
    // what each level's bot plays, in words in the page's language
    this.levelWords = Object.fromEntries((data.levels || []).map((l) => [l.level, l.plays]));
    this.preset = this.presets[0].name;
    this.chosen = {}; // option name -> the value written in the spec
    this.seats = [
      { kind: "person", name: localStorage.getItem("zloutch:name") || "" },
      { kind: "bot", level: DEFAULT_LEVEL },
    ];
    this.realDice = false;
    this.hints = true;
    this.pace = 0.8;
    this.leaveAfter = null; // seconds away before a bot plays for a person; null: wait
  }

  spec() {
    const parts = Object.entries(this.chosen).map(([name, value]) =>
      value === true ? name : `${name}=${value}`,
    );
    return parts.length ? `${this.preset}(${parts.join(",")})` : this.preset;
  }

  render() {
    const preset = this.presets.find((p) => p.name === this.preset);
    const form = h(
      "form",
      { class: "lobby card", onsubmit: (e) => (e.preventDefault(), this.create()) },
      h("h2", {}, t("New game")),
      h("label", { for: "preset" }, t("Rule set")),
      h(
        "select",
        {
          id: "preset",
          onchange: (e) => {
            this.preset = e.target.value;
            this.render();
            document.getElementById("preset").focus();
          },
        },
        this.presets.map((p) =>
          h(
            "option",
            { value: p.name, selected: p.name === this.preset },
            t("{title} ({dice} dice, {target})", { title: p.title, dice: p.dice, target: p.target }),
          ),
        ),
      ),
      h(
        "p",
        { class: "summary", id: "preset-summary" },
        this.spec() === preset.name ? preset.summary : t("As shipped: {summary}", { summary: preset.summary }),
      ),
      this.optionsPanel(),
      h("p", { class: "spec" }, t("Rules:"), " ", h("code", { id: "spec" }, this.spec())),
      h("h3", {}, t("Players")),
      h("ol", { class: "seats" }, this.seats.map((seat, i) => this.seatRow(seat, i))),
      h(
        "button",
        {
          type: "button",
          id: "add-seat",
          disabled: this.seats.length >= MAX_SEATS,
          onclick: () => {
            this.seats.push({ kind: "person", name: "" });
            this.render();
            document.getElementById("add-seat").focus();
          },
        },
        t("Add a player"),
      ),
      h(
        "label",
        { class: "switch" },
        h("input", {
          type: "checkbox",
          id: "real-dice",
          checked: this.realDice,
          onchange: (e) => (this.realDice = e.target.checked),
        }),
        " ",
        t("Real dice: this phone keeps the score of a game played with real dice"),
      ),
      h(
        "label",
        { class: "switch" },
        h("input", {
          type: "checkbox",
          id: "hints",
          checked: this.hints,
          onchange: (e) => (this.hints = e.target.checked),
        }),
        " ",
        t("Hints: anyone at the table may ask for the value of each move"),
      ),
      h(
        "label",
        { for: "pace" },
        t("Seconds a bot waits before each move"),
        // Text, not a number field: a French keyboard's 0,8 became 08 there (eight seconds).
        h("input", {
          id: "pace",
          type: "text",
          inputmode: "decimal",
          value: this.paceText ?? number(this.pace, 1),
          oninput: (e) => (this.paceText = e.target.value),
        }),
      ),
      h(
        "label",
        { for: "leave-after" },
        t("When a player's page is closed"),
        h(
          "select",
          {
            id: "leave-after",
            onchange: (e) => (this.leaveAfter = e.target.value ? Number(e.target.value) : null),
          },
          [
            [null, t("wait for them")],
            [60, t("after a minute, a bot plays for them until they are back")],
            [300, t("after five minutes, a bot plays for them until they are back")],
          ].map(([value, label]) =>
            h("option", { value: value ?? "", selected: value === this.leaveAfter }, label),
          ),
        ),
      ),
      h("p", { class: "error", id: "create-error", role: "alert" }),
      h("button", { type: "submit", id: "create", class: "primary" }, t("Create the game")),
    );
    this.main.replaceChildren(
      h("div", { class: "lobby-page" }, form, h("div", {}, this.joinPanel(), this.gamesPanel())),
    );
  }

  optionsPanel() {
    const values = this.presets.find((p) => p.name === this.preset).values || {};
    // A choice in words, its value as a spec writes it beside (tout palier (any)).
    const choice = (name, value, { code = true } = {}) => {
      const said = choiceWord(name, value) ?? value;
      if (said === value) return String(value);
      return code ? said + " (" + value + ")" : said;
    };
    const row = (option) => {
      const id = `option-${option.name}`;
      const value = this.chosen[option.name];
      const base = values[option.name];
      const shown = base === true ? t("on") : base === false ? t("off") : choice(option.name, base, { code: false });
      const asPreset = base === undefined ? t("as the preset") : t("as the preset ({value})", { value: shown });
      let input;
      const set = (raw) => {
        if (raw === "" || raw === undefined) delete this.chosen[option.name];
        else this.chosen[option.name] = raw;
        document.getElementById("spec").textContent = this.spec();
      };
      if (option.kind === "bool") {
        input = h(
          "select",
          // Written in the spec as the server writes it back (a flag alone, or =false).
          { id, onchange: (e) => set(e.target.value === "" ? "" : e.target.value === "on" || "false") },
          h("option", { value: "" }, asPreset),
          h("option", { value: "on", selected: value === true }, t("on")),
          h("option", { value: "off", selected: value === "false" }, t("off")),
        );
      } else if (option.kind === "choice") {
        input = h(
          "select",
          { id, onchange: (e) => set(e.target.value) },
          h("option", { value: "" }, asPreset),
          (option.choices || []).map((c) => h("option", { value: c, selected: value === c }, choice(option.name, c))),
        );
      } else {
        input = h("input", {
          id,
          type: "number",
          inputmode: "numeric",
          placeholder: asPreset,
          value: value ?? "",
          oninput: (e) => set(e.target.value.trim()),
        });
      }
      // The plain meaning first; the option's name and rule id for those who write specs.
      return h(
        "li",
        { class: "option", "data-search": `${option.name} ${option.rule} ${option.meaning}`.toLowerCase() },
        h("label", { for: id, class: "meaning" }, option.meaning),
        h("span", { class: "name" }, h("code", {}, option.name), " ", h("span", { class: "rule" }, ruleId(option.rule))),
        input,
      );
    };
    const common = this.common.map((name) => this.options.find((o) => o.name === name)).filter(Boolean);
    const others = this.options.filter((o) => !this.common.includes(o.name));
    const list = h("ul", { id: "more-options" }, others.map(row));
    const search = h("input", {
      id: "option-search",
      type: "search",
      placeholder: t("Search the rules (a word, a rule id)"),
      "aria-label": t("Search the rules (a word, a rule id)"),
      oninput: (e) => {
        const words = e.target.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
        for (const item of list.children) {
          item.hidden = !words.every((w) => item.dataset.search.includes(w));
        }
      },
    });
    return h(
      "div",
      { class: "options-panel" },
      h("ul", { class: "common-options", id: "common-options" }, common.map(row)),
      h(
        "details",
        { class: "options" },
        h("summary", {}, t("More rules ({n}), each with its rule id", { n: others.length })),
        search,
        list,
      ),
    );
  }

  seatRow(seat, i) {
    const kind = h(
      "select",
      {
        id: `seat-${i}-kind`,
        "aria-label": t("Player {n}: a person or a bot", { n: i + 1 }),
        onchange: (e) => {
          seat.kind = e.target.value;
          this.render();
          document.getElementById(`seat-${i}-kind`).focus();
        },
      },
      h("option", { value: "person", selected: seat.kind === "person" }, t("person")),
      h("option", { value: "bot", selected: seat.kind === "bot" }, t("bot")),
    );
    const detail =
      seat.kind === "bot"
        ? h(
            "select",
            {
              id: `seat-${i}-level`,
              "aria-label": t("Player {n}: the bot's level", { n: i + 1 }),
              onchange: (e) => {
                seat.level = e.target.value;
                document.getElementById(`seat-${i}-plays`).textContent = this.levelWords[seat.level] || "";
              },
            },
            // No level chosen yet is medium, as the game is made: the box said beginner
            // (its first), the words under it medium.
            this.levels.map((level) =>
              h("option", { value: level, selected: (seat.level || DEFAULT_LEVEL) === level }, t(level)),
            ),
          )
        : h("input", {
            id: `seat-${i}-name`,
            "aria-label": t("Player {n}: name", { n: i + 1 }),
            placeholder: i === 0 ? t("Your name") : t("Player {n}", { n: i + 1 }),
            value: seat.name || "",
            maxlength: 40,
            oninput: (e) => (seat.name = e.target.value),
          });
    const remove = h(
      "button",
      {
        type: "button",
        class: "small",
        "aria-label": t("Remove player {n}", { n: i + 1 }),
        disabled: this.seats.length <= 1,
        onclick: () => {
          this.seats.splice(i, 1);
          this.render();
        },
      },
      "✕",
    );
    const plays =
      seat.kind === "bot"
        ? h("p", { class: "level-plays", id: `seat-${i}-plays`, "aria-live": "polite" }, this.levelWords[seat.level || DEFAULT_LEVEL] || "")
        : null;
    return h("li", { class: "seat" }, kind, detail, remove, plays);
  }

  async create() {
    const error = document.getElementById("create-error");
    error.textContent = "";
    if (this.paceText !== undefined) {
      // 0.8 or 0,8 (the decimal comma): seconds; the server says if it is out of range.
      const text = this.paceText.trim().replace(",", ".");
      if (!/^\d+(\.\d+)?$/.test(text)) {
        error.textContent = t("The bots' wait is a number of seconds, such as 0.8 or 0,8.");
        return;
      }
      this.pace = Number(text);
    }
    const mine = this.seats.find((s) => s.kind === "person");
    if (mine && (mine.name || "").trim()) localStorage.setItem("zloutch:name", mine.name.trim());
    // A blank name is the placeholder's, in the page's language (the server's is English).
    const seats = this.seats.map((s, i) =>
      s.kind === "bot"
        ? { bot: s.level || DEFAULT_LEVEL }
        : { name: (s.name || "").trim() || t("Player {n}", { n: i + 1 }) },
    );
    let created;
    try {
      created = await postJSON("/api/games", {
        rules: this.spec(),
        seats,
        real_dice: this.realDice,
        hints: this.hints,
        pace: this.pace,
        // Not at a real table: its one phone holds every seat, and dice already typed in
        // are no bot's to play.
        leave_after: this.realDice ? null : this.leaveAfter,
      });
    } catch (problem) {
      error.textContent = problem instanceof ApiError ? problem.message : String(problem);
      return;
    }
    holdHost(created.game, created.host);
    // My seat: the first person's; at a real table this phone keeps the score for everyone.
    const held = this.realDice ? created.invites : created.invites.slice(0, 1);
    for (const invite of held) {
      const joined = await postJSON(`/api/join/${invite.code}`);
      holdSeat(joined.game, joined.seat, joined.token);
    }
    this.showInvites(created, new Set(held.map((i) => i.seat)));
  }

  showInvites(created, taken) {
    const base = origin(created.public_url);
    const others = created.invites.filter((i) => !taken.has(i.seat));
    const card = h(
      "section",
      { class: "card invites", "aria-labelledby": "invites-title" },
      h("h2", { id: "invites-title", tabindex: "-1" }, t("The game is ready")),
      others.length
        ? h("p", {}, t("Send each player their invitation: it seats them, on each of their devices. The table's seat list keeps these links."))
        : h("p", {}, t("Every seat is taken: start when you like.")),
      h(
        "ul",
        {},
        others.map((i) =>
          linkRow(`invite-${i.seat}`, t("Invitation for {name}", { name: i.name }), base + i.url),
        ),
        // For a group chat: one link, each friend who opens it seated in turn (and asked
        // their name). Shown here only: the server keeps its hash, not the link.
        others.length > 1
          ? linkRow("open-link", t("One link for everyone: whoever opens it takes the next free seat"), base + created.open.url)
          : null,
        linkRow("watch-link", t("To watch"), base + created.watch),
      ),
      h(
        "a",
        { class: "button primary", id: "go-table", href: `/g/${created.game}` },
        t("Go to the table"),
      ),
    );
    this.main.replaceChildren(card);
    document.getElementById("invites-title").focus();
  }

  joinPanel() {
    const input = h("input", {
      id: "join-link",
      placeholder: t("An invitation or a game's link"),
      "aria-label": t("An invitation or a game's link"),
    });
    const said = h("p", { class: "error", id: "join-error", role: "alert" });
    return h(
      "form",
      {
        class: "card",
        onsubmit: (e) => {
          e.preventDefault();
          const text = input.value.trim();
          if (!text) return;
          const path = joinPath(text);
          if (path) location.href = path;
          else said.textContent = t("This is not an invitation or a game's link: paste the link a friend sent, or its code.");
        },
      },
      h("h2", {}, t("Join or watch")),
      input,
      h("button", { type: "submit" }, t("Go")),
      said,
    );
  }

  gamesPanel() {
    const games = knownGames();
    if (!games.length) return "";
    // Each game named by its rules, its players and whose turn it is, as the server says; a
    // rematch says so (it had the same rules and players as its first game: the same line).
    const tags = {};
    const items = games.map((g) => {
      const link = h("a", { href: `/g/${g}`, id: `game-${g}` }, t("a game ({id})", { id: g }));
      const about = h("span", { class: "about" });
      tags[g] = h("span", { class: "tag rematch-tag" });
      getJSON(`/api/games/${g}`).then(
        (s) => {
          if (s.rematch && tags[s.rematch]) tags[s.rematch].textContent = t("rematch");
          const names = s.seats.map((seat) => shownName(seat.name)).join(", ");
          link.textContent = `${s.rules} · ${names}`;
          about.textContent =
            s.status === "over"
              ? s.sheet.winners.length
                ? t("over: {names} won", { names: s.sheet.winners.map(shownName).join(" & ") })
                : t("over")
              : s.status === "expired"
                ? t("expired")
                : t("{name}'s turn", { name: s.seats[s.turn_player]?.name ?? "?" });
        },
        () => (about.textContent = t("no longer on this server")),
      );
      return h("li", {}, link, " ", tags[g], " ", about);
    });
    return h("section", { class: "card your-games" }, h("h2", {}, t("Your games")), h("ul", {}, items));
  }
}
