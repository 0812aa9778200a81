// The history page (/u/NAME/history): every table the player sat at, finished or not, newest
// first, a page at a time, from GET /api/users/NAME/matches?before=&limit=.

import { api } from "./net.js";
import {
  dateText, el, matchText, nameFromPath, playerLink, profileHref, ratingChange, resultText, say,
  scoreText, startPage,
} from "./records.js";

const PAGE = 25;
const STATUS = { waiting: "Waiting for players", playing: "In play" };

function opponents(entry) {
  if (entry.opponents.length === 0) return el("span", { class: "muted" }, "—");
  const out = [];
  entry.opponents.forEach((seat, i) => {
    if (i) out.push(", ");
    out.push(playerLink(seat));
  });
  return out;
}

function outcome(entry) {
  if (entry.result) {
    if (entry.won === null) return `${entry.result.winner} won`;
    return resultText(entry.won, entry.result.reason);
  }
  return el("span", { class: "muted" }, STATUS[entry.status] ?? (entry.status === "over" ? "Over" : entry.status));
}

function rating(entry) {
  if (!entry.rated || entry.kind !== "match") return el("span", { class: "muted" }, "unrated");
  if (!entry.result) return el("span", { class: "muted" }, "rated");
  return ratingChange(entry.result.ratings?.[entry.seat] ?? null);
}

function links(entry) {
  const live = el("a", { href: entry.links.live }, entry.status === "over" ? "Table" : "Open");
  const replay = entry.status === "waiting" ? null : el("a", { href: entry.links.replay }, "Replay");
  return el("span", { class: "links" }, live, replay);
}

function row(entry) {
  return el("tr", { dataset: { table: entry.id, status: entry.status } },
    el("td", { "data-label": "Started" }, dateText(entry.created)),
    el("td", { "data-label": "Opponent", class: "wrap" }, opponents(entry)),
    el("td", { "data-label": "Match" }, matchText(entry.kind, entry.length, entry.rated)),
    el("td", { "data-label": "Result" }, outcome(entry)),
    el("td", { "data-label": "Score", class: "num" }, scoreText(entry.score, entry.seat)),
    el("td", { "data-label": "Rating" }, rating(entry)),
    el("td", { "data-label": "" }, links(entry)));
}

async function start() {
  startPage();
  const name = nameFromPath();
  const body = document.querySelector("#history tbody");
  const more = document.getElementById("more");
  let before = null;

  async function load() {
    more.disabled = true;
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (before) query.set("before", before);
    try {
      const page = await api(`/api/users/${encodeURIComponent(name)}/matches?${query}`);
      document.title = `Backgammon — ${page.name}'s matches`;
      document.getElementById("history-title").textContent = `${page.name}'s matches`;
      const profile = document.getElementById("profile-link");
      profile.href = profileHref(page.name);
      profile.hidden = false;
      body.append(...page.matches.map(row));
      document.getElementById("history").hidden = body.children.length === 0;
      say(body.children.length ? "" : "No matches yet.");
      before = page.next;
      more.hidden = !before;
    } catch (e) {
      say(e.message, true);
    } finally {
      more.disabled = false;
    }
  }

  more.addEventListener("click", load);
  await load();
}

start();
