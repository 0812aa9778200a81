// The table page: joins or watches table /t/<id>, keeps the WebSocket, drives the Board and
// shows everything around it (players, score, turn, actions, record, chat, chouette, fair dice).
// The server is the truth: every state message replaces what the page shows.

import { Board } from "./board.js";
import { api, Connection, guestName, keepGuestName, keepTokens, loadAccount, PROTOCOL, randomHex, tokensFor } from "./net.js";
import { applyTheme, bindOptionsForm, boardOptions, loadOptions } from "./options.js";
import { clockWords, describeTable, ratingText } from "./lobby.js";

const $ = (id) => document.getElementById(id);

const RESIGN_WORDS = { 1: "a single game", 2: "a gammon", 3: "a backgammon" };
const AUTO_DELAY_MS = 450;
const CLOCK_TICK_MS = 200;
const CLOCK_OFFSETS_KEPT = 16; // states whose delivery is remembered (see onClock)
const LOW_RESERVE_S = 10;   // a clock under this much reserve is shown in the warning colour
const CHAT_ERROR_WINDOW_MS = 5000; // an error this soon after a chat line is about that line
// What a seat is asked to do in each phase (the status line).
const PHASE_WORDS = {
  opening: "throw the opening roll",
  roll: "roll",
  play: "play",
  cube: "answer the double",
  resign: "answer the resignation",
  consent: "agree to the proposed double or refuse it (R39)",
  team_double: "answer the team's double",
  box_double: "answer the box's double (R40)",
  over: "start the next game",
};

/** The page's whole state, in one place. */
const page = {
  id: "",
  info: null,          // TableInfo
  tokens: {},          // seat name -> token (this browser's)
  seats: [],           // the seats this connection acts for (welcome)
  state: null,         // the last state message
  active: "",          // the seat whose view is shown ("" for a spectator)
  shownKey: "",        // seq and seat of what the board shows
  gameShown: 0,
  logShown: [],        // the log lines on screen
  logNumber: 0,        // the number of the last line of this game
  connection: null,
  nextId: 1,
  sending: false,      // a command is on its way (buttons wait for the answer)
  fresh: true,         // no state yet since the last hello
  picked: "",          // the seat a person chose to look from (until the next change)
  pickedSeq: -1,
  seededGame: 0,
  seedNote: "",        // why the server did not use our seed for this game
  seed: "",
  autoTimer: 0,
  lastActions: "",
  keyboard: false,     // the last input came from the keyboard (focus follows the play)
  options: null,
  board: null,
  boardInfo: { complete: false, canUndo: false, canRedo: false, text: "" },
  user: null,          // the logged-in account ({name, role, rating, experience}) or null
  clock: null,         // the last state's clock object (null: no clock)
  clockOffset: null,   // Date.now() - the server's "at": the smallest of the recent ones
  clockOffsets: [],    // the recent ones (skew + delivery of each state)
  clockTimer: 0,
  chatSent: null,      // {text, at} of the last chat line sent (a refusal puts it back)
  muted: new Set(),    // accounts muted or blocked from this page (the server filters after a reconnect)
  ended: false,        // kicked, or the table is gone: no reconnecting
};

// -- messages to the person --------------------------------------------------------------

function say(text, kind = "error") {
  const box = $("message");
  box.textContent = text;
  box.dataset.kind = kind;
  box.hidden = !text;
}

function refusalText(refusal) {
  const rule = refusal.rule ? ` (${refusal.rule})` : "";
  return `Not allowed${rule}: ${refusal.reason}.`.replace(/\.\.$/, ".");
}

// -- sending -------------------------------------------------------------------------------

function send(message) {
  if (page.connection?.send(message)) return true;
  say("Not connected: nothing was sent. The page reconnects by itself; try again in a moment.");
  return false;
}

function command(type, extra = {}) {
  if (page.sending || !page.active) return;
  const message = { type: "command", seat: page.active, id: page.nextId++, command: { type, ...extra } };
  if (send(message)) {
    page.sending = true;
    say("");
    renderControls();
  }
}

function hello(connection) {
  page.fresh = true;
  page.sending = false;
  page.seed = randomHex();
  $("chat-lines").replaceChildren(); // the server sends the recent chat again after hello
  connection.send({
    type: "hello",
    protocol: PROTOCOL,
    tokens: Object.values(page.tokens),
    client_seed: page.seed,
    name: page.user?.name || guestName() || "guest",
  });
}

/** Our share of each new game's dice: the hello's seed counts for the game we joined in;
 *  every later commitment gets a fresh seed. */
function seedFor(fair) {
  if (!fair || fair.game === null || !page.seats.length) return; // null: the contest is over
  if (page.fresh) {
    page.seededGame = fair.game;
  } else if (fair.game !== page.seededGame) {
    page.seed = randomHex();
    page.seedNote = "";
    page.seededGame = fair.game;
    send({ type: "seed", game: fair.game, seed: page.seed });
  }
}

// -- the state -----------------------------------------------------------------------------

function chooseSeat(snapshots) {
  const names = Object.keys(snapshots);
  if (names.length === 1) return names[0];
  if (page.picked && names.includes(page.picked) && page.pickedSeq === page.state.seq) return page.picked;
  const acting = names.filter((n) => snapshots[n].actions.length > 0);
  const toAct = acting.filter((n) => snapshots[n].to_act.includes(n));
  if (toAct.length) return toAct.includes(page.active) ? page.active : toAct[0];
  if (acting.length) return acting.includes(page.active) ? page.active : acting[0];
  if (names.includes(page.active)) return page.active;
  const onRoll = names.find((n) => snapshots[n].on_roll === n);
  return onRoll ?? names[0];
}

function snapshot() {
  return page.state?.snapshots[page.active] ?? null;
}

function plays() {
  const snap = snapshot();
  return snap && snap.actions.includes("play") ? (page.state.plays ?? []) : null;
}

