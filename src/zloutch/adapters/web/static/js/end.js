// The end of a game: the ranking and the sailors' kicks (G-9), the review of every decision
// with the win-probability curve, rematch, the record, and the dice checked in the page.

import { getJSON, holdHost, holdSeat, hostToken, postJSON } from "./api.js";
import { h, svg } from "./dom.js";
import { lang, number, percent, shownName, t, withShownNames } from "./i18n.js";
import { verifyRecord } from "./verify.js";

export function showEnd(section, table) {
  const s = table.state;
  const key = `${s.game}@${s.version}@${s.rematch || ""}`;
  if (section.dataset.built === key) return;
  const first = !section.dataset.built;
  section.dataset.built = key;
  const outcome = s.outcome;
  const parts = [h("h2", { id: "end-title", tabindex: "-1" }, t("The end"))];
  if (outcome) parts.push(rankingTable(outcome));
  parts.push(endActions(table));
  parts.push(h("div", { id: "dice-check", "aria-live": "polite" }));
  parts.push(h("div", { id: "review" }, h("p", {}, t("Reviewing every decision…"))));
  section.replaceChildren(h("div", { class: "card" }, parts));
  loadReview(section.querySelector("#review"), table);
  if (first) setTimeout(() => document.getElementById("end-title")?.focus(), 0);
}

function rankingTable(outcome) {
  const n = outcome.ranking.length;
  const table = h(
    "table",
    { class: "ranking", id: "ranking" },
    h("caption", {}, t("Ranking and kicks (G-9)")),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        [t("rank"), t("player"), t("score"), t("kicks given"), t("kicks taken")].map((c) =>
          h("th", { scope: "col" }, c),
        ),
      ),
    ),
    h(
      "tbody",
      {},
      outcome.ranking.map((r) =>
        h(
          "tr",
          { class: outcome.winners.includes(r.seat) ? "winner" : "" },
          h("td", { class: "num" }, r.rank, outcome.winners.includes(r.seat) ? " ★" : ""),
          h("td", {}, shownName(r.name)),
          h("td", { class: "num" }, r.score),
          h("td", { class: "num" }, r.kicks_given),
          h("td", { class: "num" }, r.kicks_taken),
        ),
      ),
    ),
  );
  // The sailors' custom, said once under the table: the n-th of N gives N - n, takes n - 1.
  return h(
    "div",
    {},
    table,
    h("p", { class: "kicks-note", id: "kicks-note" }, t("Kicks, in the sailors' custom (G-9): the player ranked n of {n} gives {n} - n kicks and takes n - 1. Just for fun.", { n })),
  );
}

function endActions(table) {
  const s = table.state;
  const held = Object.entries(table.held);
  const rematch = h(
    "button",
    {
      type: "button",
      id: "rematch",
      class: "primary",
      onclick: async (e) => {
        e.target.disabled = true;
        let game = null;
        try {
          for (const [, token] of held) {
            const joined = await postJSON(`/api/games/${s.game}/rematch`, { token });
            holdSeat(joined.game, joined.seat, joined.token);
            game = joined.game;
          }
        } catch (error) {
          table.setNotice(error.message, "refused");
          table.render();
          return;
        }
        // The host of a game is the host of its rematch (the server keeps the same host
        // token): its seat list and its new invitations come along.
        const host = hostToken(s.game);
        if (host) holdHost(game, host);
        location.href = `/g/${game}`;
      },
    },
    s.rematch ? t("Join the rematch") : t("Rematch"),
  );
  const check = h(
    "button",
    { type: "button", id: "check-dice", onclick: () => checkDice(table) },
    t("Check the dice"),
  );
  // At a real table a winning throw typed wrong is taken back as any entry (until the
  // rematch exists): the game goes on from before it.
  const undo =
    held.length && s.refusals && "undo" in s.refusals && s.refusals.undo === null
      ? h(
          "button",
          { type: "button", id: "end-undo", onclick: () => table.send("undo", { token: table.anyToken() }) },
          t("Undo the last entry"),
        )
      : null;
  return h(
    "div",
    { class: "actions" },
    held.length ? rematch : null, // a watcher holds no seat: nothing to rematch with
    undo,
    h(
      "a",
      { class: "button", id: "download", href: `/api/games/${s.game}/record`, download: `zloutch-${s.game}.json` },
      t("Download the record"),
    ),
    s.table_mode ? null : check,
  );
}

