// The fair-dice verify page: recompute every die of a /api/tables/{id}/record download in the
// browser and compare it with the table's log. The byte layout is documented in
// backgammon/fairdice.py (the Python side, `backgammon verify FILE`, does the same checks):
//
//   message(c) = u32be(game) || u8(k) || [u8(len(seed)) || seed bytes]*k || u32be(c)
//   block(c)   = HMAC-SHA256(key = server seed, message(c)),  c = 0, 1, 2, ...
//   each byte b of block(0) || block(1) || ...: b < 252 gives the die b % 6 + 1, else skipped
//
// WebCrypto (crypto.subtle) does the hashing; where the page is not a secure context (plain
// http on another host) crypto.subtle is missing and a small SHA-256 written below is used.

const LIMIT = 252;

// -- bytes ------------------------------------------------------------------------------------

export function hexToBytes(hex) {
  if (typeof hex !== "string" || hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new Error(`${JSON.stringify(hex)} is not hexadecimal text (an even number of 0-9, a-f)`);
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bytesToHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function isClientSeed(seed) {
  return typeof seed === "string" && /^(?:[0-9a-fA-F]{2}){8,64}$/.test(seed);
}

export function message(game, clientSeeds, counter) {
  const seeds = clientSeeds.map(hexToBytes);
  const size = 4 + 1 + seeds.reduce((n, s) => n + 1 + s.length, 0) + 4;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, game >>> 0);
  out[4] = seeds.length;
  let at = 5;
  for (const s of seeds) {
    out[at++] = s.length;
    out.set(s, at);
    at += s.length;
  }
  view.setUint32(at, counter >>> 0);
  return out;
}

// -- SHA-256 and HMAC: WebCrypto, else the fallback ------------------------------------------

const subtle = globalThis.crypto && globalThis.crypto.subtle;

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 in plain JavaScript (FIPS 180-4), for pages without crypto.subtle. */
export function sha256Plain(data) {
  const bitLength = data.length * 8;
  const padded = new Uint8Array(((data.length + 9 + 63) >> 6) << 6);
  padded.set(data);
  padded[data.length] = 0x80;
  const tail = new DataView(padded.buffer, padded.length - 8);
  tail.setUint32(0, Math.floor(bitLength / 0x100000000));
  tail.setUint32(4, bitLength >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  const view = new DataView(padded.buffer);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    const add = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) h[i] = (h[i] + add[i]) >>> 0;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(4 * i, h[i]);
  return out;
}

export function hmacPlain(key, data) {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256Plain(key) : key);
  const inner = new Uint8Array(64 + data.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i++) {
    inner[i] = block[i] ^ 0x36;
    outer[i] = block[i] ^ 0x5c;
  }
  inner.set(data, 64);
  outer.set(sha256Plain(inner), 64);
  return sha256Plain(outer);
}

export async function sha256Hex(bytes) {
  if (subtle) return bytesToHex(new Uint8Array(await subtle.digest("SHA-256", bytes)));
  return bytesToHex(sha256Plain(bytes));
}

async function hmacOf(keyBytes) {
  if (subtle) {
    const key = await subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return async (data) => new Uint8Array(await subtle.sign("HMAC", key, data));
  }
  return async (data) => hmacPlain(keyBytes, data);
}

/** The first n dice of a game's stream. */
export async function diceOf(serverSeed, game, clientSeeds, n) {
  const sign = await hmacOf(serverSeed);
  const dice = [];
  for (let counter = 0; dice.length < n; counter++) {
    const block = await sign(message(game, clientSeeds, counter));
    for (const b of block) {
      if (b < LIMIT && dice.length < n) dice.push((b % 6) + 1);
    }
  }
  return dice;
}

// -- the log ----------------------------------------------------------------------------------

/** game number -> {dice: [...], throws: [[...], ...]} from a table's log (roll-off, opening, rolls). */
export function logRolls(record) {
  const log = record.log && typeof record.log === "object" ? record.log : record;
  if (!Array.isArray(log.events)) throw new Error("the record has no table log ('log' with a list of 'events')");
  const games = new Map();
  const at = (n) => {
    if (!games.has(n)) games.set(n, { dice: [], throws: [] });
    return games.get(n);
  };
  let number = 1;
  for (const event of log.events) {
    if (!event || typeof event !== "object") throw new Error("a log event is not an object");
    if (event.type === "game_start") {
      number = Number.isInteger(event.number) ? event.number : number + 1;
      at(number);
    } else if (event.type === "roll" || event.type === "opening_roll" || event.type === "roll_off") {
      const dice = event.dice;
      if (!Array.isArray(dice) || !dice.every((d) => Number.isInteger(d) && d >= 1 && d <= 6)) {
        throw new Error(`a ${event.type} event's dice are not dice 1-6`);
      }
      const game = at(number);
      game.dice.push(...dice);
      game.throws.push({ type: event.type, dice });
    }
  }
  return games;
}