function onState(message) {
  // the server sends each connection only the record's new lines: log_start is where they go
  const start = message.log_start ?? 0;
  const before = page.state?.log ?? [];
  message.log = start === 0 ? message.log : before.slice(0, start).concat(message.log);
  page.state = message;
  if (message.table) page.info = message.table;
  if ("clock" in message) onClock(message.clock);
  seedFor(message.fair);
  page.fresh = false;
  page.sending = false;
  present();
}

/** Show the state from the seat chosen now (the one to act, or the one picked). */
function present() {
  const message = page.state;
  page.active = chooseSeat(message.snapshots);
  const snap = snapshot();
  if (!snap) { // the table waits for its players: no game yet
    renderHeader();
    $("status").textContent = "Waiting for players to join: send the invite link.";
    $("scoreboard").replaceChildren(...(page.info?.seats ?? []).map((seat) => {
      const li = document.createElement("li");
      li.className = "seat";
      li.textContent = seat.free ? "a free seat" : seatLabel(seat);
      return li;
    }));
    renderFair();
    renderInvite();
    return;
  }
  if (snap.game_number !== page.gameShown) {
    page.gameShown = snap.game_number;
    page.board.setOptions(boardOptions(page.options, snap.game_number));
  }
  const key = `${message.seq}/${page.active}`;
  if (key !== page.shownKey) {
    page.shownKey = key;
    page.boardInfo = { complete: false, canUndo: false, canRedo: false, text: "" };
    page.board.show(snap, plays());
    $("hint").hidden = true;
  }
  render();
  automate();
}

function render() {
  renderHeader();
  renderScoreboard();
  renderStatus();
  renderResult();
  renderControls();
  renderLog();
  renderChouette();
  renderFair();
  renderInvite();
}

function renderHeader() {
  const info = page.info;
  if (info) {
    $("table-title").textContent = describeTable(info);
    document.title = `Backgammon — ${describeTable(info)}`;
    const badges = [];
    if (info.rated) badges.push(badge("rated", "rated"));
    if (info.clock) {
      const control = badge("control", `clock ${clockWords(info.clock)}`);
      control.title = `Each move has ${info.clock.delay} s free, then the player's reserve runs `
        + `(${info.clock.per_point} s per match point); out of time loses the match.`;
      badges.push(control);
    }
    $("table-badges").replaceChildren(...badges);
  }
  if (!page.connection) return;
  $("you-are").textContent = page.seats.length
    ? `You play as ${listWords(page.seats)}`
    : "You are watching";
  renderSeatPicker();
}

/** With several seats at this screen: which seat's view is shown (the one to act by
 *  default; a person may look from another seat, e.g. to propose a team double). */
function renderSeatPicker() {
  const picker = $("seat-picker");
  const snapshots = page.state?.snapshots ?? {};
  const names = Object.keys(snapshots);
  picker.hidden = names.length < 2;
  if (picker.hidden) return;
  const buttons = names.map((name) => {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.seat = name;
    const waiting = snapshots[name].actions.some((a) => a !== "resign" && a !== "step");
    button.textContent = waiting ? `${name} •` : name;
    button.setAttribute("aria-pressed", String(name === page.active));
    button.setAttribute("aria-label", `Show the table as ${name}${waiting ? " (may act now)" : ""}`);
    button.addEventListener("click", () => {
      page.picked = name;
      page.pickedSeq = page.state.seq;
      present();
    });
    return button;
  });
  picker.replaceChildren(picker.firstElementChild, ...buttons);
}