async function checkDice(table) {
  const place = document.getElementById("dice-check");
  place.replaceChildren(h("p", {}, t("Checking…")));
  let record;
  try {
    record = await getJSON(`/api/games/${table.game}/record`);
  } catch (error) {
    place.replaceChildren(h("p", { class: "error" }, error.message));
    return;
  }
  const result = verifyRecord(record);
  if (result.reason) {
    place.replaceChildren(h("p", {}, t(result.reason)));
    return;
  }
  const good = result.throws.filter((x) => x.matches).length;
  place.replaceChildren(
    h(
      "p",
      { class: result.ok ? "ok" : "error", id: "dice-verdict" },
      result.ok ? "✓ " : "✗ ",
      result.commitmentOk
        ? t("The secret matches the commitment that begins {hash}.", { hash: record.dice.commitment.slice(0, 16) })
        : t("The secret does NOT match the commitment."),
      " ",
      result.throws.length === 1
        ? t("{good} of {all} throw matches.", { good, all: 1 })
        : t("{good} of {all} throws match.", { good, all: result.throws.length }),
    ),
    h(
      "details",
      {},
      h("summary", {}, t("Every throw")),
      h(
        "ol",
        { class: "throws" },
        result.throws.map((x) =>
          h(
            "li",
            { class: x.matches ? "" : "error" },
            t("throw {n}: {faces}", { n: x.throw, faces: x.recorded.join(" ") }),
            " ",
            x.matches ? "✓" : t("✗ (computed: {faces})", { faces: x.computed.join(" ") }),
          ),
        ),
      ),
    ),
  );
}

async function loadReview(place, table) {
  let review;
  try {
    review = await getJSON(`/api/games/${table.game}/review?lang=${lang()}`);
  } catch (error) {
    place.replaceChildren(h("p", { class: "error" }, error.message));
    return;
  }
  const win = review.objective === "win probability";
  const cost = (v) => (win ? percent(v, 2) : number(v, 1));
  // a player's luck, signed: what the dice brought, beside what the decisions cost
  const luck = (v) => (v === null ? "-" : `${v >= 0 ? "+" : "-"}${cost(Math.abs(v))}`);
  const decisions = review.decisions.filter((d) => !d.forced);
  place.replaceChildren(
    h("h3", {}, t("Review")),
    // One plain sentence, and what counts as accurate; the rule set, the model and the
    // solve it was graded with (words for those who know them) folded under it.
    h(
      "p",
      { class: "review-note" },
      win
        ? t("Each decision is graded by what it cost of the chance to win.")
        : t("Each decision is graded by what it cost of the points the turn could bring."),
      " ",
      review.header[2] || "",
    ),
    h(
      "details",
      { class: "review-how" },
      h("summary", {}, t("How it was graded")),
      ...review.header
        .filter((_, i) => i !== 2)
        .map((line) => h("p", { class: "review-note" }, withShownNames(line, review.players))),
    ),
    curve(review),
    h(
      "table",
      { class: "review-summary" },
      h("caption", {}, t("Players")),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          [t("player"), t("decisions"), t("accuracy"), t("cost"), t("luck")].map((c) =>
            h("th", { scope: "col" }, c),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        review.summary.map((p) =>
          h(
            "tr",
            {},
            h("td", {}, shownName(p.player)),
            h("td", { class: "num" }, p.decisions),
            h("td", { class: "num" }, p.accuracy === null ? "-" : percent(p.accuracy, 0)),
            h("td", { class: "num" }, cost(p.total_cost)),
            h("td", { class: "num" }, luck(p.luck)),
          ),
        ),
      ),
    ),
    h(
      "details",
      { class: "decisions", id: "decisions" },
      h("summary", {}, t("Every decision ({n})", { n: decisions.length })),
      h(
        "table",
        { class: "review-table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            // "move": the decision's place in the game's record (its file, the review's curve),
            // which the log's lines do not number (a page opened late, an undo)
            [t("move"), t("player"), t("situation"), t("played"), t("best"), t("cost")].map((c) =>
              h("th", { scope: "col" }, c),
            ),
          ),
        ),
        h(
          "tbody",
          {},
          decisions.map((d) =>
            h(
              "tr",
              { class: d.mistake ? "mistake" : "" },
              h("td", { class: "num" }, d.action),
              h("td", {}, shownName(d.player)),
              h("td", {}, d.situation),
              h("td", {}, d.mistake ? "✗ " : "✓ ", d.chosen_words),
              h("td", {}, d.chosen === d.best ? "=" : d.best_words),
              h("td", { class: "num" }, cost(d.cost)),
            ),
          ),
        ),
      ),
    ),
  );
}

