// The players' records in the browser: what the profile, history and leaderboard pages share
// (the frame of the page, the account bar, and how a result, a rating and a date are shown).

import { applyTheme, loadOptions } from "./options.js";

/** Colours as the player chose them, and the account bar (account.js) when it loads: the page
 *  works without it. */
export async function startPage() {
  applyTheme(loadOptions());
  const bar = document.getElementById("account");
  if (!bar) return;
  try {
    const { renderAccountBar } = await import("/static/account.js");
    await renderAccountBar(bar);
  } catch {
    // no account bar: the records are public anyway
  }
}

/** `<tag class=...>children</tag>`; strings become text (never HTML). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** The player's name from /u/NAME or /u/NAME/history. */
export function nameFromPath(path = location.pathname) {
  const part = path.split("/")[2] ?? "";
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export function profileHref(name) {
  return `/u/${encodeURIComponent(name)}`;
}

/** An account's name as a link to its profile; a guest's seat name as plain text. */
export function playerLink(seat) {
  if (!seat || seat.name === null) return el("span", { class: "muted" }, "open seat");
  if (!seat.account) return el("span", { title: "a guest" }, seat.name);
  return el("a", { href: profileHref(seat.account) }, seat.name);
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "long" });

export function dateText(iso) {
  return iso ? dateFormat.format(new Date(iso)) : "—";
}

export function dayText(iso) {
  return iso ? dayFormat.format(new Date(iso)) : "—";
}

/** A FIBS rating as the club shows it: two decimals. */
export function ratingText(rating) {
  return Number.isFinite(rating) ? rating.toFixed(2) : "—";
}

/** "+10.00 → 1510.00" for a seat's {before, after}; "unrated" without one. */
export function ratingChange(change) {
  if (!change) return el("span", { class: "muted" }, "unrated");
  const delta = change.after - change.before;
  const sign = delta > 0 ? "+" : delta < 0 ? "−" : "±";
  return el("span", { title: `${ratingText(change.before)} before the match` },
    el("span", { class: delta > 0 ? "up" : delta < 0 ? "down" : "" }, `${sign}${Math.abs(delta).toFixed(2)}`),
    ` → ${ratingText(change.after)}`);
}

const WON = { played: "Won", resigned: "Won (resigned to)", time: "Won on time", abandoned: "Won (opponent left)" };
const LOST = { played: "Lost", resigned: "Lost (resigned)", time: "Lost on time", abandoned: "Lost (left)" };

/** "Won", "Lost on time"... from the player's side. */
export function resultText(won, reason) {
  const words = (won ? WON : LOST)[reason] ?? (won ? "Won" : "Lost");
  return el("span", { class: won ? "won" : "lost" }, words);
}

/** "3–1": the player's points first. */
export function scoreText(score, seat) {
  if (!score) return "—";
  const mine = score[seat];
  const theirs = Object.entries(score).filter(([s]) => s !== seat).map(([, p]) => p);
  if (mine === undefined) return Object.values(score).join("–");
  return [mine, ...theirs].join("–");
}

/** "3-point match", "money session", "chouette"; " · rated" when rated. */
export function matchText(kind, length, rated) {
  const what = kind === "match" ? `${length}-point match` : kind === "money" ? "money session" : "chouette";
  return rated ? `${what} · rated` : what;
}

/** Show `text` in the page's status line (role=status), or clear it. */
export function say(text, error = false) {
  const line = document.getElementById("status");
  if (!line) return;
  const sentence = text ?? "";
  line.textContent = sentence.charAt(0).toUpperCase() + sentence.slice(1);
  line.classList.toggle("error", Boolean(error && text));
}
