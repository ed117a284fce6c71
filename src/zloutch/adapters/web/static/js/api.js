// The server's HTTP API (docs/server.md) and the seat tokens this browser holds.

import { lang } from "./i18n.js";

export class ApiError extends Error {}

async function answer(response) {
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(body.error || `${response.status} ${response.statusText}`);
  return body;
}

export async function getJSON(path) {
  const sep = path.includes("?") ? "&" : "?";
  return answer(await fetch(`${path}${sep}lang=${lang()}`));
}

export async function postJSON(path, body = {}) {
  // the page's language, for the words of a refusal (a rule's value out of bounds)
  const sep = path.includes("?") ? "&" : "?";
  return answer(
    await fetch(`${path}${sep}lang=${lang()}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

// A game's seats held here: {seat: token}. One phone keeps the score of a real table for
// several seats; a player on their own phone holds one.
const key = (game) => `zloutch:game:${game}`;

export function seatsHeld(game) {
  try {
    return JSON.parse(localStorage.getItem(key(game)) || "{}");
  } catch {
    return {};
  }
}

export function holdSeat(game, seat, token) {
  const held = seatsHeld(game);
  held[seat] = token;
  localStorage.setItem(key(game), JSON.stringify(held));
  remember(game);
}

/** A seat's token that the game no longer knows (its invitation was made again). */
export function forgetSeat(game, token) {
  const held = seatsHeld(game);
  for (const [seat, heldToken] of Object.entries(held)) {
    if (heldToken === token) delete held[seat];
  }
  localStorage.setItem(key(game), JSON.stringify(held));
}

function remember(game) {
  const games = knownGames().filter((g) => g !== game);
  localStorage.setItem("zloutch:games", JSON.stringify([game, ...games].slice(0, 20)));
}

// The host's token of a game this browser made: its seat list shows every invitation, and
// the host may reissue one.
export function holdHost(game, token) {
  if (!token) return;
  localStorage.setItem(`zloutch:host:${game}`, token);
  remember(game);
}

export function hostToken(game) {
  return localStorage.getItem(`zloutch:host:${game}`);
}

export function knownGames() {
  try {
    return JSON.parse(localStorage.getItem("zloutch:games") || "[]");
  } catch {
    return [];
  }
}