/** "a", "a and b", "a, b and c". */
function listWords(words) {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

function badge(kind, text) {
  const span = document.createElement("span");
  span.className = `badge ${kind}`;
  span.dataset.testid = kind === "control" ? "clock-badge" : `${kind}-badge`;
  span.textContent = text;
  return span;
}

function seatLabel(seat) {
  if (seat.kind === "human") return seat.name;
  return seat.name.startsWith(seat.kind) ? `${seat.name} (bot)` : `${seat.name} (${seat.kind} bot)`;
}

function renderScoreboard() {
  const snap = snapshot();
  const items = [];
  for (const seat of snap.seats) {
    const li = document.createElement("li");
    li.className = `seat side${seat.side}`;
    li.dataset.seat = seat.name;
    if (snap.on_roll === seat.name) li.classList.add("on-roll");
    if (page.seats.includes(seat.name)) li.classList.add("mine");
    const chip = document.createElement("span");
    chip.className = "chip";
    chip.setAttribute("aria-hidden", "true");
    // an account's name links to its profile, with its rating ("players" of the TableInfo)
    const player = page.info?.players?.[seat.name] ?? null;
    const name = document.createElement(player ? "a" : "span");
    name.className = "name";
    name.textContent = seatLabel(seat);
    if (player) {
      name.href = `/u/${encodeURIComponent(player.name)}`;
      name.title = `${player.name}'s profile: rating ${ratingText(player.rating)}, experience ${player.experience}`;
    }
    const extra = [];
    if (player) {
      const rating = document.createElement("span");
      rating.className = "rating";
      rating.dataset.testid = "rating";
      rating.textContent = ratingText(player.rating);
      extra.push(rating);
    }
    if (page.clock?.seats?.[seat.name]) extra.push(clockElement(seat.name));
    const facts = [];
    if (snap.kind === "chouette") facts.push(seat.role);
    const pips = seat.side === snap.side ? snap.board.pips[0] : snap.board.pips[1];
    facts.push(`${pips} pips`);
    if (snap.kind === "match") facts.push(`${snap.score[seat.side]} of ${snap.match_length}`);
    else if (snap.kind === "money") facts.push(`${snap.score[seat.side]} points`);
    if (snap.cube_owner === seat.name) facts.push(`owns the cube at ${snap.cube}`);
    if (snap.on_roll === seat.name) facts.push("on roll");
    const detail = document.createElement("span");
    detail.className = "facts";
    detail.textContent = facts.join(" · ");
    li.append(chip, name, ...extra, detail);
    items.push(li);
  }
  const cube = document.createElement("li");
  cube.className = "cube-line";
  const bits = [`Game ${snap.game_number}`];
  bits.push(snap.cube_owner ? `cube ${snap.cube} (${snap.cube_owner})` : `cube ${snap.cube}, centred`);
  if (snap.crawford) bits.push("Crawford game");
  else if (snap.post_crawford) bits.push("post-Crawford");
  cube.textContent = bits.join(" · ");
  items.push(cube);
  $("scoreboard").replaceChildren(...items);
  tickClocks();
}

// -- clocks ------------------------------------------------------------------------------
// The state's "clock" says what each seat had left at "at" (ms since the epoch, the server's
// time). The page counts down from there by itself. Date.now() - at, taken when a state
// arrives, is this browser's clock skew plus the message's delivery; the smallest of the last
// few stands for the skew, so a fresh state counts from its arrival, a late one is charged for
// its delay, and a jump of this browser's clock is forgotten after a few states.

function onClock(clock) {
  page.clock = clock && clock.seats ? clock : null;
  if (!page.clock) return;
  const offset = Date.now() - Number(clock.at);
  if (Number.isFinite(offset)) {
    page.clockOffsets = [...page.clockOffsets.slice(-(CLOCK_OFFSETS_KEPT - 1)), offset];
    page.clockOffset = Math.min(...page.clockOffsets);
  }
  if (!page.clockTimer) page.clockTimer = setInterval(tickClocks, CLOCK_TICK_MS);
}

/** What `seat` has left now: {delay, reserve, running} in seconds. */
export function clockLeft(clock, seat, elapsedSeconds) {
  const left = clock.seats[seat];
  const running = clock.running.includes(seat);
  if (!running) return { delay: left.delay, reserve: Math.max(0, left.reserve), running };
  const elapsed = Math.max(0, elapsedSeconds);
  return {
    delay: Math.max(0, left.delay - elapsed),
    reserve: Math.max(0, left.reserve - Math.max(0, elapsed - left.delay)),
    running,
  };
}

/** 75.2 s → "01:16" (a countdown shows a second as long as any of it is left). */
export function clockText(seconds) {
  const whole = Math.max(0, Math.ceil(seconds - 1e-9));
  return `${String(Math.floor(whole / 60)).padStart(2, "0")}:${String(whole % 60).padStart(2, "0")}`;
}

function clockElement(seat) {
  const box = document.createElement("span");
  box.className = "clock";
  box.dataset.clockSeat = seat;
  box.dataset.testid = "clock";
  const delay = document.createElement("span");
  delay.className = "delay";
  const reserve = document.createElement("span");
  reserve.className = "reserve";
  box.append(delay, reserve);
  return box;
}

function tickClocks() {
  const clock = page.clock;
  if (!clock) return;
  const elapsed = (Date.now() - (page.clockOffset ?? 0) - Number(clock.at)) / 1000;
  for (const box of $("scoreboard").querySelectorAll(".clock[data-clock-seat]")) {
    const seat = box.dataset.clockSeat;
    if (!clock.seats[seat]) continue;
    const left = clockLeft(clock, seat, elapsed);
    const delayText = left.running && left.delay > 0 ? `+${Math.ceil(left.delay - 1e-9)}s` : "";
    const reserveText = clockText(left.reserve);
    const [delay, reserve] = box.children;
    if (delay.textContent !== delayText) delay.textContent = delayText;
    if (reserve.textContent !== reserveText) reserve.textContent = reserveText;
    box.classList.toggle("running", left.running);
    box.classList.toggle("low", Math.ceil(left.reserve - 1e-9) < LOW_RESERVE_S); // as shown: 00:09 and below
    const words = `${seat}'s clock: ${reserveText} left${delayText ? `, plus ${Math.ceil(left.delay)} s of delay` : ""}${left.running ? ", running" : ""}`;
    if (box.getAttribute("aria-label") !== words) box.setAttribute("aria-label", words);
  }
}

// -- the end of a match -----------------------------------------------------------------------

const REASON_WORDS = {
  time: (loser) => `${loser} lost on time`,
  abandoned: (loser) => `${loser} left the match`,
  resigned: (loser) => `${loser} resigned`,
};

function signedRating(n) {
  return `${n >= 0 ? "+" : "−"}${Math.abs(n).toFixed(2)}`;
}

/** The banner over the board once a match is over: who won and why ("ann lost on time — bob
 *  wins the match"), the rating changes of a rated match, and links to the replay and history. */
function renderResult() {
  const snap = snapshot();
  const info = page.info;
  const box = $("result-banner");
  const over = Boolean(snap?.over) || info?.status === "over";
  box.hidden = !over || info?.kind !== "match";
  if (box.hidden) return;
  const result = info.result ?? null;
  let text;
  if (result && result.winner) {
    const loser = info.seats.map((s) => s.name).find((n) => n && n !== result.winner) ?? "the other side";
    const why = REASON_WORDS[result.reason];
    text = why ? `${why(loser)} — ${result.winner} wins the match` : `${result.winner} wins the match`;
  } else {
    const last = (page.state?.log ?? []).at(-1);
    text = last ? last.text : "The match is over.";
  }
  if ($("result-text").textContent !== text) $("result-text").textContent = text;
  box.dataset.reason = result?.reason ?? "";
  const ratings = $("result-ratings");
  const changes = result?.ratings ? Object.entries(result.ratings) : [];
  ratings.hidden = changes.length === 0;
  const words = changes.map(([seat, r]) => `${seat} ${ratingText(r.before)} → ${ratingText(r.after)} (${signedRating(r.after - r.before)})`);
  const ratingLine = words.length ? `Rating: ${words.join(", ")}.` : "";
  if (ratings.textContent !== ratingLine) ratings.textContent = ratingLine;
  const links = $("after-links");
  if (!links.childElementCount) {
    const replay = document.createElement("a");
    replay.href = `/r/${encodeURIComponent(page.id)}`;
    replay.dataset.testid = "replay-link";
    replay.textContent = "Replay the match";
    links.append(replay);
    if (page.user) {
      const history = document.createElement("a");
      history.href = `/u/${encodeURIComponent(page.user.name)}/history`;
      history.dataset.testid = "history-link";
      history.textContent = "Your match history";
      links.append(" · ", history);
    }
  }
}

function offerText(offer) {
  const waiting = offer.waiting.length ? `; waiting for ${offer.waiting.join(", ")}` : "";
  if (offer.kind === "double") return `${offer.by} doubles to ${offer.cube}${waiting}.`;
  if (offer.kind === "proposal") return `${offer.by} proposes a team double to ${offer.cube}${waiting}.`;
  return `${offer.by} offers to resign ${RESIGN_WORDS[offer.level] ?? "the game"}${waiting}.`;
}

/** The core's result names sides ("player 1 wins ..."): say the seat's name instead. */
function resultText(snap) {
  return snap.result.replace(/\bplayer ([01])\b/g, (words, side) => {
    const seat = snap.seats.find((s) => s.side === Number(side));
    return seat && snap.kind !== "chouette" ? seat.name : words;
  });
}

function statusText() {
  const snap = snapshot();
  const info = page.info;
  if (snap.over) {
    const last = (page.state.log ?? []).at(-1);
    return last ? `The match is over: ${last.text}` : "The match is over.";
  }
  if (info && info.status === "waiting") {
    return "Waiting for players to join: send the invite link.";
  }
  const parts = [];
  if (snap.result) parts.push(`Last game: ${resultText(snap)}.`);
  if (snap.offer) parts.push(offerText(snap.offer));
  else if (!snap.result) {
    // a cube action or resignation answer that just happened ("beginner beavers (R30): the
    // cube is at 8") is news the player should not have to find in the record
    const last = (page.state.log ?? []).at(-1);
    if (last && last.tone === "strong") parts.push(last.text);
  }
  const acting = snap.actions.filter((a) => a !== "step" && a !== "resign");
  if (page.active && acting.length) {
    const who = page.seats.length > 1 ? `${page.active}, your turn` : "Your turn";
    let task = PHASE_WORDS[snap.phase] ?? snap.phase;
    if (acting.includes("ready")) task = "press Ready to let the captain roll, or propose a double (R39)";
    else if (snap.phase === "roll" && acting.includes("roll")) {
      task = acting.includes("double") || acting.includes("propose_double") ? "roll or double" : "roll";
    }
    parts.push(`${who}: ${task}.`);
    if (snap.phase === "play" && snap.dice) parts.push(`You rolled ${snap.dice[0]}-${snap.dice[1]}.`);
    const legal = plays();
    if (legal && legal.length === 1 && legal[0].move === "") {
      parts.push("No legal play: the turn is lost (R11). Confirm to pass it on.");
    }
  } else if (snap.to_act.length && !snap.offer?.waiting?.length) { // the offer already says who is waited for
    parts.push(`Waiting for ${listWords(snap.to_act)} to ${PHASE_WORDS[snap.phase] ?? "act"}.`);
  }
  if (!page.active) parts.unshift("You are watching.");
  return parts.join(" ");
}

function renderStatus() {
  const text = statusText();
  if ($("status").textContent !== text) $("status").textContent = text;
}

function renderControls() {
  const snap = snapshot();
  if (!snap) return;
  const actions = new Set(snap.actions);
  const playing = actions.has("play");
  const onlyEmpty = playing && plays()?.length === 1 && plays()[0].move === "";
  for (const button of $("actions").querySelectorAll("button[data-action]")) {
    const action = button.dataset.action;
    let visible = actions.has(action);
    let enabled = !page.sending;
    if (action === "undo") { visible = playing; enabled &&= page.boardInfo.canUndo; }
    if (action === "redo") { visible = playing; enabled &&= page.boardInfo.canRedo; }
    if (action === "confirm") { visible = playing; enabled &&= page.boardInfo.complete || onlyEmpty; }
    if (action === "rematch") visible = snap.over && page.seats.length > 0;
    if (action === "leave") {
      visible = page.seats.includes(page.active) && snap.kind === "match" && !snap.over
        && page.info?.status !== "over";
      enabled = true; // leaving never waits for an answer
    }
    if (action === "hint") {
      // shown only when there is a decision to advise on (no lone greyed button while waiting)
      visible = page.active !== "" && !snap.over && againstBots(snap)
        && ["play", "double", "take", "accept"].some((a) => actions.has(a));
    }
    button.hidden = !visible;
    button.disabled = !enabled;
  }
  if (!actions.has("resign")) toggleResign(false);
  $("play-form").hidden = !playing;
  const played = page.boardInfo.text;
  $("play-input").placeholder = played || (onlyEmpty ? "no legal play: confirm" : "24/18 13/11");

  const now = [...actions].sort().join(",");
  if (now !== page.lastActions) {
    const wasIdle = page.lastActions === "";
    page.lastActions = now;
    if (now && wasIdle && page.options.sounds) chime();
    moveFocus(playing);
  }
}

/** Keyboard users land on what they can do next, unless they are typing somewhere. */
function moveFocus(playing) {
  const current = document.activeElement;
  const typing = current && (current.tagName === "INPUT" || current.tagName === "TEXTAREA" || current.tagName === "SELECT");
  const lost = !current || current === document.body || current.hidden || current.disabled;
  if (typing && current.id !== "play-input") return;
  if (!lost && !typing) return;
  if (playing && page.keyboard) {
    $("play-input").focus();
    return;
  }
  const first = $("actions").querySelector("button.primary:not([hidden]):not([disabled])")
    ?? $("actions").querySelector("button:not([hidden]):not([disabled])");
  if (first && page.keyboard) first.focus();
}

function renderLog() {
  const lines = page.state.log ?? [];
  const list = $("log");
  const shown = page.logShown;
  const same = shown.length <= lines.length && shown.every((l, i) => l.text === lines[i].text);
  if (!same) {
    list.replaceChildren();
    page.logShown = [];
    page.logNumber = 0;
  }
  let number = page.logNumber;
  for (const line of lines.slice(page.logShown.length)) {
    const li = document.createElement("li");
    // the other side's lines are the quiet ones, whichever side the viewer plays
    const mine = `side${snapshot()?.side ?? 0}`;
    li.className = line.tone.startsWith("side") ? (line.tone === mine ? "tone-mine" : "tone-theirs") : `tone-${line.tone}`;
    li.textContent = line.text;
    if (line.tone === "title") number = 0; // each game numbers its lines from 1
    else li.value = ++number;
    list.append(li);
  }
  page.logNumber = number;
  page.logShown = lines.slice();
  list.scrollTop = list.scrollHeight;
}

function renderChouette() {
  const snap = snapshot();
  const panel = $("chouette");
  panel.hidden = snap.kind !== "chouette";
  if (panel.hidden) return;
  const by = (role) => snap.seats.filter((s) => s.role === role).map((s) => s.name).join(", ");
  const roles = [["box", "in the box"], ["captain", "captain"], ["acting captain", "moving for the team"],
    ["line", "in the line"]]; // the snapshot lists seats in table order, not the line's order
  const told = roles.filter(([role]) => by(role)).map(([role, words]) => `${by(role)} ${words}`);
  $("chouette-rotation").textContent = `Game ${snap.game_number}: ${told.join("; ")}.`;
  const offer = $("chouette-offer");
  offer.hidden = !snap.offer;
  offer.textContent = snap.offer ? offerText(snap.offer) : "";
  const rows = snap.seats.map((seat) => {
    const tr = document.createElement("tr");
    if (snap.on_roll === seat.name) tr.className = "on-roll";
    let cube = "–";
    if (seat.role !== "box") {
      cube = String(seat.cube);
      if (seat.cube_owner) {
        const boxName = snap.seats.find((s) => s.role === "box")?.name;
        cube += seat.cube_owner === seat.name ? " (owns it)" : seat.cube_owner === boxName ? " (box)" : ` (${seat.cube_owner})`;
      }
      if (!seat.in_game) cube += seat.result !== null ? `, settled ${signed(seat.result)}` : ", out";
    }
    const ledger = seat.ledger === null ? "–" : signed(seat.ledger);
    for (const [i, text] of [seatLabel(seat), seat.role, cube, ledger].entries()) {
      const cell = document.createElement(i === 0 ? "th" : "td");
      if (i === 0) cell.scope = "row";
      cell.textContent = text;
      tr.append(cell);
    }
    return tr;
  });
  $("chouette-seats").replaceChildren(...rows);
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

function short(hex) {
  return hex && hex.length > 20 ? `${hex.slice(0, 10)}…${hex.slice(-6)}` : hex || "–";
}

function renderFair() {
  const fair = page.state.fair;
  if (!fair) return;
  $("fair-game").textContent = fair.game === null ? "none to come: every game is revealed" : String(fair.game);
  $("fair-commitment").textContent = short(fair.commitment);
  $("fair-commitment").title = fair.commitment ?? "";
  const note = page.seedNote && page.seededGame === fair.game ? ` (${page.seedNote})` : "";
  $("fair-seed").textContent = page.seats.length ? short(page.seed) + note : "none (watching)";
  $("fair-seed").title = page.seed;
  $("fair-revealed").textContent = String(fair.revealed_count ?? (fair.revealed ?? []).length);
}

function renderInvite() {
  const info = page.info;
  const free = info && info.seats.some((s) => s.free);
  $("invite").hidden = !(free && page.seats.length);
  $("invite-link").value = `${location.origin}/t/${page.id}`;
  $("mute-label").hidden = page.seats.length === 0;
  const muted = Boolean(info?.spectators_muted);
  $("mute-spectators").checked = muted;
  const silenced = muted && page.seats.length === 0;
  $("chat-input").disabled = silenced;
  $("chat-form").querySelector("button").disabled = silenced;
  $("chat-input").placeholder = silenced ? "Spectators are muted" : "Say something";
}

// -- automation (options) ---------------------------------------------------------------

function automate() {
  clearTimeout(page.autoTimer);
  const snap = snapshot();
  if (!snap || !page.active) return;
  const seq = page.state.seq;
  const later = (fn) => {
    page.autoTimer = setTimeout(() => {
      if (page.state.seq === seq && !page.sending) fn();
    }, AUTO_DELAY_MS);
  };
  const actions = snap.actions;
  const mayDouble = actions.includes("double") || actions.includes("propose_double");
  if (page.options.autoRoll && actions.includes("roll") && !mayDouble) {
    later(() => command("roll"));
    return;
  }
  const legal = plays();
  if (page.options.autoForced && legal && legal.length === 1) {
    later(() => command("play", { move: legal[0].move, confirm: true }));
  }
}

// -- sounds ---------------------------------------------------------------------------------

let audio = null;
function chime() {
  try {
    audio ??= new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
  } catch {
    // no audio here: silence is fine
  }
}

// -- chat ------------------------------------------------------------------------------------

function onChat(message) {
  if (message.user && page.muted.has(message.user)) return;
  const li = document.createElement("li");
  if (message.spectator) li.className = "spectator";
  const who = document.createElement("strong");
  who.textContent = message.spectator ? `${message.from} (watching)` : message.from;
  li.append(who, `: ${message.text}`);
  if (message.at) li.title = new Date(message.at).toLocaleString();
  if (message.user) {
    li.dataset.user = message.user;
    if (page.user && message.user !== page.user.name) li.append(" ", chatMenu(message.user));
  }
  addChatLine(li);
}

function addChatLine(li) {
  const list = $("chat-lines");
  list.append(li);
  while (list.children.length > 200) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
}

/** A line of the page's own in the chat (an answer to mute/block/report, a refused line). */
function chatNote(text, kind = "info") {
  const li = document.createElement("li");
  li.className = `note ${kind}`;
  li.dataset.testid = "chat-note";
  li.textContent = text;
  addChatLine(li);
}

/** The small menu of a chat line by an account: mute, block, report. */
function chatMenu(name) {
  const menu = document.createElement("details");
  menu.className = "chat-menu";
  const summary = document.createElement("summary");
  summary.textContent = "⋯";
  summary.setAttribute("aria-label", `Mute, block or report ${name}`);
  summary.title = `Mute, block or report ${name}`;
  const items = document.createElement("div");
  items.className = "chat-menu-items";
  const item = (label, what, run) => {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.chatAction = what;
    button.textContent = label;
    button.addEventListener("click", () => {
      menu.open = false;
      run(name);
    });
    return button;
  };
  items.append(
    item(`Mute ${name}`, "mute", (n) => relate(n, "mute")),
    item(`Block ${name}`, "block", (n) => relate(n, "block")),
    item(`Report ${name}…`, "report", report),
  );
  menu.append(summary, items);
  return menu;
}

const RELATION_WORDS = {
  mute: (name) => `You muted ${name}: their chat lines are hidden from you.`,
  block: (name) => `You blocked ${name}: you will not see each other's chat, nor be seated together.`,
};

async function relate(name, kind) {
  try {
    await api("/api/relations", { name, kind, on: true });
    page.muted.add(name);
    chatNote(RELATION_WORDS[kind](name));
    for (const line of $("chat-lines").querySelectorAll("li[data-user]")) {
      if (line.dataset.user === name) line.remove();
    }
  } catch (e) {
    chatNote(`Could not ${kind} ${name}: ${e.message}`, "error");
  }
}

async function report(name) {
  const reason = window.prompt(`Report ${name} to the moderators. What happened?`);
  if (reason === null) return;
  if (!reason.trim()) {
    chatNote("Nothing was reported: say in a few words what happened.", "error");
    return;
  }
  try {
    await api(`/api/tables/${encodeURIComponent(page.id)}/report`, { name, reason: reason.trim() });
    chatNote(`Your report about ${name} is recorded with this match and its chat; a moderator will look at it.`);
  } catch (e) {
    chatNote(`The report was not sent: ${e.message}`, "error");
  }
}

/** A moderator removed this account from the table: say so, and stop reconnecting. */
function onKicked(message) {
  page.ended = true;
  page.connection?.close();
  const banner = $("banner");
  // the server's reason is a sentence: "a moderator removed you from this table: spam"
  const reason = String(message.reason || "a moderator removed you from this table").trim();
  banner.textContent = `${reason.charAt(0).toUpperCase()}${reason.slice(1)}${/[.!?]$/.test(reason) ? "" : "."}`;
  banner.classList.add("final");
  banner.dataset.testid = "kicked";
  banner.hidden = false;
}

// -- the play controls ------------------------------------------------------------------------

function confirmPlay() {
  const legal = plays();
  if (!legal) return;
  if (legal.length === 1 && legal[0].move === "") {
    command("play", { move: "", confirm: true });
    return;
  }
  if (!page.boardInfo.complete) {
    say("The play is not complete yet: play every die you can (R11).", "info");
    return;
  }
  page.board.confirm();
}

function typedPlay(event) {
  event.preventDefault();
  const input = $("play-input");
  const text = input.value.trim();
  if (!text) {
    confirmPlay();
    return;
  }
  if (!page.board.playText(text)) {
    say(`“${text}” is not a legal play with these dice. Write it like 24/18 13/11 or bar/22*.`);
    return;
  }
  input.value = "";
  page.board.confirm();
}

function toggleResign(open) {
  const menu = $("resign-menu");
  menu.hidden = !open;
  const button = $("actions").querySelector('[data-action="resign"]');
  button.setAttribute("aria-expanded", String(open));
  if (open) menu.querySelector("button").focus();
}

async function rematch() {
  try {
    const tokens = Object.values(page.tokens);
    const answer = await api(`/api/tables/${encodeURIComponent(page.id)}/rematch`, { tokens });
    keepTokens(answer.table.id, answer.tokens);
    location.href = `/t/${answer.table.id}`;
  } catch (e) {
    say(e.message);
  }
}

// -- hints (against bots only: the server refuses others with a sentence) ---------------

/** True when every seat on the other side of the seat shown is a bot. */
function againstBots(snap) {
  const mine = snap.seats.find((s) => s.name === page.active);
  return Boolean(mine) && snap.seats.every((s) => s.side === mine.side || s.kind !== "human");
}

function askHint() {
  const body = $("hint-body");
  body.textContent = "Thinking…";
  $("hint").hidden = false;
  page.hintSeq = page.state.seq;
  send({ type: "hint", seat: page.active, id: `hint-${page.nextId++}` });
}

function number(value, unit) {
  if (value === null || value === undefined) return "–";
  if (unit === "mwc") return `${(value * 100).toFixed(1)}%`;
  return (value >= 0 ? "+" : "") + value.toFixed(3);
}

function chancesText(c) {
  if (!c) return "";
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  return `wins ${pct(c.win)} (gammon ${pct(c.win_gammon)}), loses a gammon ${pct(c.lose_gammon)}`;
}

function showHint(hint) {
  if (page.state.seq !== page.hintSeq) return; // the position moved on
  const body = $("hint-body");
  body.replaceChildren();
  const unit = hint.unit;
  const unitWords = { equity: "equity", mwc: "match winning chances", score: "pubeval's score (only the order counts)",
    pubeval: "pubeval's rule of thumb" }[unit] ?? unit;
  if (hint.kind === "plays") {
    const list = document.createElement("ol");
    list.className = "hint-plays";
    for (const play of hint.plays) {
      const li = document.createElement("li");
      const use = document.createElement("button");
      use.type = "button";
      use.textContent = play.move || "(no play)";
      use.setAttribute("aria-label", `Set up ${play.move}`);
      use.addEventListener("click", () => page.board.playText(play.move));
      const value = document.createElement("span");
      value.className = "muted";
      value.textContent = ` ${number(play.value, unit)}${play.rank > 1 ? ` (${number(play.difference, unit)})` : ""}`;
      li.append(use, value);
      const chances = chancesText(play.chances);
      if (chances) li.title = chances;
      list.append(li);
    }
    body.append(list);
  } else {
    const p = document.createElement("p");
    const facts = [];
    if (hint.kind === "cube") {
      facts.push(`Advice: ${hint.action}.`);
      if (unit !== "pubeval") {
        facts.push(`No double ${number(hint.no_double, unit)}, double/take ${number(hint.double_take, unit)}, double/pass ${number(hint.double_pass, unit)}.`);
      }
    } else if (hint.kind === "take") {
      facts.push(`Advice: ${hint.action}.`);
      if (unit !== "pubeval") facts.push(`Take ${number(hint.take, unit)}, pass ${number(hint.pass, unit)}.`);
    } else if (hint.kind === "resignation") {
      facts.push(hint.accept ? "Advice: accept the resignation." : "Advice: decline and play on.");
      if (unit !== "pubeval") facts.push(`Offered ${number(hint.offered, unit)}, playing on ${number(hint.play_on, unit)}.`);
    }
    const chances = chancesText(hint.chances);
    if (chances) facts.push(`You ${chances}.`);
    p.textContent = facts.join(" ");
    body.append(p);
  }
  const note = document.createElement("p");
  note.className = "muted";
  note.textContent = `Values: ${unitWords}.`;
  body.append(note);
  $("hint").scrollIntoView({ block: "nearest" }); // below the board: bring it into view
}

/** Leave the match (after a confirmation): the seat shown forfeits it ("abandoned"). */
function leave() {
  const seat = page.active;
  if (!seat || !page.seats.includes(seat)) return;
  const rated = Boolean(page.info?.rated);
  const who = page.seats.length > 1 ? `${seat}: leave` : "Leave";
  const question = `${who} the match? You lose the match${rated ? " and rating points" : ""}.`;
  if (!window.confirm(question)) return;
  if (send({ type: "leave", seat })) say("");
}

/** Someone started a rematch: our seats' tokens come with it (spectators get the id). */
function onRematch(message) {
  if (message.tokens) keepTokens(message.table, message.tokens);
  const box = $("message");
  box.replaceChildren();
  const link = document.createElement("a");
  link.href = `/t/${message.table}`;
  link.dataset.testid = "rematch-link";
  link.textContent = message.tokens ? "Go to the rematch" : "Watch the rematch";
  box.append("A rematch has started. ", link);
  box.dataset.kind = "info";
  box.hidden = false;
}

function onAction(action) {
  switch (action) {
    case "undo": page.board.undo(); break;
    case "redo": page.board.redo(); break;
    case "confirm": confirmPlay(); break;
    case "resign": toggleResign($("resign-menu").hidden); break;
    case "rematch": rematch(); break;
    case "hint": askHint(); break;
    case "leave": leave(); break;
    default: command(action);
  }
}

function wireControls() {
  $("actions").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action]");
    if (button && !button.disabled) onAction(button.dataset.action);
  });
  $("resign-menu").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-resign-level]");
    if (!button) return;
    const level = Number(button.dataset.resignLevel);
    toggleResign(false);
    if (level) command("resign", { level });
    else $("actions").querySelector('[data-action="resign"]').focus();
  });
  $("resign-menu").addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    toggleResign(false);
    $("actions").querySelector('[data-action="resign"]').focus();
  });
  $("play-form").addEventListener("submit", typedPlay);
  $("play-input").addEventListener("keydown", (event) => {
    if (event.key === "Backspace" && event.currentTarget.value === "") {
      event.preventDefault();
      page.board.undo();
    }
  });
  document.addEventListener("pointerdown", () => { page.keyboard = false; });
  document.addEventListener("keydown", (event) => {
    page.keyboard = true;
    const target = event.target;
    if (event.defaultPrevented) return; // the board handled it
    if (target.closest && target.closest("input, textarea, select, button, a, summary")) return;
    if (!plays()) return;
    if (event.key === "Enter") {
      event.preventDefault();
      confirmPlay();
    } else if (event.key === "Backspace") {
      event.preventDefault();
      page.board.undo();
    }
  });
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("chat-input");
    const text = input.value.trim();
    if (text && send({ type: "chat", text })) {
      page.chatSent = { text, at: Date.now() };
      input.value = "";
    }
  });
  $("mute-spectators").addEventListener("change", (event) => {
    send({ type: "mute_spectators", mute: event.currentTarget.checked });
  });
  $("copy-invite").addEventListener("click", async () => {
    const link = $("invite-link");
    try {
      await navigator.clipboard.writeText(link.value);
      say("The invite link is copied.", "info");
    } catch {
      link.select();
      say("Select the link and copy it (the browser did not allow copying).", "info");
    }
  });
}

