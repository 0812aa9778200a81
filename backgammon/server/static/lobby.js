// The lobby page: the live list of tables (/ws/lobby) and the form that creates a table.

import { api, Connection, guestName, keepGuestName, keepTokens, loadAccount, tokensFor } from "./net.js";

const $ = (id) => document.getElementById(id);

/** The logged-in account ({name, role, rating, experience}) or null for a guest. */
let user = null;

/** A sentence for a table's game: "Match to 5 points", "Money game", "Chouette of 4". */
export function describeTable(info) {
  if (info.kind === "match") return `Match to ${info.length} point${info.length === 1 ? "" : "s"}`;
  if (info.kind === "chouette") return `Chouette of ${info.seats.length}`;
  return "Money game";
}

const STATUS = { waiting: "waiting for players", playing: "playing", over: "over" };

/** "45 s", "1 min", "1 min 30 s". */
function duration(seconds) {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const rest = s % 60;
  return rest ? `${Math.floor(s / 60)} min ${rest} s` : `${s / 60} min`;
}

/** A time control (TimeControl.to_dict()) in words: "blitz: 8 s + 20 s/point" (a delay for
 *  each move, then a reserve per match point). */
export function clockWords(control) {
  if (!control) return "no clock";
  return `${control.name}: ${duration(control.delay)} + ${duration(control.per_point)}/point`;
}

/** A rating as people read it: 1502.37 → "1502". */
export function ratingText(rating) {
  return Number.isFinite(rating) ? String(Math.round(rating)) : "–";
}

function seatText(seat, info) {
  if (seat.free) return "free seat";
  const player = info?.players?.[seat.name];
  const rating = player ? ` ${ratingText(player.rating)}` : "";
  return seat.kind === "human" ? `${seat.name}${rating}` : `${seat.name} (bot${rating})`;
}

function tableItem(info) {
  const item = document.createElement("li");
  item.className = "table-row";
  item.dataset.tableId = info.id;
  const held = Object.keys(tokensFor(info.id)).length > 0;
  const free = info.seats.some((s) => s.free);

  const text = document.createElement("div");
  const title = document.createElement("strong");
  title.textContent = describeTable(info);
  const badges = [];
  if (info.rated) {
    const badge = document.createElement("span");
    badge.className = "badge rated";
    badge.dataset.testid = "rated-badge";
    badge.textContent = "rated";
    badges.push(" ", badge);
  }
  const seats = document.createElement("span");
  seats.className = "seats";
  seats.textContent = info.seats.map((seat) => seatText(seat, info)).join(" · ");
  const meta = document.createElement("span");
  meta.className = "muted";
  const watchers = info.spectators ? `, ${info.spectators} watching` : "";
  const clock = info.clock ? `, clock ${clockWords(info.clock)}` : "";
  meta.textContent = `${STATUS[info.status] ?? info.status}${clock}${watchers}`;
  text.append(title, ...badges, " ", seats, document.createElement("br"), meta);

  const buttons = document.createElement("div");
  buttons.className = "row";
  if (held) {
    buttons.append(linkButton(`/t/${info.id}`, "Open", "open", describeTable(info)));
  } else {
    if (free) {
      const join = document.createElement("button");
      join.type = "button";
      join.className = "primary";
      join.dataset.action = "join";
      join.textContent = "Join";
      join.setAttribute("aria-label", `Join: ${describeTable(info)} with ${info.seats.map((seat) => seatText(seat, info)).join(", ")}`);
      join.addEventListener("click", () => joinTable(info.id, join));
      buttons.append(join);
    }
    buttons.append(linkButton(`/t/${info.id}?watch=1`, "Watch", "watch", describeTable(info)));
  }
  item.append(text, buttons);
  return item;
}

function linkButton(href, label, action, what) {
  const a = document.createElement("a");
  a.href = href;
  a.className = "button";
  a.dataset.action = action;
  a.textContent = label;
  a.setAttribute("aria-label", `${label}: ${what}`);
  return a;
}

function showTables(tables) {
  const list = $("lobby-tables");
  list.replaceChildren(...tables.map(tableItem));
  $("lobby-status").textContent = tables.length === 0
    ? "No open tables right now: create one."
    : `${tables.length} table${tables.length === 1 ? "" : "s"}.`;
}