function firstDiff(computed, claimed, other) {
  for (let i = 0; i < Math.min(computed.length, claimed.length); i++) {
    if (computed[i] !== claimed[i]) return `${computed[i]} as die ${i + 1}, but ${other} ${claimed[i]}`;
  }
  return `${computed.length} dice, but ${other} ${claimed.length}`;
}

async function checkGame(entry, revealed, logged) {
  const game = entry.game;
  const check = {
    game, revealed, commitmentOk: null, diceOk: null, logOk: null,
    rolls: logged.dice, throws: logged.throws, messages: [], badDie: null,
  };
  const fail = (text) => check.messages.push(text);
  const seeds = entry.client_seeds === undefined ? [] : entry.client_seeds;
  const dice = entry.dice === undefined ? null : entry.dice;
  if (!Array.isArray(seeds) || !seeds.every(isClientSeed)) {
    fail("its client seeds are not a list of hex seeds.");
    return check;
  }
  if (dice !== null && (!Array.isArray(dice) || !dice.every(Number.isInteger))) {
    fail("its dice are not a list of numbers.");
    return check;
  }
  if (revealed) {
    let seed;
    try {
      seed = hexToBytes(String(entry.server_seed));
    } catch (e) {
      seed = new Uint8Array(0);
    }
    if (seed.length !== 32) {
      fail("the revealed server seed is not 64 hexadecimal digits.");
      return check;
    }
    check.commitmentOk = (await sha256Hex(seed)) === String(entry.commitment || "").toLowerCase();
    if (!check.commitmentOk) {
      fail("the revealed server seed does not match the commitment published before the game "
        + "(its SHA-256 differs), so its dice cannot be trusted.");
      return check;
    }
    const n = Math.max(logged.dice.length, dice ? dice.length : 0);
    const computed = await diceOf(seed, game, seeds.map((s) => s.toLowerCase()), n);
    if (dice !== null) {
      const mine = computed.slice(0, dice.length);
      check.diceOk = mine.every((d, i) => d === dice[i]);
      if (!check.diceOk) {
        fail(`the revealed seeds do not give the dice the server drew: they give ${firstDiff(mine, dice, "the record says")}.`);
      }
    }
    const mine = computed.slice(0, logged.dice.length);
    check.logOk = mine.every((d, i) => d === logged.dice[i]);
    if (!check.logOk) {
      check.badDie = mine.findIndex((d, i) => d !== logged.dice[i]);
      fail(`the revealed seeds do not give the log's rolls: they give ${firstDiff(mine, logged.dice, "the log has")}.`);
    }
  }
  if (dice !== null && check.messages.length === 0
      && (dice.length !== logged.dice.length || dice.some((d, i) => d !== logged.dice[i]))) {
    check.logOk = false;
    fail(`the server's dice and the log's rolls differ: ${firstDiff(dice, logged.dice, "the log has")}.`);
  }
  return check;
}

/** Check a /api/tables/{id}/record download: {ok, games: [...], messages: [...]}. */
export async function verifyRecord(record) {
  const report = { ok: false, games: [], messages: [] };
  if (!record || typeof record !== "object" || Array.isArray(record)) {
    report.messages.push("the record is not a JSON object.");
    return report;
  }
  const fair = record.fair;
  if (!fair || typeof fair !== "object" || !Array.isArray(fair.revealed)) {
    report.messages.push("the record has no fair-dice data ('fair' with 'revealed'): download it from /api/tables/{id}/record.");
    return report;
  }
  let logged;
  try {
    logged = logRolls(record);
  } catch (e) {
    report.messages.push(`${e.message}.`);
    return report;
  }
  const entries = fair.revealed.filter((r) => r && typeof r === "object").map((r) => [r, true]);
  if (entries.length !== fair.revealed.length) report.messages.push("a revealed game in 'fair' is not an object.");
  entries.push([fair, false]);
  const seen = new Set();
  const empty = { dice: [], throws: [] };
  for (const [entry, revealed] of entries) {
    const game = entry.game;
    if (!Number.isInteger(game) || seen.has(game)) {
      report.messages.push(`the fair-dice record has a bad or repeated game number ${JSON.stringify(game)}.`);
      continue;
    }
    seen.add(game);
    if (!revealed && !logged.has(game) && !(entry.dice && entry.dice.length)) continue; // not started
    const check = await checkGame(entry, revealed, logged.get(game) || empty);
    report.games.push(check);
    report.messages.push(...check.messages.map((m) => `game ${game}: ${m}`));
  }
  for (const [game, data] of [...logged.entries()].sort((a, b) => a[0] - b[0])) {
    if (!seen.has(game) && data.dice.length) {
      report.messages.push(`game ${game} has ${data.dice.length} dice in the log but no fair-dice record.`);
    }
  }
  report.games.sort((a, b) => a.game - b.game);
  report.ok = report.messages.length === 0;
  return report;
}

