// The replay page /r/<id>: steps through a table's record one event at a time (every roll,
// play and cube action), with the board (board.js's Board, read-only), the record with the
// current line highlighted, a list of games and the fair-dice proof of every game. Its data is
// GET /api/tables/<id>/replay (backgammon/server/replay.py): one frame per event of the log,
// each with the spectator's snapshot and the event's narration. The analysis panel beside it
// is analysis.js's.

import { mountAnalysis } from "./analysis.js";
import { Board } from "./board.js";
import { applyTheme, boardOptions, loadOptions } from "./options.js";

const $ = (id) => document.getElementById(id);

/** The page's whole state. */
const replay = {
  id: "",
  info: null,       // TableInfo
  frames: [],       // the server's frames
  fair: null,       // the server's fair-dice proof
  at: 0,            // the frame shown
  board: null,
  options: null,
  game: 0,          // the game whose board options are set
  timer: 0,         // auto-play
  lineOf: [],       // per frame: the <li> of its last line, or of the last line before it
  gameStarts: [],   // [{game, index, score}]
  analysis: null,   // analysis.js's panel: {show(index)}
};

// -- words --------------------------------------------------------------------------------

function tableWords(info) {
  if (!info) return "Replay";
  const names = (info.seats || []).map((s) => s.name || "a free seat").join(" v ");
  const kind = info.kind === "match" ? `Match to ${info.length} point${info.length === 1 ? "" : "s"}`
    : info.kind === "chouette" ? `Chouette of ${(info.seats || []).length}` : "Money game";
  return `${kind}: ${names}`;
}

function diceText(dice) {
  return dice ? `${dice[0]}-${dice[1]}` : "";
}

/** `text` ending with a full stop. */
function sentence(text) {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** What the snapshot waits for, in words. */
function statusWords(frame) {
  const s = frame.snapshot;
  const game = `Game ${frame.game}`;
  if (s.over) return `${game}: ${s.result ? sentence(s.result) + " " : ""}The match is over.`;
  if (s.phase === "over") return `${game}: ${sentence(s.result || "the game is over")}`;
  if (s.phase === "opening") return `${game}: the opening roll.`;
  const who = s.on_roll || "";
  if (s.offer && s.offer.kind === "double") return `${game}: ${s.offer.by} doubles to ${s.offer.cube}; ${s.offer.waiting.join(", ")} to answer.`;
  if (s.offer && s.offer.kind === "proposal") return `${game}: ${s.offer.by} proposes a team double.`;
  if (s.offer && s.offer.kind === "resignation") return `${game}: ${s.offer.by} offers to resign; ${s.offer.waiting.join(", ")} to answer.`;
  if (s.phase === "play") return `${game}: ${who} to play ${diceText(s.dice)}.`;
  if (s.phase === "roll") return `${game}: ${who} to roll or double.`;
  return `${game}: ${s.phase}.`;
}

/** The narration of a frame, or a few words when the narration says nothing of its event. */
function lineWords(frame) {
  if (frame.line) return frame.line;
  const e = frame.event || {};
  const seats = frame.snapshot.seats || [];
  const who = typeof e.player === "number" ? seats[e.player]?.name : e.player;
  if (frame.kind === "pass" && who) return `${who} passes.`;
  if (frame.kind === "start") return `Game ${frame.game} starts.`;
  return "";
}

// -- the frame shown ------------------------------------------------------------------------

function show(index, { step = false } = {}) {
  const frames = replay.frames;
  if (!frames.length) return;
  const i = Math.max(0, Math.min(frames.length - 1, index));
  const frame = frames[i];
  replay.at = i;
  const board = replay.board;
  if (frame.game !== replay.game) {
    replay.game = frame.game;
    board.setOptions(boardOptions(replay.options, frame.game));
  }
  // animate the other side's checkers only on a single step forward
  const ms = step ? boardOptions(replay.options, frame.game).animationMs : 0;
  board.options.animationMs = ms;
  board.show(frame.snapshot, null);
  $("status").textContent = statusWords(frame);
  $("line").textContent = lineWords(frame);
  $("where").textContent = `${i + 1} / ${frames.length}`;
  const slider = $("slider");
  slider.value = String(i);
  slider.setAttribute("aria-valuetext", `event ${i + 1} of ${frames.length}: ${lineWords(frame) || frame.kind}`);
  $("first").disabled = $("prev").disabled = i === 0;
  $("next").disabled = $("last").disabled = i === frames.length - 1;
  highlightLine(i);
  highlightGame(frame.game);
  if (i === frames.length - 1) pause();
  replay.analysis?.show(i);
  history.replaceState(null, "", `#${i}`);
}

function highlightLine(i) {
  const list = $("log");
  for (const li of list.querySelectorAll("li.current")) {
    li.classList.remove("current");
    li.querySelector(".step")?.removeAttribute("aria-current");
  }
  const current = [...list.querySelectorAll(`li[data-frame="${i}"]`)];
  if (!current.length && replay.lineOf[i]) current.push(replay.lineOf[i]);
  for (const li of current) {
    li.classList.add("current");
    li.querySelector(".step")?.setAttribute("aria-current", "step");
  }
  const last = current.at(-1);
  if (last) {
    const first = current[0];
    const top = first.offsetTop, bottom = last.offsetTop + last.offsetHeight;
    if (top < list.scrollTop || bottom > list.scrollTop + list.clientHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 3);
    }
  }
}

