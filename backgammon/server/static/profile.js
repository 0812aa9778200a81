// The profile page (/u/NAME): rating, experience, matches won, lost and abandoned, and the last
// results, from GET /api/users/NAME.

import { api } from "./net.js";
import {
  dateText, dayText, el, matchText, nameFromPath, playerLink, profileHref, ratingChange, ratingText,
  resultText, say, scoreText, startPage,
} from "./records.js";

function row(result) {
  return el("tr", { dataset: { table: result.table } },
    el("td", { "data-label": "Finished" }, dateText(result.finished)),
    el("td", { "data-label": "Opponent", class: "wrap" }, playerLink(result.opponent)),
    el("td", { "data-label": "Match" }, matchText("match", result.length, result.rated)),
    el("td", { "data-label": "Result" }, resultText(result.won, result.reason)),
    el("td", { "data-label": "Score", class: "num" }, scoreText(result.score, result.seat)),
    el("td", { "data-label": "Rating" }, ratingChange(result.rating)),
    el("td", { "data-label": "" }, el("span", { class: "links" }, el("a", { href: result.links.replay }, "Replay"))));
}

function show(profile) {
  document.title = `Backgammon — ${profile.name}`;
  document.getElementById("player-name").textContent = profile.name;
  const role = document.getElementById("player-role");
  role.hidden = profile.role === "player";
  role.textContent = profile.role;
  document.getElementById("history-link").href = `${profileHref(profile.name)}/history`;
  document.getElementById("player-since").textContent = `Member since ${dayText(profile.created)}`;
  document.getElementById("stat-rating").textContent = ratingText(profile.rating);
  document.getElementById("stat-experience").textContent = String(profile.experience);
  document.getElementById("stat-won").textContent = String(profile.won);
  document.getElementById("stat-lost").textContent = String(profile.lost);
  document.getElementById("stat-abandoned").textContent = String(profile.abandoned);
  document.querySelector("#recent tbody").replaceChildren(...profile.recent.map(row));
  document.getElementById("recent-empty").hidden = profile.recent.length > 0;
  document.getElementById("recent").hidden = profile.recent.length === 0;
  document.getElementById("profile").hidden = false;
  document.getElementById("recent-card").hidden = false;
}

async function start() {
  startPage();
  const name = nameFromPath();
  try {
    show(await api(`/api/users/${encodeURIComponent(name)}`));
    say("");
  } catch (e) {
    say(e.message, true);
  }
}

start();