function currentName() {
  if (user) return user.name; // an account plays under its name
  const field = $("guest-name");
  const name = field.value.trim();
  if (!name) {
    field.focus();
    throw new Error("Choose a name first (it is kept in this browser).");
  }
  keepGuestName(name);
  $("guest-name-label").textContent = name;
  return name;
}

async function joinTable(id, button) {
  const error = $("create-error");
  try {
    const name = currentName();
    button.disabled = true;
    const answer = await api(`/api/tables/${encodeURIComponent(id)}/join`, { name });
    keepTokens(id, { [answer.seat]: answer.token });
    location.href = `/t/${id}`;
  } catch (e) {
    button.disabled = false;
    $("lobby-status").textContent = e.message;
    error.hidden = true;
  }
}

// -- the create form ----------------------------------------------------------------------

let botLevels = [];

function botSelect(name, value) {
  const select = document.createElement("select");
  select.name = name;
  const human = new Option("a person", "human");
  select.add(human);
  for (const level of botLevels) select.add(new Option(`bot: ${level}`, level));
  select.value = value;
  return select;
}

function addChouetteSeat(kind) {
  const list = $("chouette-seats");
  if (list.children.length >= 8) return;
  const item = document.createElement("li");
  const label = document.createElement("label");
  const index = list.children.length + 1;
  label.textContent = index === 1 ? "Seat 1: you" : `Seat ${index} `;
  if (index > 1) label.append(botSelect(`seat${index}`, kind));
  item.append(label);
  list.append(item);
  updateSeatButtons();
}

function updateSeatButtons() {
  const count = $("chouette-seats").children.length;
  $("add-seat").disabled = count >= 8;
  $("remove-seat").disabled = count <= 3;
}

/** Why the match cannot be rated as the form stands ("" when it can). */
function notRatedBecause(kind, opponent) {
  if (!user) return "Log in to play rated matches: ratings belong to accounts.";
  if (kind !== "match") return "Only a match can be rated (not money play or a chouette).";
  if (opponent === "same_screen") return "A match at one screen cannot be rated: each player needs their own account.";
  return "";
}

function syncClub(form, kind, opponent) {
  const rated = form.elements.rated;
  const clock = form.elements.clock;
  const why = notRatedBecause(kind, opponent);
  rated.disabled = why !== "";
  if (rated.disabled) rated.checked = false;
  const against = opponent === "online" ? "Whoever joins must be logged in too. " : "";
  $("rated-note").textContent = why || (rated.checked
    ? `${against}A rated match needs a clock, so nobody can stall it.`
    : `${against}Unrated: the result is kept but no rating changes.`);
  clock.disabled = kind !== "match";
  if (clock.disabled) clock.value = "none";
  const none = clock.querySelector('option[value="none"]');
  none.disabled = rated.checked;
  if (rated.checked && clock.value === "none") clock.value = "rapid";
  $("clock-note").textContent = kind !== "match"
    ? "Clocks are for matches only."
    : clock.value === "none" ? "No clock: take your time." : "Each move has a free delay, then the reserve runs; out of time loses the match.";
}

function syncForm() {
  const form = $("create-form");
  const kind = form.elements.kind.value;
  const opponent = form.elements.opponent.value;
  syncClub(form, kind, opponent);
  $("length-field").hidden = kind !== "match";
  $("opponent-fieldset").hidden = kind === "chouette";
  $("chouette-fieldset").hidden = kind !== "chouette";
  $("bot-field").hidden = opponent !== "bot";
  $("friend-field").hidden = opponent !== "same_screen";
  for (const label of form.querySelectorAll(".money-only")) {
    const input = label.querySelector("input");
    input.disabled = kind === "match";
    if (input.disabled) input.checked = false;
  }
}