function highlightGame(game) {
  for (const b of $("games").querySelectorAll("button")) {
    b.setAttribute("aria-current", String(Number(b.dataset.game) === game));
  }
  for (const li of $("fair-games").querySelectorAll("li[data-game]")) {
    li.classList.toggle("current", Number(li.dataset.game) === game);
  }
}

// -- moving ---------------------------------------------------------------------------------

function go(index, options) {
  show(index, options);
}

function next() {
  if (replay.at < replay.frames.length - 1) go(replay.at + 1, { step: true });
}

function previous() {
  go(replay.at - 1);
}

/** The start of the game before (or, inside a game, of this one) or after the current frame. */
function gameJump(direction) {
  const starts = replay.gameStarts.map((g) => g.index);
  if (!starts.length) return;
  if (direction > 0) {
    const after = starts.find((s) => s > replay.at);
    go(after ?? replay.frames.length - 1);
  } else {
    const before = starts.filter((s) => s < replay.at).at(-1);
    go(before ?? 0);
  }
}

function playing() {
  return replay.timer !== 0;
}

function pause() {
  if (replay.timer) clearInterval(replay.timer);
  replay.timer = 0;
  const button = $("play");
  button.textContent = "▶ Play";
  button.setAttribute("aria-pressed", "false");
}

function play() {
  if (playing()) return;
  if (replay.at >= replay.frames.length - 1) go(0);
  const button = $("play");
  button.textContent = "⏸ Pause";
  button.setAttribute("aria-pressed", "true");
  replay.timer = setInterval(() => {
    if (replay.at >= replay.frames.length - 1) pause();
    else next();
  }, Number($("speed").value) || 1000);
}

function togglePlay() {
  if (playing()) pause();
  else play();
}

function onKey(e) {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const target = e.target;
  const tag = target && target.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return; // the slider steps by itself
  if (tag === "BUTTON" && (e.key === " " || e.key === "Enter")) return; // the button's own click
  const actions = {
    ArrowRight: () => { pause(); next(); },
    ArrowLeft: () => { pause(); previous(); },
    Home: () => { pause(); go(0); },
    End: () => { pause(); go(replay.frames.length - 1); },
    PageDown: () => { pause(); gameJump(1); },
    PageUp: () => { pause(); gameJump(-1); },
    " ": togglePlay,
  };
  const action = actions[e.key];
  if (!action) return;
  e.preventDefault();
  action();
}

// -- building the page ----------------------------------------------------------------------

function buildLog() {
  const list = $("log");
  list.replaceChildren();
  replay.lineOf = [];
  let number = 0;
  let last = null;
  replay.frames.forEach((frame, i) => {
    for (const line of frame.lines || []) {
      const li = document.createElement("li");
      li.dataset.frame = String(i);
      li.className = line.tone.startsWith("side") ? (line.tone === "side0" ? "tone-mine" : "tone-theirs") : `tone-${line.tone}`;
      if (line.tone === "title") number = 0;
      else li.value = ++number;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "step";
      button.textContent = line.text;
      button.addEventListener("click", () => { pause(); go(i); });
      li.append(button);
      list.append(li);
      last = li;
    }
    replay.lineOf.push(last);
  });
}

function buildGames() {
  const list = $("games");
  list.replaceChildren();
  replay.gameStarts = [];
  const seen = new Set();
  replay.frames.forEach((frame, i) => {
    if (frame.kind !== "start" || seen.has(frame.game)) return;
    seen.add(frame.game);
    replay.gameStarts.push({ game: frame.game, index: i, score: frame.score });
  });
  for (const start of replay.gameStarts) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.game = String(start.game);
    const kind = replay.info?.kind;
    const score = kind === "chouette" ? "" : ` (${start.score[0]}-${start.score[1]})`;
    button.textContent = `Game ${start.game}${score}`;
    button.title = `Go to the start of game ${start.game}`;
    button.addEventListener("click", () => { pause(); go(start.index); });
    li.append(button);
    list.append(li);
  }
}

function fairItem(label, value) {
  const dt = document.createElement("dt");
  dt.textContent = label;
  const dd = document.createElement("dd");
  if (value instanceof Node) dd.append(value);
  else dd.textContent = value;
  return [dt, dd];
}

function code(text) {
  const c = document.createElement("code");
  c.textContent = text;
  return c;
}