// -- connecting --------------------------------------------------------------------------

function onMessage(message) {
  switch (message.type) {
    case "welcome":
      page.seats = message.seats ?? [];
      if (!page.seats.length && Object.keys(page.tokens).length) {
        say("This browser's seat at this table is not recognised any more: you are watching.");
      }
      if (message.table) page.info = message.table;
      renderHeader();
      break;
    case "state":
      onState(message);
      break;
    case "ack":
      break;
    case "refused":
      page.sending = false;
      say(refusalText(message.refusal));
      if (snapshot()) {
        page.board.show(snapshot(), plays()); // the play that was sent can be built again
        renderControls();
      }
      break;
    case "error":
      if (String(message.error).startsWith("your seed")) { // too late for this game's dice: not an error of play
        page.seedNote = `not used: ${message.error.replace(/^your seed was not used: /, "")}`;
        if (page.state) renderFair();
        break;
      }
      if (message.id === undefined && page.chatSent && Date.now() - page.chatSent.at < CHAT_ERROR_WINDOW_MS) {
        // the chat line just sent was refused (too long, too many): say it there, give the text back
        chatNote(message.error, "error");
        const input = $("chat-input");
        if (!input.value) input.value = page.chatSent.text;
        page.chatSent = null;
        break;
      }
      if (String(message.id ?? "").startsWith("hint-")) $("hint").hidden = true;
      else page.sending = false;
      say(message.error);
      if (snapshot()) renderControls();
      break;
    case "chat":
      onChat(message);
      if (page.chatSent && message.text === page.chatSent.text) page.chatSent = null;
      break;
    case "kicked":
      onKicked(message);
      break;
    case "rematch":
      onRematch(message);
      break;
    case "hint":
      if (message.seat === page.active) showHint(message.hint);
      break;
    default:
      break;
  }
}

