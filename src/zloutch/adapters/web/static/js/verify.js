// Check the dice of a finished game in the page, as `zloutch verify` does (docs/server.md):
// the SHA-256 of the revealed secret is the commitment, and throw number i is
// HMAC-SHA256(secret, [i, block, [[seat, seed], ...]]) read as faces (bytes below 252,
// face = byte % 6 + 1), the seeds those in force, the faces sorted.

import { N_ } from "./i18n.js";
import { fromHex, hmacSha256, sha256, toHex, utf8 } from "./sha256.js";

const FACES = 6;
const KEPT_BYTES = 252;

/** The JSON text Python's json.dumps(..., separators=(",", ":"), ensure_ascii=True) writes. */
export function asciiJson(value) {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

export function throwMessage(index, block, seeds) {
  return utf8(asciiJson([index, block, seeds.map((s) => [s.seat, s.seed])]));
}

/** The faces of throw `index` (`count` dice), in the order drawn. */
export function throwFaces(secretHex, seeds, index, count) {
  const key = fromHex(secretHex);
  const inForce = seeds.filter((s) => s.from_throw <= index);
  const faces = [];
  for (let block = 0; faces.length < count; block++) {
    for (const byte of hmacSha256(key, throwMessage(index, block, inForce))) {
      if (faces.length === count) break;
      if (byte < KEPT_BYTES) faces.push((byte % FACES) + 1);
    }
  }
  return faces;
}

/**
 * A record's dice checked: {ok, commitmentOk, reason, throws: [{throw, action, recorded,
 * computed, matches}]}; `reason` says why nothing could be checked.
 */
export function verifyRecord(record) {
  const dice = record.dice;
  const result = { ok: false, commitmentOk: false, reason: null, throws: [] };
  if (!dice || dice.scheme !== "hmac-sha256-1") {
    result.reason = N_("real dice: nothing to check");
    return result;
  }
  if (!dice.secret) {
    result.reason = N_("the secret is revealed when the game is over");
    return result;
  }
  let secret;
  try {
    secret = fromHex(dice.secret);
  } catch {
    result.reason = N_("the secret is not hex");
    return result;
  }
  result.commitmentOk = toHex(sha256(secret)) === dice.commitment;
  let index = 0;
  record.actions.forEach((action, place) => {
    if (!action.startsWith("roll")) return;
    if (index >= (dice.first_throw || 0)) {
      const recorded = action.split(/\s+/).slice(1).map(Number);
      const computed = throwFaces(dice.secret, dice.seeds || [], index, recorded.length);
      computed.sort((a, b) => a - b);
      result.throws.push({
        throw: index + 1,
        action: place + 1,
        recorded,
        computed,
        matches: computed.join(" ") === recorded.join(" "),
      });
    }
    index += 1;
  });
  result.ok = result.commitmentOk && result.throws.every((t) => t.matches);
  return result;
}