/** The CreateTable body (docs/PROTOCOL.md) the form describes. */
export function createBody(form, name) {
  const f = form.elements;
  const kind = f.kind.value;
  const limit = f.cube_limit.value;
  const rules = {
    jacoby: f.jacoby.checked,
    beavers: f.beavers.checked,
    automatic_doubles: f.automatic_doubles.checked,
    backgammon_counts_as_gammon: f.backgammon_counts_as_gammon.checked,
    cube_limit: limit === "" ? null : Number(limit),
  };
  const body = { kind, name, rules, seats: [{ kind: "human" }], same_screen: false };
  if (kind === "match") {
    const length = Number(f.namedItem("length").value); // f.length is the count of fields
    if (!Number.isInteger(length) || length < 1 || length > 25) {
      throw new Error("A match is played to 1–25 points.");
    }
    body.length = length;
    body.rated = f.rated.checked;
    body.clock = f.clock.value;
  }
  if (kind === "chouette") {
    for (const select of $("chouette-seats").querySelectorAll("select")) {
      body.seats.push(select.value === "human" ? { kind: "human" } : { kind: "bot", bot: select.value });
    }
    body.same_screen = f.chouette_same_screen.checked;
  } else if (f.opponent.value === "bot") {
    body.seats.push({ kind: "bot", bot: f.bot.value });
  } else {
    const friend = f.opponent.value === "same_screen" ? f.friend.value.trim() : "";
    body.seats.push(friend ? { kind: "human", name: friend } : { kind: "human" });
    body.same_screen = f.opponent.value === "same_screen";
  }
  return body;
}

async function submitCreate(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const error = $("create-error");
  const button = form.querySelector("button[type=submit]");
  error.hidden = true;
  try {
    const name = currentName();
    const body = createBody(form, name);
    button.disabled = true;
    const answer = await api("/api/tables", body);
    const tokens = answer.tokens ?? { [answer.seat]: answer.token };
    keepTokens(answer.table.id, tokens);
    location.href = `/t/${answer.table.id}`;
  } catch (e) {
    button.disabled = false;
    error.textContent = e.message;
    error.hidden = false;
  }
}

/** A logged-in person plays under the account's name: the name field shows it, read-only. */
function showAccount() {
  const field = $("guest-name");
  const note = $("name-note");
  document.body.dataset.account = user ? "user" : "guest";
  if (!user) {
    note.hidden = false;
    note.replaceChildren("Playing as a guest. ");
    const link = document.createElement("a");
    link.href = "/login";
    link.textContent = "Log in or register";
    note.append(link, " to keep your name and play rated matches.");
    return;
  }
  field.value = user.name;
  field.readOnly = true;
  $("guest-name-label").closest(".who").hidden = true; // the account bar says who plays
  note.hidden = false;
  note.textContent = "You play under your account's name.";
}

export async function startLobby() {
  // a name typed while the page was loading wins over the one kept from last time
  const name = $("guest-name").value.trim() || guestName();
  $("guest-name").value = name;
  if (name) $("guest-name-label").textContent = name;
  const account = loadAccount();

  const form = $("create-form");
  $("guest-name").addEventListener("input", (event) => {
    if (user) return;
    $("guest-name-label").textContent = event.currentTarget.value.trim() || "a guest";
  });
  form.addEventListener("change", syncForm);
  form.addEventListener("submit", submitCreate);
  $("add-seat").addEventListener("click", () => addChouetteSeat("human"));
  $("remove-seat").addEventListener("click", () => {
    const list = $("chouette-seats");
    if (list.children.length > 3) list.lastElementChild.remove();
    updateSeatButtons();
  });

  user = (await account).user;
  showAccount();
  try {
    botLevels = (await api("/api/bots")).bots;
  } catch (e) {
    botLevels = [];
    $("create-error").textContent = `The bot levels could not be loaded: ${e.message}`;
    $("create-error").hidden = false;
  }
  const bot = form.elements.bot;
  for (const level of botLevels) bot.add(new Option(level, level));
  if (botLevels.includes("intermediate")) bot.value = "intermediate";
  // the chouette's bots start at the same level as the match opponent's default
  const level = botLevels.includes("intermediate") ? "intermediate" : botLevels[0] ?? "human";
  addChouetteSeat("human");
  addChouetteSeat(level);
  addChouetteSeat(level);
  syncForm();

  const banner = $("banner");
  new Connection("/ws/lobby", {
    onMessage(message) {
      if (message.type === "lobby") showTables(message.tables);
    },
    onStatus(connected) {
      banner.hidden = connected;
      banner.textContent = connected ? "" : "Reconnecting to the lobby…";
    },
  });
  // The HTTP list too, so the page shows something even before the socket answers.
  api("/api/tables").then((answer) => {
    if ($("lobby-tables").children.length === 0) showTables(answer.tables);
  }).catch((e) => {
    $("lobby-status").textContent = e.message;
  });
}