function buildFair() {
  const fair = replay.fair || { games: [], verified: false, proven: false, messages: [] };
  const verdict = $("fair-verdict");
  const games = fair.games || [];
  if (fair.proven) {
    verdict.textContent = `Verified ✓ every roll of ${games.length === 1 ? "the game" : `all ${games.length} games`} follows from the seeds.`;
    verdict.className = "verdict ok";
  } else if (fair.verified) {
    const open = games.filter((g) => !g.revealed).map((g) => g.game);
    verdict.textContent = `Verified ✓ so far; the seed of game ${open.join(", ") || "?"} is revealed when it ends.`;
    verdict.className = "verdict ok";
  } else {
    verdict.textContent = `Not verified: ${(fair.messages || []).join(" ") || "the record has no fair-dice data."}`;
    verdict.className = "verdict fail";
  }
  const list = $("fair-games");
  list.replaceChildren();
  for (const g of games) {
    const li = document.createElement("li");
    li.dataset.game = String(g.game);
    li.className = !g.ok ? "fail" : g.revealed ? "ok" : "pending";
    const head = document.createElement("strong");
    head.textContent = `Game ${g.game}: ${!g.ok ? "FAILED" : g.revealed ? "verified ✓" : "not revealed yet"}`;
    li.append(head);
    const dl = document.createElement("dl");
    dl.className = "fair";
    dl.append(...fairItem("Commitment", g.commitment ? code(g.commitment) : "–"));
    dl.append(...fairItem("Server seed", g.server_seed ? code(g.server_seed) : "revealed when the game ends"));
    const seeds = g.client_seeds || [];
    dl.append(...fairItem("Players' seeds", seeds.length ? code(seeds.join(" ")) : "none"));
    dl.append(...fairItem("Dice", `${(g.rolls || []).length}`));
    li.append(dl);
    if (!g.ok && g.summary) {
      const p = document.createElement("p");
      p.className = "error";
      p.textContent = g.summary;
      li.append(p);
    }
    list.append(li);
  }
}

async function mountAccount() {
  // another part of the site draws the account bar; the replay works without it
  try {
    const module = await import("./account.js");
    if (typeof module.renderAccountBar === "function") await module.renderAccountBar($("account"));
  } catch {
    // no account bar
  }
}

function fail(text) {
  const box = $("message");
  box.textContent = text;
  box.hidden = false;
}

export async function startReplay() {
  const parts = location.pathname.split("/").filter(Boolean);
  replay.id = decodeURIComponent(parts[parts.length - 1] || "");
  const id = encodeURIComponent(replay.id);
  $("table-link").href = `/t/${id}`;
  $("verify-link").href = `/verify?table=${id}`;
  const record = $("record-link");
  record.href = `/api/tables/${id}/record`;
  record.setAttribute("download", `table-${replay.id}.json`);
  replay.options = loadOptions();
  applyTheme(replay.options);
  mountAccount();
  let data;
  try {
    const response = await fetch(`/api/tables/${id}/replay`);
    data = await response.json().catch(() => ({ error: `the server answered ${response.status}` }));
    if (!response.ok) {
      fail(`No replay of table ${replay.id}: ${data.error || response.status}`);
      return;
    }
  } catch (err) {
    fail(`The replay could not be loaded (${err}). Check your connection and reload the page.`);
    return;
  }
  replay.info = data.info || null;
  replay.frames = data.frames || [];
  replay.fair = data.fair || null;
  if (!replay.frames.length) {
    fail("This table has no record yet.");
    return;
  }
  const title = `Replay — ${tableWords(replay.info)}`;
  $("replay-title").textContent = title;
  document.title = `Backgammon — ${title}`;
  $("replay-main").hidden = false;

  replay.board = new Board($("board"), {});
  // read-only: the board takes no keys (the page's arrows step through the record)
  replay.board.svg.removeAttribute("tabindex");
  replay.board.help.textContent = "The board after the highlighted line of the record.";
  $("slider").max = String(replay.frames.length - 1);
  buildLog();
  buildGames();
  buildFair();
  replay.analysis = mountAnalysis({
    id: replay.id, info: replay.info, frames: replay.frames, gameStarts: replay.gameStarts,
    go: (index) => { pause(); go(index); },
  });

  $("first").addEventListener("click", () => { pause(); go(0); });
  $("prev").addEventListener("click", () => { pause(); previous(); });
  $("next").addEventListener("click", () => { pause(); next(); });
  $("last").addEventListener("click", () => { pause(); go(replay.frames.length - 1); });
  $("play").addEventListener("click", togglePlay);
  $("slider").addEventListener("input", (e) => { pause(); go(Number(e.target.value)); });
  $("speed").addEventListener("change", () => { if (playing()) { pause(); play(); } });
  document.addEventListener("keydown", onKey);

  const fromHash = Number.parseInt(location.hash.slice(1), 10);
  go(Number.isFinite(fromHash) ? fromHash : 0);
}

startReplay();
