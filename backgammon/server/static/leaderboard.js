// The leaderboard page (/leaderboard): the rated players by rating, from GET /api/leaderboard.

import { api } from "./net.js";
import { el, profileHref, ratingText, say, startPage } from "./records.js";

function row(player) {
  return el("tr", { dataset: { name: player.name } },
    el("td", { class: "num" }, String(player.rank)),
    el("td", { class: "wrap" }, el("a", { href: profileHref(player.name) }, player.name),
      player.role === "bot" ? [" ", el("span", { class: "badge" }, "bot")] : null),
    el("td", { class: "num" }, ratingText(player.rating)),
    el("td", { class: "num" }, String(player.experience)),
    el("td", { class: "num" }, String(player.won)),
    el("td", { class: "num" }, String(player.lost)));
}

async function start() {
  startPage();
  try {
    const { players } = await api("/api/leaderboard?limit=100");
    document.querySelector("#leaderboard tbody").replaceChildren(...players.map(row));
    document.getElementById("leaderboard").hidden = players.length === 0;
    say(players.length ? "" : "Nobody has played a rated match yet.");
  } catch (e) {
    say(e.message, true);
  }
}

start();
