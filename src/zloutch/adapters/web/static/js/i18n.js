// The page's words: every label goes through t("English text"), looked up in the catalog of
// the language chosen (gettext's ui.po, served by GET /api/i18n/{lang}). The engine's words
// (events, refusals, rule meanings) come translated from the server itself.

export const LANGUAGES = ["en", "fr"];
const STORED = "zloutch:lang";

let messages = {};
let current = "en";

/** `requested` if it is a language of the page, else the first of the browser's, else en. */
export function negotiate(browser, requested) {
  if (requested && LANGUAGES.includes(requested)) return requested;
  for (const tag of browser || []) {
    const primary = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(primary)) return primary;
  }
  return "en";
}

export function lang() {
  return current;
}

/** The page's language: the switch's choice (kept in localStorage), else the browser's. */
export async function loadLanguage() {
  const requested = new URLSearchParams(location.search).get("lang") || localStorage.getItem(STORED);
  current = negotiate(navigator.languages || [navigator.language], requested);
  document.documentElement.lang = current;
  messages = {};
  if (current !== "en") {
    try {
      const answer = await fetch(`/api/i18n/${current}`);
      if (answer.ok) messages = (await answer.json()).messages || {};
    } catch {
      messages = {};
    }
  }
  return current;
}

export function chooseLanguage(code) {
  localStorage.setItem(STORED, code);
}

/** A label in the page's language; {name} in the text is replaced by vars.name. */
export function t(text, vars = {}) {
  const found = messages[text] || text;
  return found.replace(/\{(\w+)\}/g, (whole, key) => (key in vars ? String(vars[key]) : whole));
}

/** Marks a text for the catalog that is translated later, by t(variable). */
export const N_ = (text) => text;

// The words of each choice an option offers (its value stays as a spec writes it).
const CHOICE_WORDS = {
  full_house: { off: N_("no full house"), sum: N_("the three plus the pair"), times: N_("the three times the pair") },
  full_hand: { forced: N_("throw them all again"), optional: N_("throw or bank") },
  entry_by: { turn: N_("by the turn total"), throw: N_("by one throw") },
  overshoot: { lost: N_("the turn is lost"), throw_on: N_("throw on") },
  bump: { off: N_("no bumps"), current: N_("the current level"), any: N_("any level") },
};

/** A choice of an option in words, in the page's language (null: none, say the value). */
export function choiceWord(option, value) {
  const word = (CHOICE_WORDS[option] || {})[value];
  return word ? t(word) : null;
}

/** A rule id as the page shows it: "T-9 Reading" (this project's reading of the rule). */
export function ruleId(rule) {
  return String(rule).replace(/\bReading\b/g, t("Reading"));
}

// A bot's seat is named bot:LEVEL (or a bot's name): shown as "medium (bot)", translated.
export function shownName(name) {
  if (typeof name !== "string" || !name.startsWith("bot:")) return name;
  const [level, n] = name.slice(4).split("#");
  // Two bots of one level (bot:medium, bot:medium#2) stay two names.
  return n ? t("{level} (bot) {n}", { level: t(level), n }) : t("{level} (bot)", { level: t(level) });
}

/** A text of the server's (a log line, the review) with each bot's seat name (bot:strong)
 * among `names` written as the page shows it ("strong (bot)"). */
export function withShownNames(text, names) {
  // The longest first: bot:medium#2 before bot:medium, which it contains.
  return names
    .filter((n) => typeof n === "string" && n.startsWith("bot:"))
    .sort((a, b) => b.length - a.length)
    .reduce((line, n) => line.split(n).join(shownName(n)), text);
}

/** A number in the page's language, with `digits` decimals (0,0 in French, 0.0 in English). */
export function number(value, digits) {
  return value.toLocaleString(lang() === "fr" ? "fr-FR" : "en-GB", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/**
 * A share as a percentage in the page's language: 67,6 % in French, 67.6% in English; never
 * rounded to a certainty it is not (>99.9% for a chance below 1 that would show 100.0%,
 * <0.1% for one above 0 that would show 0.0%), as the terminal says it (app/hints.py).
 */
export function percent(share, digits) {
  const step = 10 ** -digits;
  let value = 100 * share;
  let mark = "";
  if (share < 1 && value >= 100 - step / 2) {
    value = 100 - step;
    mark = ">";
  } else if (share > 0 && value < step / 2) {
    value = step;
    mark = "<";
  }
  const shown = mark + number(value, digits);
  return lang() === "fr" ? `${shown}\u00a0%` : `${shown}%`;
}
