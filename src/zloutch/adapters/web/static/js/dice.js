// Dice drawn as dice: an SVG face with its pips.

import { svg } from "./dom.js";

const PIPS = {
  1: [[50, 50]],
  2: [[28, 28], [72, 72]],
  3: [[28, 28], [50, 50], [72, 72]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[28, 28], [72, 28], [50, 50], [28, 72], [72, 72]],
  6: [[28, 26], [72, 26], [28, 50], [72, 50], [28, 74], [72, 74]],
};

/** The SVG of one face (1 to 6); decorative: the button around it carries the label. */
export function dieFace(face) {
  return svg(
    "svg",
    { viewBox: "0 0 100 100", class: "die-face", "aria-hidden": "true", focusable: "false" },
    svg("rect", { x: 4, y: 4, width: 92, height: 92, rx: 18, class: "die-body" }),
    ...(PIPS[face] || []).map(([cx, cy]) => svg("circle", { cx, cy, r: 9, class: "pip" })),
  );
}