function connect() {
  $("join-panel").hidden = true;
  $("table-main").hidden = false;
  $("verify-link").href = `/verify?table=${encodeURIComponent(page.id)}`;
  $("invite-link").value = `${location.origin}/t/${page.id}`;
  page.board = new Board($("board"), {
    onPlay(move) { command("play", { move, confirm: true }); },
    onChange(info) {
      page.boardInfo = info;
      if (info.message) say(info.message, "info");
      renderControls();
    },
    onRoll() { if (snapshot()?.actions.includes("roll")) command("roll"); },
    onDouble() { if (snapshot()?.actions.includes("double")) command("double"); },
  });
  page.options = bindOptionsForm($("options-form"), (options) => {
    page.options = options;
    page.board.setOptions(boardOptions(options, page.gameShown || 1));
    automate();
  });
  page.board.setOptions(boardOptions(page.options, 1));
  wireControls();
  const banner = $("banner");
  let everConnected = false;
  page.connection = new Connection(`/ws/tables/${encodeURIComponent(page.id)}`, {
    onOpen: hello,
    onMessage,
    onStatus(connected) {
      if (page.ended) return;
      if (connected) everConnected = true;
      banner.hidden = connected;
      banner.textContent = everConnected ? "Reconnecting…" : "Connecting…";
    },
    onEnd(code) {
      if (page.ended) return; // the kicked message said it already
      page.ended = true;
      banner.classList.add("final");
      banner.textContent = code === 4404
        ? "This table does not exist (any more)."
        : "The server closed this table's connection for you: you may not play or watch here.";
      banner.hidden = false;
    },
  });
}