// -- the page ---------------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}

function mark(ok) {
  if (ok === null) return "—";
  return ok ? "✔ ok" : "✘ FAILED";
}

function throwText(t) {
  const dice = t.dice.join("-");
  if (t.type === "opening_roll") return `opening ${dice}`;
  if (t.type === "roll_off") return `roll-off ${dice}`;
  return dice;
}

function render(report, results, summary) {
  results.replaceChildren();
  summary.className = report.ok ? "summary ok" : "summary fail";
  summary.textContent = report.ok
    ? `All dice check: ${report.games.filter((g) => g.revealed).length} revealed game(s), every roll matches.`
    : `${report.messages.length} problem(s) found.`;
  for (const m of report.messages.filter((m) => !/^game \d+: /.test(m))) {
    results.append(el("p", { class: "problem" }, m));
  }
  for (const g of report.games) {
    const state = g.messages.length ? "fail" : g.revealed ? "ok" : "pending";
    const title = g.messages.length ? "FAILED" : g.revealed ? `${g.rolls.length} dice match` : "not revealed yet";
    const section = el("section", { class: `game ${state}`, "data-game": String(g.game), "data-state": state });
    section.append(el("h2", {}, `Game ${g.game}: ${title}`));
    const list = el("ul", { class: "checks" });
    if (g.revealed) {
      list.append(el("li", { "data-check": "commitment" }, `commitment (SHA-256 of the revealed seed): ${mark(g.commitmentOk)}`));
      list.append(el("li", { "data-check": "dice" }, `the seeds give the server's dice: ${mark(g.diceOk)}`));
      list.append(el("li", { "data-check": "log" }, `every roll in the log matches: ${mark(g.logOk)}`));
    } else {
      list.append(el("li", {}, "the game is not over: its server seed is revealed when it ends."));
    }
    section.append(list);
    for (const m of g.messages) section.append(el("p", { class: "problem" }, m));
    const rolls = el("ol", { class: "rolls", "data-testid": "rolls" });
    let die = 0;
    g.throws.forEach((t, i) => {
      const bad = g.badDie !== null && g.badDie >= die && g.badDie < die + t.dice.length;
      const item = el("li", bad ? { class: "bad", title: "this throw does not match the seeds" } : {});
      item.append(el("span", { class: "n" }, `${i + 1}.`), " ", throwText(t));
      rolls.append(item);
      die += t.dice.length;
    });
    section.append(el("p", { class: "muted" }, `${g.throws.length} throw(s), ${g.rolls.length} dice:`), rolls);
    results.append(section);
  }
}

async function run(text, status, results, summary) {
  results.replaceChildren();
  summary.textContent = "";
  let record;
  try {
    record = JSON.parse(text);
  } catch (e) {
    status.textContent = `This is not JSON (${e.message}): paste a /api/tables/{id}/record download.`;
    return;
  }
  status.textContent = "Checking…";
  const report = await verifyRecord(record);
  status.textContent = subtle ? "Checked in this browser with WebCrypto." : "Checked in this browser (built-in SHA-256).";
  render(report, results, summary);
  window.lastReport = report;
}

function setup() {
  const $ = (id) => document.getElementById(id);
  const text = $("record-text");
  const status = $("status");
  const results = $("results");
  const summary = $("summary");
  const check = () => run(text.value, status, results, summary);
  $("verify-form").addEventListener("submit", (e) => {
    e.preventDefault();
    check();
  });
  $("record-file").addEventListener("change", async (e) => {
    const file = e.target.files && e.target.files[0];
    if (!file) return;
    text.value = await file.text();
    check();
  });
  const load = async (id) => {
    status.textContent = `Fetching table ${id}…`;
    try {
      const response = await fetch(`/api/tables/${encodeURIComponent(id)}/record`);
      const body = await response.text();
      if (!response.ok) {
        let why = `the server answered ${response.status}`;
        try {
          why = JSON.parse(body).error || why;
        } catch (e) { /* not JSON */ }
        status.textContent = `Could not fetch table ${id}: ${why}`;
        return;
      }
      text.value = body;
      check();
    } catch (e) {
      status.textContent = `Could not fetch table ${id}: ${e.message}`;
    }
  };
  $("table-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const id = $("table-id").value.trim();
    if (id) load(id);
    else status.textContent = "Give a table id (the part after /t/ in the table's address).";
  });
  const id = new URLSearchParams(location.search).get("table");
  if (id) {
    $("table-id").value = id;
    load(id);
  }
}

if (typeof document !== "undefined" && document.getElementById("verify-form")) setup();
