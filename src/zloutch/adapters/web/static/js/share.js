// A link to pass on: shown in a field, with a button that shares or copies it (over plain
// http on a home network neither navigator.share nor navigator.clipboard exists: the link
// is selected and copied the old way, and the button says what happened) and a QR code
// the server draws (/api/qr), for a phone across the table.

import { h } from "./dom.js";
import { t } from "./i18n.js";

export function linkRow(id, label, url, { qr = true, extra = null } = {}) {
  const field = h("input", { id, readonly: true, value: url, onfocus: (e) => e.target.select() });
  const picture = h("img", {
    class: "qr",
    id: `${id}-qr`,
    alt: t("QR code of the link"),
    width: 148,
    height: 148,
    hidden: true,
  });
  const copy = h(
    "button",
    {
      type: "button",
      class: "small",
      id: `${id}-copy`,
      onclick: async (e) => {
        const button = e.currentTarget;
        let done = false;
        if (navigator.share && window.isSecureContext) {
          done = await navigator.share({ title: "Zloutch", url }).then(() => true, () => false);
        }
        if (!done && navigator.clipboard && window.isSecureContext) {
          done = await navigator.clipboard.writeText(url).then(() => true, () => false);
        }
        if (!done) {
          field.focus();
          field.select();
          try {
            done = document.execCommand("copy");
          } catch (error) {
            done = false;
          }
        }
        button.textContent = done ? t("Copied") : t("Select the link and copy it");
      },
    },
    navigator.share && window.isSecureContext ? t("Share") : t("Copy"),
  );
  const show = qr
    ? h(
        "button",
        {
          type: "button",
          class: "small",
          id: `${id}-show-qr`,
          "aria-expanded": "false",
          onclick: (e) => {
            const open = picture.hidden;
            if (open && !picture.src) picture.src = `/api/qr?text=${encodeURIComponent(url)}`;
            picture.hidden = !open;
            e.currentTarget.setAttribute("aria-expanded", String(open));
          },
        },
        t("QR code"),
      )
    : null;
  return h(
    "li",
    { class: "invite" },
    h("label", { for: id }, label),
    field,
    h("span", { class: "link-buttons" }, copy, show, extra),
    qr ? picture : null,
  );
}

/** The address players open: the server's (a network address, or --public-url), never the
 * one this browser used (127.0.0.1 opens on no phone). */
export function origin(publicUrl) {
  return publicUrl ? publicUrl.replace(/\/$/, "") : location.origin;
}