// -- joining -------------------------------------------------------------------------------

function offerSeat(info) {
  const panel = $("join-panel");
  panel.hidden = false;
  const free = info.seats.some((s) => s.free && s.kind === "human");
  const seats = info.seats.map((s) => (s.free ? "a free seat" : s.name)).join(", ");
  $("join-info").textContent = `${describeTable(info)}: ${seats}.`
    + (free ? "" : " Every seat is taken: you can watch.");
  const nameField = $("join-name");
  const button = $("join-button");
  nameField.value = page.user ? page.user.name : guestName();
  nameField.readOnly = Boolean(page.user); // an account joins under its name
  const label = () => { button.textContent = nameField.value.trim() ? `Join as ${nameField.value.trim()}` : "Join"; };
  label();
  nameField.addEventListener("input", label);
  button.hidden = !free;
  nameField.closest("label").hidden = !free;
  if (free && info.rated && !page.user) { // the server would refuse a guest: say so first
    const note = $("join-error");
    const login = document.createElement("a");
    login.href = `/login?next=${encodeURIComponent(location.pathname)}`;
    login.dataset.testid = "join-login";
    login.textContent = "Log in or register";
    note.replaceChildren("This match is rated: only accounts play it. ", login, " to take the seat, or watch.");
    note.hidden = false;
    button.disabled = true;
  }
  (free ? nameField : $("watch-button")).focus();
  $("watch-button").addEventListener("click", connect);
  $("join-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = nameField.value.trim();
    const error = $("join-error");
    if (!name) {
      error.textContent = "Choose a name to join (it is kept in this browser).";
      error.hidden = false;
      nameField.focus();
      return;
    }
    keepGuestName(name);
    button.disabled = true;
    try {
      const answer = await api(`/api/tables/${encodeURIComponent(page.id)}/join`, { name });
      keepTokens(page.id, { [answer.seat]: answer.token });
      page.tokens = tokensFor(page.id);
      connect();
    } catch (e) {
      button.disabled = false;
      error.textContent = e.message;
      error.hidden = false;
    }
  });
}

export async function startTable() {
  // For end-to-end tests and the curious: the last state message and the seat shown.
  window.bgTable = { get state() { return page.state; }, get seat() { return page.active; } };
  applyTheme(loadOptions());
  const match = location.pathname.match(/^\/t\/([^/]+)/);
  page.id = match ? decodeURIComponent(match[1]) : new URLSearchParams(location.search).get("id") ?? "";
  page.tokens = tokensFor(page.id);
  page.options = loadOptions();
  const account = loadAccount();
  let info;
  try {
    info = await api(`/api/tables/${encodeURIComponent(page.id)}`);
  } catch (e) {
    const panel = $("join-panel");
    panel.hidden = false;
    $("join-title").textContent = "This table cannot be opened";
    $("join-info").textContent = e.message;
    $("join-form").hidden = true;
    return;
  }
  page.info = info;
  page.user = (await account).user;
  renderHeader();
  const watching = new URLSearchParams(location.search).has("watch");
  if (Object.keys(page.tokens).length || watching || info.status === "over") connect();
  else offerSeat(info);
}