const DASHES = ["", "6 4", "2 3", "10 3 2 3", "1 5", "8 2", "4 4", "3 1"];
const LABEL_GAP = 14; // the curve's names: one line of their text apart at least

const LABEL_LETTERS = 16; // the most letters of a name written at a line's end

/** The axis's top for expected scores: the highest score rounded up to a round number
 * (1200, 2500), so that its ticks (0, half, top) read as numbers people say, not 1077. */
function roundUp(value) {
  const unit = 10 ** Math.floor(Math.log10(value));
  const step = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((m) => m * unit >= value);
  return step * unit;
}

/** The curve of the review as an inline SVG: each player's chance to win (or expected score)
 * before each decision; each line has its own dash and its name at its end. */
export function curve(review) {
  const points = review.curve.points;
  if (points.length < 2) return h("p", {}, t("No curve: too few decisions"));
  const win = review.curve.measure === "win probability";
  // Room on the right for the longest name written at a line's end (about 8 units a letter
  // at 12 units a line: the text was 10, about 9 px on a phone),
  // a long name cut (whole in its tooltip): a name of 40 letters took the curve's room.
  const label = (name) => (name.length > LABEL_LETTERS ? name.slice(0, LABEL_LETTERS - 1) + "…" : name);
  const right = Math.max(64, 8 + 8 * Math.max(...review.players.map((n) => label(shownName(n)).length)));
  const width = 264 + right;
  const height = 160;
  const pad = { left: 40, right, top: 10, bottom: 24 };
  const top = win ? 1 : roundUp(Math.max(1, ...points.flatMap((p) => p.values)));
  const x = (i) => pad.left + (i / (points.length - 1)) * (width - pad.left - pad.right);
  const y = (v) => pad.top + (1 - v / top) * (height - pad.top - pad.bottom);
  const players = review.players;
  // Each name at its line's end, moved apart where lines end level (they were written on top
  // of each other): at least a line of text between two, kept inside the plot.
  const ends = players.map((_, seat) => y(points[points.length - 1].values[seat]) + 4);
  const order = players.map((_, seat) => seat).sort((a, b) => ends[a] - ends[b] || a - b);
  const labelY = [...ends];
  order.forEach((seat, k) => {
    if (k > 0) labelY[seat] = Math.max(labelY[seat], labelY[order[k - 1]] + LABEL_GAP);
  });
  const over = Math.max(0, labelY[order[order.length - 1]] - (height - pad.bottom + 4));
  for (const seat of order) labelY[seat] = Math.max(pad.top + 4, labelY[seat] - over);
  const lines = players.map((name, seat) => {
    const path = points.map((p, i) => `${x(i).toFixed(1)},${y(p.values[seat]).toFixed(1)}`).join(" ");
    return svg(
      "g",
      { class: `curve-line seat-${seat % 8}` },
      svg("title", {}, document.createTextNode(shownName(name))), // the whole name, on hover
      svg("polyline", { points: path, fill: "none", "stroke-dasharray": DASHES[seat % 8] }),
      svg("text", { x: width - pad.right + 4, y: labelY[seat], class: "curve-label" }, document.createTextNode(label(shownName(name)))),
    );
  });
  const axis = [0, 0.5, 1].map((f) =>
    svg(
      "g",
      {},
      svg("line", { x1: pad.left, x2: width - pad.right, y1: y(f * top), y2: y(f * top), class: "grid" }),
      svg(
        "text",
        { x: pad.left - 4, y: y(f * top) + 4, class: "axis", "text-anchor": "end" },
        document.createTextNode(win ? percent(f, 0) : String(Math.round(f * top))),
      ),
    ),
  );
  const title = win ? t("Each player's chance to win, decision by decision") : t("Each player's expected score, decision by decision");
  const last = points[points.length - 1].values;
  const words = players.map((n, seat) => `${shownName(n)} ${win ? percent(last[seat], 0) : Math.round(last[seat])}`).join(", ");
  return h(
    "figure",
    { class: "curve" },
    svg(
      "svg",
      { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `${title}: ${words}`, id: "curve" },
      svg("title", {}, document.createTextNode(title)),
      ...axis,
      ...lines,
      svg(
        "text",
        { x: (pad.left + width - pad.right) / 2, y: height - 4, class: "axis", "text-anchor": "middle" },
        document.createTextNode(t("decisions")),
      ),
    ),
    h("figcaption", {}, title),
  );
}
