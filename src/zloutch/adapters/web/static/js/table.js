// The table: draws the server's state and sends intents; it works out no rule. Which
// actions are legal, why the others are not, the keeps and their points, the sheet: all come
// in the state (docs/server.md).

import { forgetSeat, getJSON, hostToken, postJSON, seatsHeld } from "./api.js";
import { dieFace } from "./dice.js";
import { announce, h } from "./dom.js";
import { showEnd } from "./end.js";
import { N_, choiceWord, lang, number, percent, ruleId, shownName, t, withShownNames } from "./i18n.js";
import { linkRow, origin } from "./share.js";

// The hint's objectives, as the server names them: translated with t(objective).
N_("expected points");
N_("win probability");
N_("long-run points per turn (F-1)");

const ACTION_KEYS = { t: "throw", b: "bank", x: "take", f: "fresh", o: "off", u: "undo" };
const PING_EVERY = 2500; // ms between pings: a socket silent for SILENT_AFTER is taken as lost
const SILENT_AFTER = 6000;
const SETTLE_MS = 450; // ms after this page's own move moved the buttons (a throw, a new phase) when a tap is not taken

/** A name with a word too long for a sheet's column on a phone: it may break anywhere (a
 * name of short words breaks between them, and a short one never: "Ana" stays whole). */
function longWord(name) {
  return String(name).split(/\s+/).some((word) => word.length > 12);
}

/** What a keep past an exact target does (T-9), as the terminal says it: the turn is lost,
 * or, with `overshoot = "throw_on"`, no bank any more (the turn ends with a farkle). */
function passesWords(state) {
  return state.overshoot === "throw_on"
    ? t("passes {target}: no bank any more, the turn ends with a farkle", { target: state.target })
    : t("passes {target}: the turn is lost", { target: state.target });
}

/** The seat this tab was just seated at through a link (main.js), asked once for a name. */
function takeAskName(game) {
  try {
    const seat = sessionStorage.getItem(`zloutch:ask-name:${game}`);
    sessionStorage.removeItem(`zloutch:ask-name:${game}`);
    return seat === null ? null : Number(seat);
  } catch {
    return null;
  }
}

/** The name this browser gave last (the lobby's first player, a seat named at a table). */
function rememberedName() {
  try {
    return localStorage.getItem("zloutch:name") || "";
  } catch {
    return "";
  }
}

/** The panels open for a game in this tab (sessionStorage), none by default. */
function readPanels(key) {
  try {
    const kept = JSON.parse(sessionStorage.getItem(key) || "{}");
    return { hint: kept.hint === true, rules: kept.rules === true };
  } catch {
    return { hint: false, rules: false };
  }
}

export class Table {
  constructor(main, game, { watch = false } = {}) {
    this.main = main;
    this.game = game;
    this.held = watch ? {} : seatsHeld(game);
    this.state = null;
    this.seat = null;
    this.version = null;
    this.selected = new Set(); // indices into the throw on the table
    this.faces = []; // real dice: the faces typed so far
    this.selectedFor = null;
    this.log = [];
    this.notice = null;
    this.pending = new Map();
    this.count = 0;
    // The hint and the rules panel stay as they were when the page is loaded again (a language
    // switch reloads it), for this game in this tab.
    this.panelsKey = `zloutch:panels:${game}`;
    const panels = readPanels(this.panelsKey);
    this.hintOpen = panels.hint;
    this.hint = null;
    this.endShown = null;
    this.retry = 500;
    this.seatList = null; // the seat list with the invitations this browser may pass on
    this.naming = null; // a seat held here being named: {seat, draft, error, saving}
    // Seated here by an invitation or the open link (main.js): the first state asks for a name.
    this.askName = takeAskName(game);
    this.rules = null; // the rules panel's content (/api/games/{id}/rules)
    this.bots = null; // what each bot plays (/api/games/{id}/bots), asked again while one waits for its table
    this.rulesOpen = panels.rules;
    this.queue = []; // intents taken while the socket is down, sent when it is back
    this.farkle = null; // the last farkle, shown on the table until the next throw
    this.settledAt = 0; // taps before this time (ms) are a double tap on the last layout
    this.ownMove = false; // a move of this page's is on its way: its layout may take a second tap
    this.awaited = 0; // the version an acknowledged move of this page's leads to
    this.connection = "connecting"; // connected, reconnecting, back
    this.retryAt = 0;
    this.lastHeard = 0;
    this.wasLost = false;
    this.connectionBadge = h("p", { class: "connection", id: "connection", role: "status", "aria-live": "polite" });
    this.renderConnection();
    this.main.replaceChildren(this.connectionBadge, h("p", { class: "loading" }, t("Connecting…")));
    // The page's one-key shortcuts, which a person may turn off (a screen reader's browse
    // mode has letters of its own): kept by the browser.
    this.keysOn = localStorage.getItem("zloutch:keys") !== "off";
    document.addEventListener("keydown", (e) => this.key(e));
    setInterval(() => this.heartbeat(), PING_EVERY / 2);
    this.connect();
  }

  // -- the socket

  connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ws/${this.game}`);
    this.ws = ws;
    this.lastHeard = Date.now();
    ws.onopen = () => {
      this.retry = 500;
      this.lastHeard = Date.now();
      const token = Object.values(this.held)[0] || null;
      this.helloToken = token;
      ws.send(JSON.stringify({ type: "hello", token, since: this.version ?? 0, lang: lang() }));
    };
    ws.onmessage = (message) => {
      this.lastHeard = Date.now();
      this.receive(JSON.parse(message.data));
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      if (this.fatal) this.refused();
      else this.lost();
    };
  }

  /** The server would not take the hello (``fatal``): connecting again would not help. A
   * seat token that is no longer the game's (its invitation made again) is forgotten here,
   * and the next one held is tried; else the page says what happened and what to do. */
  refused() {
    const fatal = this.fatal;
    this.fatal = null;
    this.ws = null;
    if (fatal === "bad_token" && this.helloToken) {
      forgetSeat(this.game, this.helloToken);
      for (const [seat, token] of Object.entries(this.held)) {
        if (token === this.helloToken) delete this.held[seat];
      }
      if (Object.keys(this.held).length) {
        this.connect();
        return;
      }
    }
    this.connection = "closed";
    const seat = fatal === "bad_token";
    const title =
      fatal === "unknown_game" ? t("No such game") : seat ? t("Your seat's link no longer works") : t("This game cannot be opened");
    const text =
      fatal === "unknown_game"
        ? t("There is no game {id} on this server: its link may be mistyped, or the game was made on another server.", { id: this.game })
        : seat
          ? t("A new invitation was made for your seat, and the old link stopped working: ask the host for the new one, or watch the game.")
          : this.fatalReason;
    const watch = seat ? h("a", { href: `/g/${this.game}?watch`, class: "button", id: "watch-instead" }, t("Watch")) : null;
    this.main.replaceChildren(
      h(
        "section",
        { class: "card", id: "refused", role: "alert" },
        h("h2", {}, title),
        h("p", {}, text),
        h("p", { class: "actions" }, watch, " ", h("a", { href: "/", class: "button" }, t("Back to the lobby"))),
      ),
    );
  }

  /** The socket closed, or went silent: say so at once, count down, and connect again. */
  lost() {
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onclose = null;
      try {
        ws.close();
      } catch (error) {
        // already closed
      }
    }
    // What was sent and not acknowledged goes again, with its id: the server knows a retry.
    for (const [id, message] of this.pending) {
      if (!this.queue.some((q) => q.id === id)) this.queue.push(message);
    }
    this.pending.clear();
    this.wasLost = true;
    this.connection = "reconnecting";
    const wait = this.retry;
    this.retry = Math.min(this.retry * 2, 8000);
    this.retryAt = Date.now() + wait;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => this.connect(), wait);
    this.renderConnection();
  }

  heartbeat() {
    const ws = this.ws;
    if (this.connection === "reconnecting") {
      this.renderConnection(); // the countdown
      return;
    }
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.lastHeard > SILENT_AFTER) {
      this.lost();
      return;
    }
    if (Date.now() - this.lastHeard > PING_EVERY) ws.send(JSON.stringify({ type: "ping" }));
  }

  /** Sent once the socket is back and caught up: the intents queued meanwhile. */
  flush() {
    const queued = this.queue;
    this.queue = [];
    for (const message of queued) {
      this.pending.set(message.id, message);
      this.ws.send(JSON.stringify(message));
    }
    if (queued.length) {
      this.addLog(t("Sent now: {actions}", { actions: queued.map((m) => m.action).join(", ") }), "note");
    }
  }

  connectionText() {
    const waiting = this.queue.length;
    const words = waiting === 1 ? t("1 move waiting to be sent") : t("{n} moves waiting to be sent", { n: waiting });
    const queued = waiting ? " · " + words : "";
    if (this.connection === "reconnecting") {
      const seconds = Math.max(0, Math.ceil((this.retryAt - Date.now()) / 1000));
      const when = seconds > 0 ? t("Connection lost: reconnecting in {n} s", { n: seconds }) : t("Connection lost: reconnecting…");
      return when + queued;
    }
    if (this.connection === "back") return t("Connected again") + queued;
    if (this.connection === "connected") return t("Connected") + queued;
    return t("Connecting…");
  }

  renderConnection() {
    const badge = this.connectionBadge;
    const text = this.connectionText();
    if (badge.textContent !== text) badge.textContent = text;
    badge.className = `connection ${this.connection}`;
    badge.dataset.state = this.connection;
    badge.dataset.queued = String(this.queue.length);
  }

  receive(message) {
    switch (message.type) {
      case "welcome":
        this.seat = message.seat;
        this.connection = this.wasLost ? "back" : "connected";
        this.flushAfterCatchUp = true;
        if (this.wasLost) {
          clearTimeout(this.backTimer);
          this.backTimer = setTimeout(() => {
            if (this.connection === "back") {
              this.connection = "connected";
              this.renderConnection();
            }
          }, 4000);
        }
        this.renderConnection();
        this.loadSeats();
        if (!this.rules) this.loadRules();
        if (!this.bots) this.loadBots();
        break;
      case "state":
        this.setState(message.state, []);
        this.afterCatchUp();
        break;
      case "events":
        this.setState(message.state, message.entries);
        this.afterCatchUp();
        break;
      case "seats": {
        // A seat renamed: the sheet and the standing say names too, so the state is asked
        // again (the entries after this version: none, and the state).
        const old = this.state ? this.state.seats : [];
        const renamed = message.seats.filter((x, i) => old[i] && old[i].name !== x.name);
        // The log's lines already drawn keep the old name (a page opened later words them
        // with the new one): a line says who is who now.
        for (const x of renamed) {
          this.addLog(t("{old} is now called {name}", { old: shownName(old[x.seat].name), name: shownName(x.name) }), "note");
        }
        if (this.state) this.state.seats = message.seats;
        if (renamed.length && this.ws && this.ws.readyState === WebSocket.OPEN) {
          this.ws.send(JSON.stringify({ type: "catch_up", since: this.version }));
        }
        this.loadSeats();
        this.loadBots(); // a person away is played by a bot now, or back
        this.render();
        break;
      }
      case "ack":
        // Its events follow in a frame of their own: the moves wait for them, or a second
        // tap in between is refused as stale (the state is still the one before).
        this.pending.delete(message.id);
        if (typeof message.version === "number") this.awaited = Math.max(this.awaited, message.version);
        this.render();
        break;
      case "refused": {
        this.pending.delete(message.id);
        const reason = message.reason + (message.rule && !message.reason.includes(message.rule) ? ` (${message.rule})` : "");
        this.addLog(t("Refused: {reason}", { reason }), "refused");
        this.setNotice(reason, "refused");
        if (message.code === "stale") this.ws.send(JSON.stringify({ type: "catch_up", since: this.version }));
        this.render();
        break;
      }
      case "seat": {
        const seat = this.state && this.state.seats[message.seat];
        if (seat) {
          seat.away = message.away;
          this.addLog(
            message.away
              ? t("{name} is away: a bot plays for them", { name: seat.name })
              : t("{name} is back", { name: seat.name }),
            "note",
          );
          this.render();
        }
        break;
      }
      case "rematch":
        this.state.rematch = message.game;
        this.render();
        break;
      case "error":
        // An error answers no intent by its id (a malformed message, a seat taken away):
        // nothing sent waits for an answer after it, or the moves would stay disabled.
        this.pending.clear();
        if (message.fatal) {
          this.fatal = message.fatal; // the socket closes next: ``refused`` says why
          this.fatalReason = message.reason;
          break;
        }
        this.setNotice(message.reason, "refused");
        this.render();
        break;
      default:
        break;
    }
  }

  setState(state, entries) {
    const before = this.state;
    const thrown = [];
    for (const entry of entries) {
      if (this.version !== null && entry.seq <= this.version && this.log.length) continue;
      for (const event of entry.events) {
        const names = state.sheet.players.map((p) => p.name);
        const text = withShownNames(event.text, names);
        this.addLog(text, event.type === "Farkled" ? "farkle" : "event");
        if (event.type === "Thrown") thrown.push(event);
        // A farkle stays on the table, with its dice, until the next throw (or an undo).
        if (event.type === "Thrown" || event.type === "Undone") this.farkle = null;
        if (event.type === "Farkled") {
          const last = thrown.length ? thrown[thrown.length - 1].dice : state.turn.throw;
          this.farkle = { text, dice: last || [] };
        }
      }
    }
    // A throw or a new phase after this page's move moves the buttons: the second tap of a
    // double tap lands on the new layout (a keep where Throw was), and is not taken. (Not
    // after another seat's move: a tap then is the player's first.)
    const own = this.ownMove && entries.length > 0;
    if (own) this.ownMove = false;
    if (own && before && (thrown.length || before.phase !== state.phase)) {
      const settle = typeof globalThis.zloutchSettleMs === "number" ? globalThis.zloutchSettleMs : SETTLE_MS;
      this.settledAt = performance.now() + settle; // (the browser tests set 0: they click at once)
    }
    this.state = state;
    this.version = state.version;
    let askedName = false;
    if (this.askName !== null) {
      const seat = state.seats[this.askName];
      if (state.status === "playing" && seat && !seat.bot && this.held[this.askName]) {
        // The name this browser gave last, unless another seat has it (the host's own
        // browser opening an invitation): else the seat's.
        const remembered = rememberedName();
        const same = (a, b) => String(a).localeCompare(b, undefined, { sensitivity: "accent" }) === 0;
        const taken = state.seats.some((x) => x.seat !== seat.seat && same(x.name, remembered));
        this.naming = { seat: this.askName, draft: remembered && !taken ? remembered : seat.name, error: null };
        askedName = true;
      }
      this.askName = null;
    }
    const throwKey = `${state.turn.throw.join("")}@${state.version}`;
    if (state.phase !== "keep" || !before || before.turn.throw.join() !== state.turn.throw.join() || thrown.length) {
      this.selected = new Set();
    }
    if (state.phase !== "roll") this.faces = [];
    this.selectedFor = throwKey;
    if (this.notice && this.notice.kind !== "note" && entries.length) this.notice = null;
    if (this.hintOpen) this.hint = null; // never a hint of another moment
    this.render({ animate: thrown.length > 0, focus: askedName ? "my-name" : null });
    if (askedName) {
      const field = document.getElementById("my-name");
      if (field) field.select(); // typed over at once: "Player 2" needs no deleting
    }
    if (this.hintOpen && state.hints !== false) this.loadHint();
  }

  addLog(text, kind = "event") {
    this.log.push({ text, kind });
    if (this.log.length > 400) this.log.shift();
    announce(text);
  }

  setNotice(text, kind) {
    this.notice = { text, kind };
  }

  afterCatchUp() {
    if (!this.flushAfterCatchUp) return;
    this.flushAfterCatchUp = false;
    this.flush();
    this.renderConnection();
  }

  /** The seat list (POST /api/games/{id}/seats) with the host's token or a seat's. */
  async loadSeats() {
    const token = hostToken(this.game) || this.anyToken();
    if (!token) return;
    try {
      this.seatList = await postJSON(`/api/games/${this.game}/seats`, { token });
    } catch (error) {
      this.seatList = null;
    }
    this.render();
  }

  /** What the bots play: a bot that plays to win says it plays turn by turn while its game
   * is being solved, so the list is asked again every few seconds until it is ready. */
  async loadBots() {
    clearTimeout(this.botsTimer);
    try {
      this.bots = (await getJSON(`/api/games/${this.game}/bots?lang=${lang()}`)).bots;
    } catch (error) {
      this.bots = null;
      this.render();
      return;
    }
    if (this.bots.some((b) => b.solving)) this.botsTimer = setTimeout(() => this.loadBots(), 5000);
    this.render();
  }

  botsLine() {
    if (!this.bots || !this.bots.length || this.state.status !== "playing") return null;
    return h(
      "ul",
      { class: "bots-line", id: "bots-line" },
      this.bots.map((b) =>
        h("li", { "data-seat": b.seat, class: b.solving ? "solving" : "" }, h("strong", {}, `${this.name(b.seat)}:`), " ", b.plays),
      ),
    );
  }

  async loadRules() {
    try {
      this.rules = await getJSON(`/api/games/${this.game}/rules`);
    } catch (error) {
      this.rules = null;
    }
    this.render();
  }

  async reissue(seat, name) {
    if (!confirm(t("A new invitation for {name}: the old link stops working. Go on?", { name }))) return;
    try {
      await postJSON(`/api/games/${this.game}/reissue`, { token: hostToken(this.game), seat });
    } catch (error) {
      this.setNotice(error.message, "refused");
    }
    await this.loadSeats();
  }

  /** The token to act with: a seat held here that may act now. */
  actingToken() {
    if (!this.state) return null;
    for (const seat of this.state.acting) if (this.held[seat]) return this.held[seat];
    return null;
  }

  anyToken() {
    return Object.values(this.held)[0] || null;
  }

  /** A move is on its way (sent, not yet answered) or waits for the connection. */
  waiting() {
    const behind = this.version !== null && this.version < this.awaited;
    return this.pending.size > 0 || this.queue.length > 0 || behind;
  }

  /** A tap taken, or not: one move at a time, and not the second tap of a double tap. */
  tapped(run) {
    return () => {
      if (performance.now() < this.settledAt || this.waiting()) return;
      run();
    };
  }

  send(action, { token = this.actingToken() || this.anyToken() } = {}) {
    if (!this.state) return;
    if (this.waiting() && action !== "undo") {
      this.setNotice(t("Your last move is on its way: wait for it"), "wait"); // gone with its events
      this.render();
      return;
    }
    this.ownMove = true;
    this.count += 1;
    // A random id (128 bits): a retry of this intent is known by it, and no one can guess it.
    const random = crypto.getRandomValues(new Uint8Array(16));
    const id = `p-${Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")}`;
    const message = { type: "intent", id, version: this.state.version, action, token };
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || this.connection === "reconnecting") {
      // Kept, said, and sent once the socket is back (or refused then, with the reason).
      this.queue.push(message);
      this.addLog(t("Not connected: {action} is sent when the connection is back", { action }), "note");
      this.renderConnection();
      this.render();
      return;
    }
    this.pending.set(id, message);
    this.ws.send(JSON.stringify(message));
    this.render(); // its buttons wait for the answer
  }

  // -- what the player does

  key(e) {
    if (!this.state || !this.keysOn || e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
    const s = this.state;
    const typing = s.table_mode && s.phase === "roll";
    if (/^[1-6]$/.test(e.key)) {
      e.preventDefault();
      if (typing) this.addFace(Number(e.key));
      else {
        this.toggle(Number(e.key) - 1);
        this.sayDie(Number(e.key) - 1);
      }
      return;
    }
    if (e.key === "Backspace" && typing) {
      e.preventDefault();
      this.faces.pop();
      this.render();
      return;
    }
    if (e.key === "Enter" || e.key === " ") {
      // Enter and Space are the game's only on the page itself (and Enter on a die keeps):
      // any focused control does its own thing (a fold-out opens; it threw the dice).
      const onDie = target && target.classList && target.classList.contains("die");
      const onPage = !target || target === document.body || target === document.documentElement || target.tagName === "MAIN";
      if (!onPage && !(onDie && e.key === "Enter")) return;
      e.preventDefault();
      if (typing) this.sendRoll();
      else if (s.phase === "keep") this.keepSelected();
      else this.send("throw");
      return;
    }
    if (e.key === "h") {
      e.preventDefault();
      if (s.hints === false) {
        this.setNotice(t("The host turned the hints off for this game"), "info");
        this.render();
      } else this.toggleHint();
      return;
    }
    if (e.key === "j") {
      const joker = s.legal.find((a) => a.startsWith("joker"));
      if (joker) this.send(joker);
      return;
    }
    if (e.key === "k" && s.phase === "keep") {
      this.keepSelected();
      return;
    }
    const kind = ACTION_KEYS[e.key];
    // A key tries even what is not legal: the server answers with the reason.
    if (kind) this.send(kind);
  }

  toggle(index) {
    const s = this.state;
    if (s.phase !== "keep" || index >= s.turn.throw.length) return;
    if (this.selected.has(index)) this.selected.delete(index);
    else this.selected.add(index);
    this.render();
  }

  /** A die picked by its digit key has no focus to tell it (a focused die's state is read). */
  sayDie(index) {
    const face = this.state.turn.throw[index];
    if (this.state.phase !== "keep" || face === undefined) return;
    announce(
      this.selected.has(index)
        ? t("die {n}: {face}, selected", { n: index + 1, face })
        : t("die {n}: {face}", { n: index + 1, face }),
    );
  }

  selectedDice() {
    const throwDice = this.state.turn.throw;
    return [...this.selected].map((i) => throwDice[i]).sort((a, b) => a - b);
  }

  keepSelected() {
    const dice = this.selectedDice();
    if (!dice.length) {
      this.setNotice(t("Select the dice to keep first (1 to 6, or tap them)"), "refused");
      this.render();
      return;
    }
    this.send(`keep ${dice.join(" ")}`);
  }

  addFace(face) {
    if (this.faces.length < this.state.turn.rolling) this.faces.push(face);
    this.render({ focus: `face-${face}` });
  }

  sendRoll() {
    const faces = [...this.faces].sort((a, b) => a - b);
    this.send(`roll ${faces.join(" ")}`);
  }

  toggleHint() {
    this.hintOpen = !this.hintOpen;
    this.keepPanels();
    if (this.hintOpen) this.loadHint();
    this.render({ focus: "hint-toggle" });
  }

  keepPanels() {
    try {
      sessionStorage.setItem(this.panelsKey, JSON.stringify({ hint: this.hintOpen, rules: this.rulesOpen }));
    } catch {
      // storage refused (a private window's quota): the panels are only not kept
    }
  }

  async loadHint() {
    const version = this.state.version;
    try {
      const hint = await getJSON(`/api/games/${this.game}/hint?lang=${lang()}`);
      if (this.state.version === version) {
        this.hint = hint;
        this.render();
        // Said once it is in (the panel is drawn again at every move: no live region there).
        if (this.hintOpen && hint.values && hint.values.length) {
          const best = hint.values[0];
          const win = hint.objective === "win probability";
          const value = win ? percent(best.value, hint.digits ?? 1) : number(best.value, hint.digits ?? 1);
          announce(t("Hint: {action} is best ({value})", { action: best.words, value }));
        }
      }
    } catch (error) {
      this.hint = { error: error.message };
      this.render();
    }
  }

  // -- drawing

  render({ animate = false, focus = null } = {}) {
    const s = this.state;
    if (!s) return;
    const was = document.activeElement;
    const active = focus || (was && was.id) || null;
    // A field being typed in keeps its caret (the page is drawn again at every move).
    const caret = was && was.id === active && typeof was.selectionStart === "number" ? [was.selectionStart, was.selectionEnd] : null;
    const over = s.status !== "playing";
    this.renderConnection();
    const parts = [
      this.connectionBadge,
      this.statusBar(),
      this.rulesLine(),
      this.botsLine(),
      over ? this.noticeBar() : null,
      this.namingCard(),
      h(
        "div",
        { class: over ? "play over" : "play" },
        // At the end the felt goes: the last dice thrown no longer sit under the result.
        over
          ? null
          : h(
              "section",
              { class: "card felt", "aria-label": t("The dice") },
              this.diceArea(animate),
              this.turnLine(),
              this.keepsList(),
              this.actions(),
              // Under the buttons: a refusal that appears moves none of them from under a
              // finger (above the felt, it pushed the whole table down).
              this.noticeBar(),
            ),
        h(
          "div",
          { class: "side" },
          over ? null : this.hintPanel(),
          this.sheet(),
          this.rulesPanel(),
          this.keysPanel(),
          this.seatsPanel(),
          this.logPanel(),
        ),
      ),
    ];
    if (over) parts.splice(2, 0, this.endSection());
    this.main.classList.toggle("keys-off", !this.keysOn);
    // A fold-out stays as the person left it, whatever its toggle event has told so far (a
    // drawing between a click and that event closed it again).
    const folds = new Map([...this.main.querySelectorAll("details[id]")].map((d) => [d.id, d.open]));
    this.main.replaceChildren(...parts.filter(Boolean));
    for (const [id, open] of folds) {
      const fold = document.getElementById(id);
      if (fold && fold.open !== open) fold.open = open;
    }
    const log = document.getElementById("log");
    if (log) log.scrollTop = log.scrollHeight;
    // The keyboard's place kept: the element focused before, by its id; where it is gone or
    // disabled (Throw pressed: every button waits for the answer), the first control of the
    // felt that can act, now or at a later drawing (the focus fell to the page, and a
    // keyboard user had to find the table again after each move).
    const wanted = active || (was === document.body ? this.focusWanted : null);
    if (wanted) {
      const element = document.getElementById(wanted);
      if (element && !element.disabled) {
        element.focus({ preventScroll: true });
        if (caret && element.setSelectionRange) element.setSelectionRange(...caret);
        this.focusWanted = null;
      } else if (element || (was && was.closest && was.closest(".felt")) || this.focusWanted) {
        this.focusWanted = wanted;
        const next = this.main.querySelector(".felt button:not(:disabled)");
        if (next) {
          next.focus({ preventScroll: true });
          this.focusWanted = null;
        }
      }
    }
  }

  /** The form where a person names a seat this browser holds (``naming``). */
  namingCard() {
    const n = this.naming;
    const s = this.state;
    if (!n || s.status !== "playing" || !this.held[n.seat]) return null;
    const several = Object.keys(this.held).length > 1;
    return h(
      "form",
      { class: "card naming", id: "naming", onsubmit: (e) => (e.preventDefault(), this.saveName()) },
      h(
        "label",
        { for: "my-name" },
        several ? t("The name of seat {n}", { n: n.seat + 1 }) : t("Your name at this table"),
      ),
      h(
        "div",
        { class: "naming-row" },
        h("input", {
          id: "my-name",
          value: n.draft,
          maxlength: 40,
          autocomplete: "nickname",
          enterkeyhint: "done",
          oninput: (e) => (n.draft = e.target.value),
        }),
        h("button", { type: "submit", class: "primary", id: "save-name", disabled: Boolean(n.saving) }, t("Save")),
        h(
          "button",
          {
            type: "button",
            id: "keep-name",
            onclick: () => {
              this.naming = null;
              this.render();
            },
          },
          t("Not now"),
        ),
      ),
      n.error ? h("p", { class: "error", role: "alert", id: "name-error" }, n.error) : null,
    );
  }

  startNaming(seat) {
    this.naming = { seat, draft: this.state.seats[seat].name, error: null };
    this.render({ focus: "my-name" });
    const field = document.getElementById("my-name");
    if (field) field.select();
  }

  async saveName() {
    const n = this.naming;
    n.saving = true;
    n.error = null;
    this.render();
    try {
      const named = await postJSON(`/api/games/${this.game}/name`, { token: this.held[n.seat], name: n.draft });
      try {
        localStorage.setItem("zloutch:name", named.name);
      } catch {
        // storage refused: the name is only not remembered for the next game
      }
      if (this.naming === n) this.naming = null;
      announce(t("{name} is your name at this table", { name: named.name }));
      this.render({ focus: `rename-${named.seat}` });
    } catch (error) {
      n.saving = false;
      n.error = error.message;
      this.render({ focus: "my-name" });
    }
  }

  name(seat) {
    return this.state.seats[seat] ? shownName(this.state.seats[seat].name) : "?";
  }

  canAct() {
    return this.actingToken() !== null;
  }

  statusBar() {
    const s = this.state;
    let text;
    if (s.status === "over") {
      const winners = s.sheet.winners;
      text = winners.length
        ? t("The game is over: {names} won", { names: winners.map(shownName).join(" & ") })
        : t("The game is over");
    } else if (s.status === "expired") {
      text = t("This game expired without a move");
    } else {
      const who = this.name(s.turn_player);
      const mine = this.canAct();
      const bot = s.seats[s.turn_player] && s.seats[s.turn_player].bot;
      if (s.phase === "roll" && s.table_mode) {
        text = mine
          ? t("{name}: throw {n} dice and tap their faces", { name: who, n: s.turn.rolling })
          : t("{name} throws the dice", { name: who });
      } else if (mine) {
        text = Object.keys(this.held).length > 1 ? t("{name} to play", { name: who }) : t("Your turn, {name}", { name: who });
      } else if (bot) {
        // A bot's own seat (bot:medium) is shown "medium (bot)" already; a person's seat
        // played by a bot (a player who left) says so.
        const named = String(s.seats[s.turn_player].name || "").startsWith("bot:");
        text = named
          ? t("{name} is playing", { name: who })
          : t("{name} (bot) is playing", { name: who });
      } else {
        text = t("{name}'s turn", { name: who });
      }
    }
    // Who this page plays for, by name: a phone passed around, or two people, tell at a glance.
    const role =
      this.seat === null
        ? t("watching")
        : Object.keys(this.held).length > 1
          ? t("this device: seats {seats}", {
              seats: Object.keys(this.held).map((n) => Number(n) + 1).sort((a, b) => a - b).join(", "),
            })
          : t("you are {name} · seat {n}", { name: this.name(this.seat), n: this.seat + 1 });
    // The last round: the player to move needs to know before choosing to bank.
    const last =
      s.status === "playing" && s.final
        ? h("span", { class: "final", id: "final" }, t("Last round: {name} leads with {score}", { name: this.name(s.final.leader), score: s.final.best }))
        : null;
    return h(
      "div",
      { class: "status", id: "status", role: "status", "data-version": s.version, "data-phase": s.phase },
      h("strong", {}, text),
      " ", // read as words apart ("Your turn, Ana" then "you are Ana"), not run together
      last,
      last ? " " : null,
      h("span", { class: "role" }, role, s.table_mode ? " · " : "", s.table_mode ? t("real dice") : ""),
    );
  }

  noticeBar() {
    if (!this.notice) return null;
    // Spoken once: a refusal by the live log already ("Refused: ..."), another notice as an
    // alert the first time it is drawn (the page is drawn again at every move and die).
    const speak = this.notice.kind !== "refused" && !this.notice.spoken;
    this.notice.spoken = true;
    return h(
      "p",
      { class: `notice ${this.notice.kind}`, role: speak ? "alert" : null, id: "notice" },
      this.notice.kind === "refused" ? h("span", { "aria-hidden": "true" }, "✗ ") : "",
      this.notice.text,
    );
  }

  dieButton(face, index, { selected, selectable, label }) {
    return h(
      "button",
      {
        type: "button",
        id: `die-${index}`,
        class: `die${selected ? " selected" : ""}`,
        "aria-pressed": selectable ? String(selected) : null,
        "aria-label": label,
        disabled: !selectable,
        onclick: () => this.toggle(index),
      },
      dieFace(face),
      selected ? h("span", { class: "mark", "aria-hidden": "true" }, "✓") : null,
    );
  }

  diceArea(animate) {
    const s = this.state;
    const turn = s.turn;
    const rows = [];
    if (s.phase === "keep") {
      const mine = this.canAct();
      rows.push(
        h(
          "div",
          { class: `dice thrown${animate ? " rolling" : ""}`, role: "group", "aria-label": t("The throw") },
          turn.throw.map((face, i) =>
            this.dieButton(face, i, {
              selected: this.selected.has(i),
              selectable: mine,
              label: this.selected.has(i)
                ? t("die {n}: {face}, selected", { n: i + 1, face })
                : t("die {n}: {face}", { n: i + 1, face }),
            }),
          ),
        ),
      );
    } else if (s.phase === "roll" && s.table_mode) {
      rows.push(this.facePad());
    } else if (s.phase === "roll") {
      rows.push(h("p", { class: "rolling-note" }, t("The dice are rolling…")));
    }
    if (turn.set_aside.length) {
      rows.push(
        h(
          "div",
          { class: "dice aside", role: "group", "aria-label": t("Set aside: {dice}", { dice: turn.set_aside.join(" ") }) },
          h("span", { class: "label", "aria-hidden": "true" }, t("Set aside")),
          turn.set_aside.map((face) => h("span", { class: "die small" }, dieFace(face))),
        ),
      );
    }
    if (turn.jokers.length) {
      rows.push(
        h(
          "div",
          { class: "dice aside jokers", role: "group", "aria-label": t("Jokers: {dice}", { dice: turn.jokers.join(" ") }) },
          h("span", { class: "label", "aria-hidden": "true" }, t("Jokers")),
          turn.jokers.map((face) => h("span", { class: "die small" }, dieFace(face))),
        ),
      );
    }
    if (!rows.length && this.farkle) {
      rows.push(
        h(
          "div",
          { class: "dice farkled", role: "group", "aria-label": this.farkle.text, id: "farkle" },
          this.farkle.dice.map((face) => h("span", { class: "die" }, dieFace(face))),
        ),
        h("p", { class: "farkle-note" }, this.farkle.text),
      );
    }
    if (!rows.length) rows.push(h("p", { class: "rolling-note" }, t("No dice on the table")));
    return h("div", { class: "dice-area" }, rows);
  }

  facePad() {
    const s = this.state;
    const mine = this.canAct();
    const full = this.faces.length >= s.turn.rolling;
    return h(
      "div",
      { class: "face-pad" },
      h(
        "div",
        { class: "dice typed", role: "group", "aria-label": t("The faces typed") },
        this.faces.map((face, i) =>
          h(
            "button",
            {
              type: "button",
              class: "die",
              id: `typed-${i}`,
              "aria-label": t("typed {face}: remove it", { face }),
              onclick: () => {
                this.faces.splice(i, 1);
                this.render();
              },
            },
            dieFace(face),
          ),
        ),
        Array.from({ length: Math.max(s.turn.rolling - this.faces.length, 0) }, () =>
          h("span", { class: "die empty", "aria-hidden": "true" }),
        ),
      ),
      h(
        "div",
        { class: "dice pad", role: "group", "aria-label": t("Tap each face thrown") },
        [1, 2, 3, 4, 5, 6].map((face) =>
          h(
            "button",
            {
              type: "button",
              class: "die",
              id: `face-${face}`,
              "aria-label": t("a {face} was thrown", { face }),
              disabled: !mine || full,
              onclick: () => this.addFace(face),
            },
            dieFace(face),
          ),
        ),
      ),
      this.button("roll", t("Enter the throw"), () => this.sendRoll(), {
        enabled: mine && full,
        reason: !mine ? this.turnReason() : full ? null : t("Tap the faces of the {n} dice", { n: s.turn.rolling }),
      }),
    );
  }

  turnLine() {
    const s = this.state;
    const turn = s.turn;
    const parts = [h("span", { class: "total" }, t("Turn total"), " ", h("strong", { id: "turn-total" }, turn.total))];
    if (s.phase === "decide" || s.phase === "start") {
      parts.push(
        h(
          "span",
          {},
          turn.full_hand
            ? t("full hand: {n} dice in hand", { n: turn.in_hand })
            : turn.in_hand === 1
              ? t("1 die in hand")
              : t("{n} dice in hand", { n: turn.in_hand }),
        ),
      );
    }
    if (s.phase === "roll") {
      parts.push(h("span", {}, turn.rolling === 1 ? t("1 die in the air") : t("{n} dice in the air", { n: turn.rolling })));
    }
    if (s.offer) {
      parts.push(
        h(
          "span",
          { class: "offer" },
          s.offer.dice === 1
            ? t("Offer: take over {total} with 1 die (G-8)", { total: s.offer.total })
            : t("Offer: take over {total} with {n} dice (G-8)", { total: s.offer.total, n: s.offer.dice }),
        ),
        s.offer.busts ? h("span", { class: "warn" }, t("taking it over is certain to pass {target}: the turn would be lost (T-9)", { target: s.target })) : null,
      );
    }
    if (turn.pending) parts.push(h("span", {}, t("a figure waits for a 1 or a 5 (V-1)")));
    return h("p", { class: "turn-line", id: "turn-line" }, parts);
  }

  keepsList() {
    const s = this.state;
    if (s.phase !== "keep") return null;
    const chosen = this.selectedDice();
    const counts = (dice) => dice.reduce((m, d) => ((m[d] = (m[d] || 0) + 1), m), {});
    const want = counts(chosen);
    const fits = (dice) => {
      const have = counts(dice);
      return Object.entries(want).every(([d, n]) => (have[d] || 0) >= n);
    };
    const keeps = s.keeps.filter((k) => fits(k.dice));
    const mine = this.canAct();
    return h(
      "div",
      { class: "keeps" },
      h("h3", { id: "keeps-title" }, t("Legal keeps")),
      keeps.length
        ? h(
            "ul",
            { "aria-labelledby": "keeps-title" },
            keeps.map((k, i) => {
              const exact = k.dice.join(" ") === chosen.join(" ");
              return h(
                "li",
                {},
                (() => {
                  // What each tag says is in the button's spoken name too (a screen reader
                  // heard "keep 1 1 1 for 1000", never "passes 1000: the turn is lost").
                  const tags = [
                    k.full_hand ? ["tag", t("full hand")] : null,
                    k.lands ? ["tag ok", t("lands on {target}: bank it to win", { target: s.target })] : null,
                    k.passes ? ["tag warn", passesWords(s)] : null,
                    k.strands
                      ? ["tag warn", t("lands on {target} with dice to throw again: any score then passes it", { target: s.target })]
                      : null,
                    exact ? ["tag", t("your selection")] : null,
                  ].filter(Boolean);
                  const name = [t("keep {dice} for {points}", { dice: k.dice.join(" "), points: k.points }), ...tags.map(([, words]) => words)];
                  return h(
                    "button",
                    {
                      type: "button",
                      id: `keep-${i}`,
                      class: `keep${exact ? " exact" : ""}`,
                      disabled: !mine || this.waiting(),
                      "aria-label": name.join(", "),
                      onclick: this.tapped(() => this.send(`keep ${k.dice.join(" ")}`)),
                    },
                    h("span", { class: "keep-dice" }, k.dice.join(" ")),
                    h("span", { class: "points" }, k.points),
                    tags.map(([cls, words]) => h("span", { class: cls }, words)),
                  );
                })(),
              );
            }),
          )
        : h("p", {}, chosen.length ? t("No legal keep holds {dice}", { dice: chosen.join(" ") }) : t("No keep: this throw scores nothing")),
    );
  }

  turnReason() {
    const s = this.state;
    if (this.seat === null && !Object.keys(this.held).length) return t("You are watching");
    if (s.phase === "roll" && !s.table_mode) return t("The dice are rolling");
    return t("It is {name}'s turn", { name: this.name(s.turn_player) });
  }

  button(kind, label, onclick, { enabled, reason, key, look = "" }) {
    return h(
      "div",
      { class: `action${enabled ? "" : " off"}` },
      h(
        "button",
        {
          type: "button",
          id: `act-${kind}`,
          class: kind === "throw" || kind === "roll" ? "primary" : look,
          disabled: !enabled || (this.waiting() && kind !== "undo"),
          "aria-describedby": reason ? `why-${kind}` : null,
          "aria-keyshortcuts": key || null,
          onclick: kind === "undo" ? onclick : this.tapped(onclick),
        },
        label,
        key ? h("kbd", { "aria-hidden": "true" }, key === "Enter" ? t("Enter") : key) : null,
      ),
      reason ? h("small", { class: "why", id: `why-${kind}` }, reason) : null,
    );
  }

  reasonOf(kind) {
    const why = this.state.refusals[kind];
    if (!why) return null;
    return why.rule && !why.reason.includes(why.rule) ? `${why.reason} (${why.rule})` : why.reason;
  }

  actions() {
    const s = this.state;
    if (this.seat === null && !Object.keys(this.held).length) {
      return h("p", { class: "watching", id: "watching" }, t("You are watching: the players' moves appear here as they make them."));
    }
    const mine = this.canAct();
    const turnReason = mine ? null : this.turnReason();
    const buttons = [];
    const add = (kind, label, onclick, key, extra = null, look = "") => {
      if (!(kind in s.refusals)) return;
      const why = this.reasonOf(kind) || extra;
      buttons.push(
        this.button(kind, label, onclick, { enabled: mine && !why, reason: turnReason || why, key, look }),
      );
    };
    if (!(s.table_mode && s.phase === "roll")) {
      const dice = this.selectedDice();
      add(
        "keep",
        dice.length ? t("Keep {dice}", { dice: dice.join(" ") }) : t("Keep"),
        () => this.keepSelected(),
        "Enter",
        s.phase === "keep" && !dice.length ? t("Select the dice to keep") : null,
      );
      add("throw", t("Throw"), () => this.send("throw"), "T");
      add("bank", s.turn.total ? t("Bank {total}", { total: s.turn.total }) : t("Bank"), () => this.send("bank"), "B");
      // The two answers to a take-back offer (G-8), shown only while one stands.
      if (s.offer) {
        add("take", s.offer.busts ? t("Take over (certain to bust)") : t("Take over"), () => this.send("take"), "X", null, "offer");
        add("fresh", t("Start fresh"), () => this.send("fresh"), "F", null, "fresh");
      }
      if ("joker" in s.refusals) {
        const jokers = s.legal.filter((a) => a.startsWith("joker"));
        if (jokers.length && mine) {
          for (const action of jokers) {
            const dice = action.slice("joker ".length);
            buttons.push(
              this.button(`joker-${dice.replace(/ /g, "")}`, t("Jokers {dice}", { dice }), () => this.send(action), {
                enabled: true,
                reason: null,
                key: "J",
              }),
            );
          }
        } else {
          add("joker", t("Jokers"), () => {}, "J");
        }
      }
    }
    // At a real table a die may fall off as the dice are thrown, before their faces are given.
    add("off", t("A die off the table"), () => {
      if (confirm(t("A die fell off the table: the turn is lost (V-1). Go on?"))) this.send("off");
    }, "O");
    if ("undo" in s.refusals) {
      const why = this.reasonOf("undo");
      const held = Object.keys(this.held).length > 0;
      buttons.push(
        this.button("undo", t("Undo the last entry"), () => this.send("undo", { token: this.anyToken() }), {
          enabled: held && !why,
          reason: held ? why : t("You are watching"),
          key: "U",
        }),
      );
    }
    // One order whatever can be done now: a thumb finds each button where it was.
    return h("div", { class: "actions", role: "group", "aria-label": t("Actions") }, buttons);
  }

  hintPanel() {
    if (this.state.hints === false) return null; // the host turned them off
    const rows = [];
    const hint = this.hint;
    if (this.hintOpen) {
      if (!hint) rows.push(h("p", {}, t("Working out the hint…")));
      else if (hint.error) rows.push(h("p", { class: "error" }, hint.error));
      else if (!hint.values.length) rows.push(h("p", {}, t("No decision to make right now")));
      else {
        const win = hint.objective === "win probability";
        const digits = hint.digits ?? 1; // as many as the best needs to stand apart
        const shown = (v) => (win ? percent(v, digits) : number(v, digits));
        rows.push(
          h("p", { class: "objective" }, t("For {name}, in {objective}", { name: this.name(hint.player), objective: t(hint.objective) })),
          h(
            "table",
            { class: "hint-table", "data-version": hint.version },
            h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("action")), h("th", { scope: "col" }, win ? t("chance to win") : t("expected points")))),
            h(
              "tbody",
              {},
              hint.values.map((v, i) =>
                h(
                  "tr",
                  { class: i === 0 ? "best" : "", "data-action": v.action },
                  h(
                    "td",
                    {},
                    v.words,
                    i === 0 ? [" ", h("span", { class: "tag" }, t("best"))] : null,
                    // a keep that loses the turn past an exact target (T-9), as the keeps say it
                    v.passes ? [" ", h("span", { class: "tag warn" }, passesWords(this.state))] : null,
                    v.strands
                      ? [" ", h("span", { class: "tag warn" }, t("lands on {target} with dice to throw again: any score then passes it", { target: this.state.target }))]
                      : null,
                  ),
                  h("td", { class: "num" }, shown(v.value)),
                ),
              ),
            ),
          ),
        );
        if (hint.note) rows.push(h("p", { class: "hint-note" }, hint.note)); // translated by the server
      }
    }
    return h(
      "section",
      { class: "card hint" },
      h(
        "button",
        {
          type: "button",
          id: "hint-toggle",
          "aria-expanded": String(this.hintOpen),
          "aria-keyshortcuts": "H",
          onclick: () => this.toggleHint(),
        },
        this.hintOpen ? t("Hide the hint") : t("Hint"),
        h("kbd", { "aria-hidden": "true" }, "H"),
      ),
      rows,
    );
  }

  sheet() {
    const s = this.state;
    const players = s.sheet.players;
    const rows = Math.max(0, ...players.map((p) => p.levels.length));
    const over = s.status === "over";
    const head = players.map((p, seat) => {
      const marks = [];
      if (s.sheet.winners.includes(p.name)) marks.push(h("span", { class: "mark", title: t("winner") }, "\u00a0★")); // never alone on a line
      else if (!over && seat === s.turn_player) marks.push(h("span", { class: "mark", title: t("to play") }, "\u00a0◀"));
      const label = s.sheet.winners.includes(p.name) ? t("{name}, winner", { name: p.name }) : !over && seat === s.turn_player ? t("{name}, to play", { name: p.name }) : p.name;
      return h("th", { scope: "col", class: seat === s.turn_player && !over ? "turn" : "", "aria-label": label }, h("span", { class: longWord(p.name) ? "name long" : "name" }, shownName(p.name)), marks);
    });
    const body = [];
    for (let i = 0; i < rows; i++) {
      body.push(
        h(
          "tr",
          {},
          players.map((p, seat) => {
            const level = p.levels[i];
            if (!level) return h("td", {});
            const current = s.standing[seat].current === i;
            const ticks = "/".repeat(level.ticks);
            const words = [String(level.value), level.pp ? "pp" : "", level.crossed ? t("crossed") : "", level.ticks ? t("{n} ticks", { n: level.ticks }) : ""].filter(Boolean).join(", ");
            const value = level.crossed ? h("s", {}, level.value) : h("span", {}, level.value);
            return h(
              "td",
              { class: `${current ? "current" : ""}${level.crossed ? " crossed" : ""}`, "aria-label": words },
              value,
              level.pp ? h("span", { class: "pp" }, " pp") : null,
              ticks ? h("span", { class: "ticks" }, " ", ticks) : null,
            );
          }),
        ),
      );
    }
    const foot = players.map((p, seat) => {
      const loose = s.standing[seat].loose_ticks;
      return h(
        "td",
        {},
        h("strong", {}, p.score),
        loose
          ? h("span", { class: "ticks", role: "img", "aria-label": t("{n} ticks", { n: loose }) }, " ", "/".repeat(loose))
          : null,
        p.entered || !s.entry ? null : h("div", { class: "not-entered" }, t("not entered")),
      );
    });
    return h(
      "section",
      { class: "card paper", "aria-labelledby": "sheet-title" },
      h("h3", { id: "sheet-title" }, t("The sheet")),
      // Six players and more: narrower columns, and the sheet scrolls sideways in its card
      // (it pushed the whole page past a phone's width).
      h(
        "div",
        { class: "sheet-scroll" },
        h(
          "table",
          { class: players.length >= 6 ? "sheet many" : "sheet", id: "sheet" },
          h("thead", {}, h("tr", {}, head)),
          h("tbody", {}, body),
          h("tfoot", {}, h("tr", {}, foot)),
        ),
      ),
    );
  }

  /** The rule set, its target and entry, always in sight (players and spectators). */
  rulesLine() {
    const s = this.state;
    const title = this.rules ? this.rules.title : s.rules;
    const target = s.exact_target ? t("exactly {target}", { target: s.target }) : t("to {target}", { target: s.target });
    const parts = [h("strong", {}, title), " · ", target];
    if (s.entry) parts.push(" · ", t("{entry} to enter", { entry: s.entry }));
    if (s.hints === false) parts.push(" · ", t("no hints"));
    if (this.rules && this.rules.spec !== this.rules.name) parts.push(" · ", h("code", {}, this.rules.spec));
    return h("p", { class: "rules-line", id: "rules-line" }, parts);
  }

  rulesPanel() {
    const r = this.rules;
    if (!r) return null;
    const shown = (o) =>
      o.value === true ? t("on") : o.value === false ? t("off") : (choiceWord(o.option, o.value) ?? String(o.value));
    const row = (o) =>
      h(
        "li",
        { class: "rule-row", "data-option": o.option },
        h("span", { class: "rule-id" }, ruleId(o.rule)),
        " ",
        h("span", { class: "meaning" }, o.meaning),
        " ",
        h("strong", { class: "value" }, shown(o)),
      );
    const faces = [1, 2, 3, 4, 5, 6];
    const kinds = Object.entries(r.kinds);
    const scores = h(
      "table",
      { class: "scores", id: "scores" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("dice")), faces.map((f) => h("th", { scope: "col" }, String(f))))),
      h(
        "tbody",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "row" }, t("one die")),
          faces.map((f) => {
            const single = r.singles.find(([face]) => face === f);
            return h("td", {}, single ? String(single[1]) : "-");
          }),
        ),
        kinds.map(([count, byFace]) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, t("{n} of a kind", { n: count })),
            faces.map((f) => {
              const best = (r.kinds_best?.[count] ?? {})[f];
              if (best !== undefined) return h("td", { class: "outscored" }, `${best}*`);
              return h("td", {}, byFace[f] === undefined ? "-" : byFace[f] === "win" ? t("wins") : String(byFace[f]));
            }),
          ),
        ),
      ),
    );
    // n of a kind that score more split into other combinations (farkle's three 1s: 300, not 100)
    const outscored = Object.entries(r.kinds_best ?? {}).flatMap(([count, byFace]) =>
      Object.entries(byFace).map(([face, best]) =>
        t("* {n} of a kind of {face}s: {best} split into other combinations, more than the rule's {rule}.", {
          n: count,
          face,
          best,
          rule: r.kinds[count][face],
        }),
      ),
    );
    return h(
      "section",
      { class: "card rules-card" },
      h(
        "details",
        { id: "rules-panel", open: this.rulesOpen, ontoggle: (e) => {
          this.rulesOpen = e.target.open;
          this.keepPanels();
        } },
        h("summary", { id: "rules-summary" }, h("h3", { class: "inline" }, t("The rules"))),
        h("p", { class: "summary" }, r.changed.length ? t("As shipped: {summary}", { summary: r.summary }) : r.summary),
        r.changed.length
          ? h("p", { class: "changed", id: "rules-changed" }, t("Changed for this game:"), " ", h("code", {}, r.changed.map((o) => `${o.option}=${o.value}`).join(",")))
          : null,
        h("div", { class: "table-scroll" }, scores),
        outscored.length ? h("p", { class: "note", id: "scores-note" }, outscored.join(" ")) : null,
        // Straights, pairs, full houses...: every combination that is no n of a kind.
        (r.combinations ?? []).length
          ? h(
              "table",
              { class: "scores combinations", id: "combinations" },
              h("thead", {}, h("tr", {}, [t("combination"), t("dice"), t("points")].map((c) => h("th", { scope: "col" }, c)))),
              h(
                "tbody",
                {},
                r.combinations.map((c) =>
                  h(
                    "tr",
                    {},
                    h("th", { scope: "row" }, c.name || "", c.note ? h("div", { class: "note" }, c.note) : null),
                    h("td", {}, c.dice),
                    h("td", {}, c.points),
                  ),
                ),
              ),
            )
          : null,
        h("h4", {}, t("In play")),
        h("ul", { class: "rule-list", id: "rules-in-play" }, r.in_play.map(row)),
        // Ids for the fold-out and its summary: a drawing (every move) closed it and took the
        // keyboard's focus off it (``render`` keeps both by their ids).
        h(
          "details",
          { id: "rules-off" },
          h("summary", { id: "rules-off-summary" }, t("Switched off ({n})", { n: r.off.length })),
          h("ul", { class: "rule-list" }, r.off.map(row)),
        ),
      ),
    );
  }

  /** The keys of the page, listed, and a switch that turns them off (WCAG 2.1.4). */
  keysPanel() {
    const keys = [
      ["T", t("throw")],
      ["1–6", t("pick dice (at a real table: type the faces)")],
      ["K", t("keep the dice picked")],
      ["Enter", t("keep the dice picked, or throw")],
      ["B", t("bank")],
      ["X / F", t("take over / start fresh (G-8)")],
      ["J", t("jokers (V-2)")],
      ["O", t("a die off the table")],
      ["U", t("undo the last entry (real dice)")],
      ["H", t("the hint")],
    ];
    return h(
      "section",
      { class: "card keys-card" },
      h(
        "details",
        { id: "keys-panel" },
        h("summary", { id: "keys-summary" }, h("h3", { class: "inline" }, t("Keys"))),
        h(
          "label",
          { class: "keys-switch" },
          h("input", {
            type: "checkbox",
            id: "keys-on",
            checked: this.keysOn,
            onchange: (e) => {
              this.keysOn = e.target.checked;
              localStorage.setItem("zloutch:keys", this.keysOn ? "on" : "off");
              this.render();
            },
          }),
          " ",
          t("One-key shortcuts (off: only Tab, Enter and Space, as on any page)"),
        ),
        h("ul", { class: "rule-list", id: "keys-list" }, keys.map(([key, what]) => h("li", {}, h("kbd", {}, key), " ", what))),
      ),
    );
  }

  seatsPanel() {
    const s = this.state;
    const listed = this.seatList ? Object.fromEntries(this.seatList.seats.map((x) => [x.seat, x])) : {};
    const base = origin(this.seatList && this.seatList.public_url);
    const host = Boolean(this.seatList && this.seatList.host);
    const waiting = s.seats.filter((x) => !x.taken).length;
    const rows = s.seats.map((seat) => {
      const known = listed[seat.seat] || {};
      // Held on this device: the server says so for the token sent, the host's holds none.
      const mine = Boolean(known.mine || this.held[seat.seat]);
      const state = seat.bot
        ? t("bot")
        : !seat.taken
          ? t("not yet joined")
          : seat.away
            ? t("away: a bot plays for them")
            : t("joined");
      const parts = [
        h("span", { class: "seat-name" }, shownName(seat.name)),
        " ",
        h("span", { class: `tag seat-state${seat.taken ? "" : " warn"}` }, state),
        mine ? " " : null, // words apart when read ("joined you", not "joinedyou")
        mine ? h("span", { class: "tag" }, t("you")) : null,
        mine && !seat.bot && this.held[seat.seat] && s.status === "playing"
          ? h(
              "button",
              { type: "button", class: "small", id: `rename-${seat.seat}`, onclick: () => this.startNaming(seat.seat) },
              t("Change the name"),
            )
          : null,
      ];
      const invite = known.invite;
      let links = null;
      if (invite) {
        // Not for a seat held here: its new link would lock this device out of its game.
        const again = host && !seat.bot && !mine
          ? h(
              "button",
              { type: "button", class: "small", id: `reissue-${seat.seat}`, onclick: () => this.reissue(seat.seat, seat.name) },
              t("New invitation"),
            )
          : null;
        const label = mine ? t("Your link, for another device") : t("Invitation for {name}", { name: seat.name });
        const row = h("ul", { class: "links" }, linkRow(`seat-link-${seat.seat}`, label, base + invite.url, { extra: again }));
        // A seat still to take shows its invitation; the others keep theirs folded.
        links = seat.taken
          ? h(
              "details",
              { id: `links-fold-${seat.seat}` },
              h("summary", { id: `links-${seat.seat}` }, t("Link for {name}", { name: shownName(seat.name) })),
              row,
            )
          : row;
      }
      return h("li", { class: "seat-row", id: `seat-${seat.seat}`, "data-taken": String(seat.taken) }, parts, links);
    });
    return h(
      "section",
      { class: "card seats-card", "aria-labelledby": "seats-title" },
      h("h3", { id: "seats-title" }, t("The seats"), waiting ? " · " + t("{n} to join", { n: waiting }) : ""),
      h("ul", { class: "seat-list" }, rows),
    );
  }

  logPanel() {
    return h(
      "section",
      { class: "card", "aria-labelledby": "log-title" },
      h("h3", { id: "log-title" }, t("The log")),
      // Not numbered: a page's own count of its lines (from 1 where it opened, again after
      // 400 lines) read as the review's move numbers, which it is not.
      h(
        "ul",
        { class: "log", id: "log", tabindex: "0" },
        this.log.map((line) => h("li", { class: line.kind }, line.text)),
      ),
    );
  }

  endSection() {
    if (!this.endShown) this.endShown = h("section", { class: "end", id: "end" });
    showEnd(this.endShown, this);
    return this.endShown;
  }
}
