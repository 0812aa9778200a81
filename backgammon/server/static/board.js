// The backgammon board of the browser: an SVG drawing of a Snapshot (see
// backgammon/table/snapshot.py) and the local building of a play (R42: undo and redo without
// a round trip to the server). No dependencies, no build step.
//
// Numbering: everything is seen from the viewer's side, points 1..24, 25 = the bar, 0 = off.
// A "board" here is {points: number[24], bar: [own, other], off: [own, other]} with the
// viewer's (mover's) checkers positive and the other side's negative, like the protocol's
// play `key` (points, own bar, other bar, own off, other off).

const SVG_NS = "http://www.w3.org/2000/svg";

/** The bar as a point number (the mover's numbering). */
export const BAR = 25;
/** Off the board, as a destination. */
export const OFF = 0;

// ---------------------------------------------------------------------------------------
// Pure rules: single hops, reachability of legal final boards, notation.
// ---------------------------------------------------------------------------------------

/**
 * A deep copy of a board.
 * @param {{points: number[], bar: number[], off: number[]}} b
 */
export function copyBoard(b) {
  return { points: b.points.slice(), bar: b.bar.slice(), off: b.off.slice() };
}

/**
 * The protocol's key of a board: 24 points, own bar, other bar, own off, other off.
 * @param {{points: number[], bar: number[], off: number[]}} b
 * @returns {number[]}
 */
export function boardKey(b) {
  return [...b.points, b.bar[0], b.bar[1], b.off[0], b.off[1]];
}

function keyString(b) {
  return boardKey(b).join(",");
}

/** True when all the mover's checkers are in the home board (points 1-6) or off (R16). */
export function allHome(b) {
  if (b.bar[0] > 0) return false;
  for (let i = 6; i < 24; i++) if (b.points[i] > 0) return false;
  return true;
}

/**
 * Where a checker of the mover on `from` lands with `die`, or null when it cannot move
 * (R8, R10, R13, R15-R19). Does not look at the other dice.
 * @param {{points: number[], bar: number[], off: number[]}} b
 * @param {number} from 1..24, or 25 for the bar
 * @param {number} die 1..6
 * @returns {number|null} 1..24, or 0 for off
 */
export function hopTarget(b, from, die) {
  if (from === BAR) {
    if (b.bar[0] <= 0) return null;
    const to = BAR - die;
    return b.points[to - 1] <= -2 ? null : to;
  }
  if (b.bar[0] > 0) return null; // enter from the bar first (R13)
  if (from < 1 || from > 24 || b.points[from - 1] <= 0) return null;
  const to = from - die;
  if (to > 0) return b.points[to - 1] <= -2 ? null : to; // blocked (R3)
  if (!allHome(b)) return null; // R16
  if (to === 0) return OFF; // R17
  for (let p = from + 1; p <= 6; p++) if (b.points[p - 1] > 0) return null; // R19
  return OFF; // R18: the highest checker with a larger die
}

/**
 * The board after moving one checker `from` → `to` (no checks), and whether it hit.
 * @returns {{board: {points: number[], bar: number[], off: number[]}, hit: boolean}}
 */
export function applyHop(b, from, to) {
  const n = copyBoard(b);
  let hit = false;
  if (from === BAR) n.bar[0] -= 1;
  else n.points[from - 1] -= 1;
  if (to === OFF) n.off[0] += 1;
  else if (n.points[to - 1] === -1) {
    n.points[to - 1] = 1;
    n.bar[1] += 1;
    hit = true;
  } else n.points[to - 1] += 1;
  return { board: n, hit };
}

function without(dice, die) {
  const i = dice.indexOf(die);
  return i < 0 ? dice.slice() : [...dice.slice(0, i), ...dice.slice(i + 1)];
}

function sources(b) {
  if (b.bar[0] > 0) return [BAR];
  const out = [];
  for (let p = 24; p >= 1; p--) if (b.points[p - 1] > 0) out.push(p);
  return out;
}

/** A set of key strings of the legal plays (the protocol's `plays`). */
function keySet(plays) {
  return new Set((plays || []).map((p) => p.key.join(",")));
}

/**
 * True when some legal final board (a key in `keys`) can be reached from `b` with some of
 * the dice `dice` (depth-first over single hops; at most 4 dice).
 */
function canReach(b, dice, keys, memo = new Map()) {
  const k = keyString(b);
  if (keys.has(k)) return true;
  if (dice.length === 0) return false;
  const m = k + "|" + dice.slice().sort().join("");
  const known = memo.get(m);
  if (known !== undefined) return known;
  let found = false;
  outer: for (const d of new Set(dice)) {
    for (const from of sources(b)) {
      const to = hopTarget(b, from, d);
      if (to !== null && canReach(applyHop(b, from, to).board, without(dice, d), keys, memo)) {
        found = true;
        break outer;
      }
    }
  }
  memo.set(m, found);
  return found;
}

/**
 * Every single hop the mover may make now: legal by itself (R8-R19) and leaving some legal
 * play (a key of `plays`) reachable with the dice left (R11-R14, R20).
 * @param {{points: number[], bar: number[], off: number[]}} board the board now
 * @param {number[]} dice the dice still to play (a double: up to four)
 * @param {{move: string, key: number[]}[]} plays the legal plays
 * @returns {{from: number, to: number, die: number, hit: boolean}[]}
 */
export function legalHops(board, dice, plays) {
  const keys = keySet(plays);
  const memo = new Map();
  const out = [];
  for (const d of new Set(dice)) {
    for (const from of sources(board)) {
      const to = hopTarget(board, from, d);
      if (to === null) continue;
      const after = applyHop(board, from, to);
      if (canReach(after.board, without(dice, d), keys, memo)) out.push({ from, to, die: d, hit: after.hit });
    }
  }
  return out;
}

/**
 * True when `board` is a legal final board and no remaining die can still be used toward
 * a legal play: the play is complete and may be confirmed.
 */
export function isComplete(board, dice, plays) {
  const keys = keySet(plays);
  if (!keys.has(keyString(board))) return false;
  return dice.length === 0 || legalHops(board, dice, plays).length === 0;
}

/**
 * The destinations one checker on `from` can reach with the dice left, alone or through
 * legal intermediate points (the same checker moving again), each with its hops.
 * @returns {Map<number, {from: number, to: number, die: number, hit: boolean}[]>}
 */
export function checkerDestinations(board, dice, plays, from, order = null) {
  const keys = keySet(plays);
  const memo = new Map();
  const found = new Map();
  const walk = (b, at, left, path) => {
    const dieOrder = order ? order.filter((d) => left.includes(d)) : [...new Set(left)].sort((x, y) => y - x);
    for (const d of new Set(dieOrder)) {
      const to = hopTarget(b, at, d);
      if (to === null) continue;
      const after = applyHop(b, at, to);
      const rest = without(left, d);
      if (!canReach(after.board, rest, keys, memo)) continue;
      const hops = [...path, { from: at, to, die: d, hit: after.hit }];
      const known = found.get(to);
      if (!known || known.length > hops.length) found.set(to, hops);
      if (to !== OFF) walk(after.board, to, rest, hops);
    }
  };
  walk(board, from, dice, []);
  return found;
}

function pointText(p) {
  return p === BAR ? "bar" : p === OFF ? "off" : String(p);
}

/**
 * Standard notation of hops, gnubg's way like backgammon/move.py: hops grouped into
 * checker journeys (intermediate points kept only where a checker hit), highest first,
 * equal journeys counted, e.g. `24/18 13/11`, `bar/22*`, `8/5*\/1`, `13/7(2)`.
 * @param {{from: number, to: number, hit: boolean}[]} hops
 */
export function formatHops(hops) {
  const pool = hops
    .map((h) => ({ src: h.from, dst: h.to, hit: !!h.hit }))
    .sort((a, b) => b.src - a.src || b.dst - a.dst || Number(b.hit) - Number(a.hit));
  const hitPoints = new Set(pool.filter((s) => s.hit).map((s) => s.dst));
  const stops = new Set(hitPoints);
  for (const s of pool) {
    if (hitPoints.has(s.dst)) {
      hitPoints.delete(s.dst);
      s.hit = true;
    } else s.hit = false;
  }
  const used = pool.map(() => false);
  const chains = [];
  for (let i = 0; i < pool.length; i++) {
    if (used[i]) continue;
    used[i] = true;
    const chain = [{ ...pool[i] }];
    while (chain[chain.length - 1].dst !== OFF) {
      const end = chain[chain.length - 1].dst;
      let j = i + 1;
      for (; j < pool.length; j++) if (!used[j] && pool[j].src === end) break;
      if (j >= pool.length) break;
      used[j] = true;
      const last = chain[chain.length - 1];
      if (stops.has(last.dst)) chain.push({ ...pool[j] });
      else chain[chain.length - 1] = { src: last.src, dst: pool[j].dst, hit: pool[j].hit };
    }
    chains.push(chain);
  }
  const texts = chains.map((c) => pointText(c[0].src) + c.map((s) => "/" + pointText(s.dst) + (s.hit ? "*" : "")).join(""));
  const routes = chains.map((c) => c.map((s) => `${s.src}/${s.dst}`).join(" "));
  const out = [];
  for (let i = 0; i < texts.length; ) {
    let j = i;
    while (j + 1 < texts.length && routes[j + 1] === routes[i]) j++;
    out.push(j === i ? texts[i] : `${texts[i]}(${j - i + 1})`);
    i = j + 1;
  }
  return out.join(" ");
}

/**
 * The hops written in `text` (standard notation, any order; `b`/`bar`/`25`, `o`/`off`/`0`,
 * `-` for `/`, `(n)` counts, `*` optional), or null when it is not notation.
 * @returns {{from: number, to: number}[]|null}
 */
export function parseHops(text) {
  const cleaned = String(text).trim().toLowerCase().replace(/,/g, " ");
  if (cleaned === "" || cleaned === "pass") return [];
  const value = (t) => (t === "bar" || t === "b" || t === "25" ? BAR : t === "off" || t === "o" ? OFF : Number(t));
  const hops = [];
  for (const token of cleaned.split(/\s+/)) {
    const m = /^((?:bar|b|off|o|\d{1,2})\*?(?:[/-](?:bar|b|off|o|\d{1,2})\*?)+)(?:\(([1-4])\))?$/.exec(token);
    if (!m) return null;
    const pts = m[1].split(/[/-]/).map((s) => value(s.replace("*", "")));
    if (pts.some((p) => !(p >= 0 && p <= 25))) return null;
    const these = [];
    for (let i = 0; i + 1 < pts.length; i++) {
      if (pts[i + 1] >= pts[i] || pts[i] === OFF || pts[i + 1] === BAR) return null;
      these.push({ from: pts[i], to: pts[i + 1] });
    }
    for (let c = 0; c < Number(m[2] || 1); c++) hops.push(...these);
  }
  return hops.length > 16 ? null : hops;
}

/**
 * Play written hops (each may span several dice, like `24/20` with 2-2) on `board` with
 * `dice`, ending on a legal final board; returns the single-die hops, or null.
 */
export function simulateHops(board, dice, plays, hops) {
  const keys = keySet(plays);
  const go = (b, left, i, at, done) => {
    if (i === hops.length) return isComplete(b, left, plays) ? done : null;
    const { from, to } = hops[i];
    const src = at ?? from;
    for (const d of new Set(left)) {
      const t = hopTarget(b, src, d);
      if (t === null) continue;
      if (t === to || (to === OFF && t === OFF)) {
        const a = applyHop(b, src, t);
        const r = go(a.board, without(left, d), i + 1, null, [...done, { from: src, to: t, die: d, hit: a.hit }]);
        if (r) return r;
      } else if (t > to && t !== OFF) {
        const a = applyHop(b, src, t);
        const r = go(a.board, without(left, d), i, t, [...done, { from: src, to: t, die: d, hit: a.hit }]);
        if (r) return r;
      }
    }
    return null;
  };
  const orders = [hops, hops.slice().sort((a, b) => (a.to === OFF) - (b.to === OFF) || b.from - a.from)];
  for (const order of orders) {
    hops = order;
    const r = go(board, dice, 0, null, []);
    if (r && keys.has(keyString(r.reduce((b, h) => applyHop(b, h.from, h.to).board, board)))) return r;
  }
  return null;
}

/**
 * Single hops that turn `board` into the board after `play` (one of `plays`) with `dice`:
 * a depth-first search over every legal hop, so any order the play needs is found (e.g.
 * 11/5 before the 6s bear off with 6-6). Null if the play cannot be reached.
 */
export function hopsToPlay(board, dice, plays, play) {
  const target = play.key.join(",");
  const keys = keySet(plays);
  const memo = new Map();
  const go = (b, left, done) => {
    if (keyString(b) === target && isComplete(b, left, plays)) return done;
    for (const d of new Set(left)) {
      for (const from of sources(b)) {
        const to = hopTarget(b, from, d);
        if (to === null) continue;
        const a = applyHop(b, from, to);
        const rest = without(left, d);
        if (!canReach(a.board, rest, keys, memo)) continue;
        const r = go(a.board, rest, [...done, { from, to, die: d, hit: a.hit }]);
        if (r) return r;
      }
    }
    return null;
  };
  return go(board, dice, []);
}

// ---------------------------------------------------------------------------------------
// Geometry (canonical: the viewer's home board at the bottom right; mirrored for corners).
// ---------------------------------------------------------------------------------------

const W = 910; // viewBox width
const H = 780; // viewBox height
const STRIP = 48; // info strips above and below the board
const FRAME = 32; // frame rows with the point numbers
const TOP = STRIP + FRAME; // 80: top edge of the field
const BOTTOM = H - STRIP - FRAME; // 700: bottom edge of the field
const PW = 60; // point width
const CD = 56; // checker spacing
const CR = 26.5; // checker radius
const LF = 20; // left field x
const BARX = LF + 6 * PW; // 380
const BW = 60; // bar width
const RF = BARX + BW; // 440
const TRAYX = RF + 6 * PW + 20; // 820
const TW = 70; // tray width
const MID = (TOP + BOTTOM) / 2; // 390
const POINT_H = 5 * CD - 16; // triangle height
const SLAB = 17.4; // a borne-off checker's slot in the tray

/** Default colours (like options.js's "classic" preset); checker0/checker1 by side. */
export const DEFAULT_COLORS = {
  board: "#e9dcc0",
  frame: "#6b4f34",
  point0: "#b4553d",
  point1: "#3f5f4a",
  checker0: "#f7f3ea",
  checker1: "#2b2b2b",
  cube: "#fffdf7",
  highlight: "#f2b705",
  text: "#fdf8ee",
};

/** High-contrast colours (setOptions({highContrast: true})). */
export const HIGH_CONTRAST_COLORS = {
  board: "#ffffff",
  frame: "#000000",
  point0: "#000000",
  point1: "#7a7a7a",
  checker0: "#ffd400",
  checker1: "#0033cc",
  cube: "#ffffff",
  highlight: "#ff00aa",
  text: "#ffffff",
};

function luminance(hex) {
  const m = /^#?([0-9a-f]{6})$/i.exec(String(hex).trim());
  if (!m) return 0.5;
  const n = parseInt(m[1], 16);
  const ch = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
}

/** A readable ink on `fill`, and an outline for a checker of colour `fill`. */
function inkOn(fill) {
  return luminance(fill) > 0.35 ? "#1d1d1d" : "#fafafa";
}
function outlineOf(fill) {
  return luminance(fill) > 0.35 ? "#4a3b2a" : "#d9d4c8";
}

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  if (parent) parent.appendChild(e);
  return e;
}

const PIPS = {
  1: [[0, 0]],
  2: [[-1, -1], [1, 1]],
  3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

// ---------------------------------------------------------------------------------------
// The Board.
// ---------------------------------------------------------------------------------------

/**
 * @typedef {{text: string, complete: boolean, canUndo: boolean, canRedo: boolean,
 *   message: string, dice: number[], hops: object[]}} ChangeInfo
 */

/** The SVG board: draws snapshots, builds the viewer's play locally. */
export class Board {
  /**
   * @param {HTMLElement} container where the board goes (its contents are replaced)
   * @param {{onPlay?: (move: string) => void, onChange?: (info: ChangeInfo) => void,
   *   onRoll?: () => void, onDouble?: () => void}} callbacks
   */
  constructor(container, callbacks = {}) {
    this.container = container;
    this.callbacks = callbacks;
    this.options = { corner: "bottom-right", colors: { ...DEFAULT_COLORS }, animationMs: 200, sounds: false, autoBearOff: false, highContrast: false };
    this.snapshot = null;
    this.plays = null;
    this.base = null; // the board at the start of the play
    this.dice = []; // all the dice of this turn (a double: four)
    this.hops = []; // the tentative play so far
    this.redoStack = [];
    this.swapped = false;
    this.sent = false;
    this.message = "";
    this.pick = null;
    this.selected = 24;
    this.pendingTap = null;
    this.audio = null;
    container.classList.add("bg-board");
    container.replaceChildren();
    this.svg = el("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", tabindex: "0", "aria-label": "Backgammon board", preserveAspectRatio: "xMidYMid meet" });
    this.svg.classList.add("bg-svg");
    container.appendChild(this.svg);
    this.layer = el("g", {}, this.svg);
    this.dragLayer = el("g", { "pointer-events": "none" }, this.svg);
    this.live = document.createElement("div");
    this.live.className = "bg-live";
    this.live.setAttribute("aria-live", "polite");
    container.appendChild(this.live);
    this.help = document.createElement("p");
    this.help.className = "bg-live";
    this.help.id = `bg-help-${Math.random().toString(36).slice(2, 10)}`;
    this.help.textContent =
      "Arrow keys choose a point (up or right: a higher number), Enter or Space moves its checker by the first die, " +
      "D swaps the dice, Backspace takes a move back, Enter confirms a complete play.";
    container.appendChild(this.help);
    this.svg.setAttribute("aria-describedby", this.help.id);
    this.svg.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    this.svg.addEventListener("pointermove", (e) => this.onPointerMove(e));
    this.svg.addEventListener("pointerup", (e) => this.onPointerUp(e));
    this.svg.addEventListener("pointercancel", () => this.cancelPick());
    this.svg.addEventListener("keydown", (e) => this.onKey(e));
    this.svg.addEventListener("focus", () => this.render());
    this.svg.addEventListener("blur", () => this.render());
    this.render();
  }

  /**
   * Change options: corner ("bottom-right" | "bottom-left" | "top-right" | "top-left", R46),
   * colors (keys of DEFAULT_COLORS), highContrast, animationMs (0: none), sounds, autoBearOff.
   */
  setOptions(options = {}) {
    const colors = { ...this.options.colors, ...(options.colors || {}) };
    this.options = { ...this.options, ...options, colors };
    this.render();
  }

  /** The colours in use. */
  get colors() {
    return this.options.highContrast ? { ...HIGH_CONTRAST_COLORS } : { ...DEFAULT_COLORS, ...this.options.colors };
  }

  // -- state -----------------------------------------------------------------------------

  /**
   * Draw `snapshot` (Snapshot.to_dict()); with `plays` (the state's plays, when this viewer
   * is to play) the viewer may build a play. A tentative play survives a repeated show of
   * the same position, dice and plays.
   */
  show(snapshot, plays = null) {
    const prev = this.snapshot;
    const board = snapshot ? { points: snapshot.board.points.slice(), bar: snapshot.board.bar.slice(), off: snapshot.board.off.slice() } : null;
    const dice = snapshot && snapshot.dice ? (snapshot.dice[0] === snapshot.dice[1] ? [snapshot.dice[0], snapshot.dice[0], snapshot.dice[0], snapshot.dice[0]] : snapshot.dice.slice()) : [];
    const interactive = Array.isArray(plays) && plays.length > 0 && dice.length > 0;
    const same =
      this.base && board && interactive && this.plays &&
      keyString(this.base) === keyString(board) && this.dice.join() === dice.join() &&
      [...keySet(this.plays)].sort().join(";") === [...keySet(plays)].sort().join(";");
    if (snapshot && snapshot.dice && !same && !(prev && prev.dice && prev.dice.join() === snapshot.dice.join() && keyString(prev.board) === keyString(snapshot.board))) {
      this.sound("dice");
    }
    const moves = prev && snapshot && !same && prev.side === snapshot.side ? otherMoves(prev.board, snapshot.board) : [];
    const starts = moves.map((m) => ({ ...m, start: this.otherXY(m.from, prev.board) }));
    this.snapshot = snapshot;
    if (!same) {
      this.plays = interactive ? plays : null;
      this.base = board;
      this.dice = interactive ? dice : [];
      this.hops = [];
      this.redoStack = [];
      this.swapped = false;
      this.sent = false;
      this.message = "";
      if (this.pendingTap) clearTimeout(this.pendingTap.timer);
      this.pendingTap = null;
      this.cancelPick(false);
    } else this.plays = plays;
    this.sent = false;
    this.render();
    for (const m of starts) this.animateOther(m.to, m.start);
    this.changed();
  }

  /** Where the other side's top checker on `place` (viewer's numbering; 25: their bar,
   *  0: their tray) is drawn on board `b`. */
  otherXY(place, b) {
    if (place === BAR) return this.barXY(false, Math.max(0, b.bar[1] - 1));
    if (place === OFF) return { x: this.fx(TRAYX + TW / 2), y: this.fy(TOP + 6 + Math.max(0, b.off[1] - 1) * SLAB + 7.3) };
    return this.stackXY(place, Math.max(0, Math.abs(Math.min(0, b.points[place - 1])) - 1));
  }

  animateOther(place, start) {
    const ms = Number(this.options.animationMs) || 0;
    if (ms <= 0 || !start) return;
    const node = this.layer.querySelector(`[data-other-top="${place}"]`);
    const end = this.otherXY(place, this.current());
    if (!node || typeof node.animate !== "function") return;
    node.animate([{ transform: `translate(${start.x - end.x}px, ${start.y - end.y}px)` }, { transform: "translate(0px, 0px)" }], { duration: ms * 1.5, easing: "ease-in-out" });
  }

  /** True while the viewer may move checkers. */
  get interactive() {
    return !!(this.plays && this.base && !this.sent);
  }

  /** The board with the tentative play applied. */
  current() {
    if (!this.base) return null;
    let b = this.base;
    for (const h of this.hops) b = applyHop(b, h.from, h.to).board;
    return b;
  }

  /** The dice not yet used, in the preferred order (swapDice reverses it). */
  remaining() {
    let left = this.dice.slice();
    for (const h of this.hops) left = without(left, h.die);
    left.sort((a, b) => b - a);
    if (this.swapped) left.reverse();
    return left;
  }

  /** True when the tentative play is a whole legal play (R11-R20). */
  get complete() {
    return this.interactive && isComplete(this.current(), this.remaining(), this.plays);
  }

  /** The tentative play as text: the legal play's own `move` once complete. */
  get text() {
    if (!this.base) return "";
    if (this.plays) {
      const k = keyString(this.current());
      if (this.complete) {
        const play = this.plays.find((p) => p.key.join(",") === k);
        if (play) return play.move;
      }
    }
    return formatHops(this.hops);
  }

  /** The legal hops from the board now (see legalHops). */
  legalHops() {
    return this.interactive ? legalHops(this.current(), this.remaining(), this.plays) : [];
  }

  /** True when every one of the mover's checkers left could be borne off now, one by one. */
  canBearOffAll() {
    return this.interactive && allHome(this.current()) && this.legalHops().some((h) => h.to === OFF);
  }

  /** Bear off with the dice left while possible (for app.js's autoBearOff); hops made. */
  bearOffAll() {
    let n = 0;
    while (this.interactive && !this.complete) {
      const hop = this.legalHops().filter((h) => h.to === OFF).sort((a, b) => b.from - a.from)[0];
      if (!hop) break;
      this.doHops([hop]);
      n++;
    }
    return n;
  }

  changed() {
    const info = {
      text: this.text,
      complete: this.complete,
      canUndo: this.interactive && this.hops.length > 0,
      canRedo: this.interactive && this.redoStack.length > 0,
      message: this.message,
      dice: this.remaining(),
      hops: this.hops.map((h) => ({ ...h })),
    };
    this.live.textContent = info.message || (this.interactive ? (info.text ? `Play: ${info.text}${info.complete ? " (complete)" : ""}` : "") : "");
    if (this.callbacks.onChange) this.callbacks.onChange(info);
  }

  doHops(hops, { animate = true, sound = true } = {}) {
    const from = hops[0].from;
    const to = hops[hops.length - 1].to;
    const start = this.checkerXY(from, this.current());
    this.hops.push(...hops);
    this.redoStack = [];
    this.message = "";
    this.render();
    if (animate) this.animateTo(to, start);
    if (sound) this.sound("click");
    this.changed();
  }

  /** Take back the last hop (R42). */
  undo() {
    if (!this.interactive || this.hops.length === 0) return false;
    const h = this.hops[this.hops.length - 1];
    const start = this.checkerXY(h.to, this.current());
    this.hops.pop();
    this.redoStack.push(h);
    this.message = "";
    this.render();
    this.animateTo(h.from, start);
    this.changed();
    return true;
  }

  /** Make the last undone hop again. */
  redo() {
    if (!this.interactive || this.redoStack.length === 0) return false;
    const h = this.redoStack.pop();
    const start = this.checkerXY(h.from, this.current());
    this.hops.push(h);
    this.message = "";
    this.render();
    this.animateTo(h.to, start);
    this.changed();
    return true;
  }

  /** Take back the whole tentative play (redo brings it back hop by hop). */
  clear() {
    if (!this.interactive) return false;
    while (this.hops.length) this.redoStack.push(this.hops.pop());
    this.message = "";
    this.render();
    this.changed();
    return true;
  }

  /** Send the play (onPlay with the legal play's text) when it is complete; false if not. */
  confirm() {
    if (!this.complete) {
      if (this.interactive) {
        this.message = "The play is not complete: use the dice left, or undo.";
        this.changed();
      }
      return false;
    }
    const text = this.text;
    this.sent = true;
    this.render();
    if (this.callbacks.onPlay) this.callbacks.onPlay(text);
    this.changed();
    return true;
  }

  /** Try the other die first when a checker is clicked. */
  swapDice() {
    this.swapped = !this.swapped;
    this.render();
    this.changed();
  }

  /**
   * Set the tentative play to the play written in `text` (any order or compression that
   * names a legal play); false, with a message, when it is not legal.
   */
  playText(text) {
    if (!this.interactive) return false;
    const wanted = String(text).trim().toLowerCase().replace(/\s+/g, " ");
    const hops = parseHops(text);
    let result = null;
    if (hops !== null) result = simulateHops(this.base, this.dice, this.plays, hops);
    if (!result) {
      const play = this.plays.find((p) => p.move.toLowerCase() === wanted);
      const parsed = play ? parseHops(play.move) : null;
      if (parsed) result = simulateHops(this.base, this.dice, this.plays, parsed);
      if (!result && play) result = hopsToPlay(this.base, this.dice, this.plays, play);
    }
    if (!result) {
      this.message = hops === null ? `"${text}" is not a play like 24/18 13/11, bar/22* or 6/off.` : `${text} is not a legal play with these dice.`;
      this.changed();
      return false;
    }
    this.hops = result;
    this.redoStack = [];
    this.message = "";
    this.render();
    this.sound("click");
    this.changed();
    return true;
  }

  // -- moving by pointer and keyboard ------------------------------------------------------

  /** The preferred hop of the checker on `from` (higher die first, unless swapped). */
  preferredHop(from) {
    const hops = this.legalHops().filter((h) => h.from === from);
    for (const d of this.remaining()) {
      const h = hops.find((x) => x.die === d);
      if (h) return h;
    }
    return null;
  }

  /** Move the checker on `from` by the preferred die; false (with a message) if it cannot. */
  moveFrom(from) {
    if (!this.interactive) return false;
    const b = this.current();
    if (b.bar[0] > 0 && from !== BAR) return this.refuse("Enter from the bar first (R13).");
    const own = from === BAR ? b.bar[0] : b.points[from - 1];
    if (own <= 0) return this.refuse(from === BAR ? "You have no checker on the bar." : `You have no checker on point ${from}.`);
    const hop = this.preferredHop(from);
    if (!hop) return this.refuse(`The checker on ${pointText(from)} cannot move with ${this.remaining().join(" or ") || "no dice left"}.`);
    this.doHops([hop]);
    return true;
  }

  /** Bear off the checker on `from` with whichever die allows it (a double-click). */
  bearOff(from) {
    if (!this.interactive) return false;
    const dests = checkerDestinations(this.current(), this.remaining(), this.plays, from, this.remaining());
    const path = dests.get(OFF);
    if (!path) return this.refuse(`The checker on ${pointText(from)} cannot bear off now.`);
    this.doHops(path);
    return true;
  }

  refuse(message) {
    this.message = message;
    this.render();
    this.changed();
    return false;
  }

  svgPoint(e) {
    const ctm = this.svg.getScreenCTM();
    if (!ctm) return { x: 0, y: 0 };
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    return { x: p.x, y: p.y };
  }

  /** The place under canonical-free svg coordinates: 1..24, 25 (bar), 0 (tray), or null. */
  placeAt(x, y) {
    const cx = this.flipX ? W - x : x;
    const cy = this.flipY ? H - y : y;
    if (cy < TOP - 10 || cy > BOTTOM + 10) return null;
    const top = cy < MID;
    if (cx >= TRAYX - 20 && cx <= TRAYX + TW + 20) return OFF;
    if (cx >= BARX && cx < RF) return BAR;
    let field = null;
    let col = -1;
    if (cx >= LF && cx < BARX) { field = "L"; col = Math.floor((cx - LF) / PW); }
    else if (cx >= RF && cx < RF + 6 * PW) { field = "R"; col = Math.floor((cx - RF) / PW); }
    if (field === null) return null;
    if (field === "R") return top ? 19 + col : 6 - col;
    return top ? 13 + col : 12 - col;
  }

  onPointerDown(e) {
    if (e.button !== undefined && e.button !== 0) return;
    const { x, y } = this.svgPoint(e);
    const target = e.target instanceof Element ? e.target.closest("[data-action]") : null;
    if (target) {
      const action = target.getAttribute("data-action");
      e.preventDefault();
      if (action === "dice" && this.interactive) this.swapDice();
      else if (action === "roll" && this.callbacks.onRoll) this.callbacks.onRoll();
      else if (action === "double" && this.callbacks.onDouble) this.callbacks.onDouble();
      return;
    }
    if (!this.interactive) return;
    const place = this.placeAt(x, y);
    if (place === null || place === OFF) return;
    const b = this.current();
    const own = place === BAR ? b.bar[0] : b.points[place - 1];
    if (own <= 0) return;
    e.preventDefault();
    this.selected = place;
    const dests = checkerDestinations(b, this.remaining(), this.plays, place, this.remaining());
    this.pick = { from: place, x0: e.clientX, y0: e.clientY, id: e.pointerId, dests, moved: false, x, y };
    try { this.svg.setPointerCapture(e.pointerId); } catch { /* synthetic events */ }
    this.render();
  }

  onPointerMove(e) {
    const pick = this.pick;
    if (!pick || e.pointerId !== pick.id) return;
    if (!pick.moved && Math.hypot(e.clientX - pick.x0, e.clientY - pick.y0) < 6) return;
    pick.moved = true;
    const { x, y } = this.svgPoint(e);
    pick.x = x;
    pick.y = y;
    this.drawGhost();
  }

  onPointerUp(e) {
    const pick = this.pick;
    if (!pick || e.pointerId !== pick.id) return;
    this.pick = null;
    this.dragLayer.replaceChildren();
    if (pick.moved) {
      const { x, y } = this.svgPoint(e);
      const place = this.placeAt(x, y);
      const path = place === null ? null : pick.dests.get(place);
      if (place === pick.from || place === null) {
        this.render();
        return;
      }
      if (!path) {
        this.refuse(`The checker on ${pointText(pick.from)} cannot go to ${place === OFF ? "off" : place === BAR ? "the bar" : "point " + place}.`);
        return;
      }
      this.doHops(path, { animate: false });
      return;
    }
    this.tap(pick.from, pick.dests);
  }

  /** A tap: move by the preferred die; a second tap soon after bears the checker off. */
  tap(from, dests) {
    const now = performance.now();
    const pending = this.pendingTap;
    if (pending && pending.from === from && now - pending.at < 400) {
      clearTimeout(pending.timer);
      this.pendingTap = null;
      // the second click of a double-click: bear off (unless the first click already did)
      if (!pending.absorb) this.bearOff(from);
      else this.render();
      return;
    }
    if (pending) {
      clearTimeout(pending.timer);
      this.pendingTap = null;
    }
    const hop = this.preferredHop(from);
    const offPossible = dests && dests.has(OFF) && !(hop && hop.to === OFF);
    if (!offPossible) {
      this.moveFrom(from);
      // a click that bore a checker off: the second click of a double-click does nothing more
      if (hop && hop.to === OFF) this.pendingTap = { from, at: now, timer: 0, absorb: true };
      return;
    }
    // wait a moment: this may be the first click of a double-click (bear off)
    this.render();
    this.pendingTap = {
      from,
      at: now,
      timer: setTimeout(() => {
        this.pendingTap = null;
        this.moveFrom(from);
      }, 260),
    };
  }

  cancelPick(render = true) {
    this.pick = null;
    if (this.dragLayer) this.dragLayer.replaceChildren();
    if (render) this.render();
  }

  onKey(e) {
    const key = e.key;
    if (key === "ArrowRight" || key === "ArrowUp") {
      this.selected = this.selected >= 25 ? 1 : this.selected + 1;
    } else if (key === "ArrowLeft" || key === "ArrowDown") {
      this.selected = this.selected <= 1 ? 25 : this.selected - 1;
    } else if (key === "Enter" || key === " ") {
      if (key === "Enter" && this.complete) this.confirm();
      else this.moveFrom(this.selected);
    } else if (key === "Backspace") {
      this.undo();
    } else if (key === "d" || key === "D") {
      if (this.interactive) this.swapDice();
    } else return;
    e.preventDefault();
    e.stopPropagation(); // the page's own shortcuts should not act a second time
    this.render();
    const b = this.current() || { points: new Array(24).fill(0), bar: [0, 0] };
    const p = this.selected;
    const n = p === BAR ? b.bar[0] : b.points[p - 1];
    if (!["Enter", " ", "Backspace"].includes(key)) {
      this.live.textContent = `${p === BAR ? "Bar" : "Point " + p}: ${n > 0 ? n + " of yours" : n < 0 ? -n + " of the other side" : "empty"}.`;
    }
  }

  // -- sound and animation ---------------------------------------------------------------

  sound(kind) {
    if (!this.options.sounds) return;
    try {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (!Ctx) return;
      this.audio = this.audio || new Ctx();
      const ctx = this.audio;
      const clicks = kind === "dice" ? [0, 0.07, 0.15] : [0];
      for (const t0 of clicks) {
        const osc = ctx.createOscillator();
        const gain = ctx.createGain();
        osc.type = "triangle";
        osc.frequency.value = kind === "dice" ? 900 + Math.random() * 500 : 520;
        const t = ctx.currentTime + t0;
        gain.gain.setValueAtTime(0.18, t);
        gain.gain.exponentialRampToValueAtTime(0.001, t + 0.06);
        osc.connect(gain).connect(ctx.destination);
        osc.start(t);
        osc.stop(t + 0.07);
      }
    } catch {
      /* no audio: silence */
    }
  }

  animateTo(place, start) {
    const ms = Number(this.options.animationMs) || 0;
    if (ms <= 0 || !start) return;
    const b = this.current();
    const end = this.checkerXY(place, b);
    const node = this.layer.querySelector(`[data-top="${place}"]`);
    if (!node || !end || typeof node.animate !== "function") return;
    const dx = start.x - end.x;
    const dy = start.y - end.y;
    node.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0px, 0px)" }], { duration: ms, easing: "ease-out" });
  }

  // -- drawing ---------------------------------------------------------------------------

  get flipX() {
    return this.options.corner === "bottom-left" || this.options.corner === "top-left";
  }

  get flipY() {
    return this.options.corner === "top-right" || this.options.corner === "top-left";
  }

  fx(x) {
    return this.flipX ? W - x : x;
  }

  fy(y) {
    return this.flipY ? H - y : y;
  }

  rect(x, y, w, h, attrs, parent) {
    const x0 = Math.min(this.fx(x), this.fx(x + w));
    const y0 = Math.min(this.fy(y), this.fy(y + h));
    return el("rect", { x: x0, y: y0, width: w, height: h, ...attrs }, parent);
  }

  /** Canonical centre x of point `p`, and whether it is in the top half. */
  static pointColumn(p) {
    if (p <= 6) return { x: RF + (6 - p + 0.5) * PW, top: false };
    if (p <= 12) return { x: LF + (12 - p + 0.5) * PW, top: false };
    if (p <= 18) return { x: LF + (p - 13 + 0.5) * PW, top: true };
    return { x: RF + (p - 19 + 0.5) * PW, top: true };
  }

  /** Where the i-th checker (0: at the edge) of point p is drawn (screen, after flips). */
  stackXY(p, i) {
    const { x, top } = Board.pointColumn(p);
    const slot = Math.min(i, 4);
    const y = top ? TOP + CD / 2 + slot * CD : BOTTOM - CD / 2 - slot * CD;
    return { x: this.fx(x), y: this.fy(y) };
  }

  barXY(own, i) {
    const slot = Math.min(i, 3);
    const cx = BARX + BW / 2;
    const y = own ? MID - 40 - slot * CD : MID + 40 + slot * CD;
    return { x: this.fx(cx), y: this.fy(y) };
  }

  /** The screen position of the mover's top checker on `place` of board `b`. */
  checkerXY(place, b) {
    if (!b) return null;
    if (place === BAR) return this.barXY(true, Math.max(0, b.bar[0] - 1));
    if (place === OFF) return { x: this.fx(TRAYX + TW / 2), y: this.fy(BOTTOM - 6 - Math.max(1, b.off[0]) * SLAB + 7.3) };
    return this.stackXY(place, Math.max(0, Math.abs(b.points[place - 1]) - 1));
  }

  sideOf(name) {
    const s = this.snapshot;
    if (!s || name === null || name === undefined) return null;
    const seat = (s.seats || []).find((x) => x.name === name);
    return seat ? seat.side : null;
  }

  render() {
    const layer = this.layer;
    layer.replaceChildren();
    const c = this.colors;
    const s = this.snapshot;
    const side = s ? s.side || 0 : 0;
    const ownFill = side === 0 ? c.checker0 : c.checker1;
    const otherFill = side === 0 ? c.checker1 : c.checker0;
    const b = this.current() || (s ? { points: s.board.points, bar: s.board.bar, off: s.board.off } : { points: new Array(24).fill(0), bar: [0, 0], off: [0, 0] });
    const interactive = this.interactive;
    this.container.classList.toggle("bg-interactive", interactive);
    this.container.classList.toggle("bg-high-contrast", !!this.options.highContrast);

    // frame and felt
    el("rect", { x: 0, y: 0, width: W, height: H, rx: 18, fill: c.frame, class: "bg-frame" }, layer);
    const fieldAttrs = { fill: c.board, class: "bg-felt" };
    this.rect(LF, TOP, 6 * PW, BOTTOM - TOP, fieldAttrs, layer);
    this.rect(RF, TOP, 6 * PW, BOTTOM - TOP, fieldAttrs, layer);
    this.rect(BARX, TOP - 6, BW, BOTTOM - TOP + 12, { fill: shade(c.frame, -0.12), class: "bg-bar" }, layer);
    const trayFill = shade(c.frame, -0.28);
    this.rect(TRAYX, TOP, TW, MID - TOP - 14, { fill: trayFill, rx: 6, class: "bg-tray" }, layer);
    this.rect(TRAYX, MID + 14, TW, BOTTOM - MID - 14, { fill: trayFill, rx: 6, class: "bg-tray" }, layer);

    // highlights of legal destinations
    const dests = this.pick ? this.pick.dests : null;

    // points
    const textInk = c.text;
    for (let p = 1; p <= 24; p++) {
      const { x, top } = Board.pointColumn(p);
      const edge = top ? TOP : BOTTOM;
      const tip = top ? TOP + POINT_H : BOTTOM - POINT_H;
      const fill = p % 2 === 0 ? c.point0 : c.point1;
      const pts = [[x - PW / 2 + 2, edge], [x + PW / 2 - 2, edge], [x, tip]].map(([px, py]) => `${this.fx(px)},${this.fy(py)}`).join(" ");
      const tri = el("polygon", { points: pts, fill, class: "bg-point", "data-point": p }, layer);
      if (dests && dests.has(p)) {
        tri.setAttribute("stroke", c.highlight);
        tri.setAttribute("stroke-width", "5");
        tri.classList.add("bg-dest");
        el("polygon", { points: pts, fill: c.highlight, opacity: 0.35, "pointer-events": "none" }, layer);
      }
      const ny = top ? TOP - FRAME / 2 : BOTTOM + FRAME / 2;
      const num = el("text", { x: this.fx(x), y: this.fy(ny), class: "bg-number", fill: textInk, "text-anchor": "middle", "dominant-baseline": "central" }, layer);
      num.textContent = String(p);
    }
    if (dests && dests.has(OFF)) {
      this.rect(TRAYX - 3, MID + 11, TW + 6, BOTTOM - MID - 8, { fill: "none", stroke: c.highlight, "stroke-width": 5, rx: 8, class: "bg-dest", "data-dest": "off" }, layer);
    }

    // keyboard selection
    if (document.activeElement === this.svg) {
      const p = this.selected;
      if (p === BAR) this.rect(BARX + 3, TOP, BW - 6, BOTTOM - TOP, { fill: "none", stroke: c.highlight, "stroke-width": 4, "stroke-dasharray": "8 5", class: "bg-focus" }, layer);
      else {
        const { x, top } = Board.pointColumn(p);
        this.rect(x - PW / 2 + 1, top ? TOP : BOTTOM - 5 * CD, PW - 2, 5 * CD, { fill: "none", stroke: c.highlight, "stroke-width": 4, "stroke-dasharray": "8 5", class: "bg-focus" }, layer);
      }
    }

    // checkers on points
    const pickedFrom = this.pick && this.pick.moved ? this.pick.from : null;
    for (let p = 1; p <= 24; p++) {
      const v = b.points[p - 1];
      if (v === 0) continue;
      const n = Math.abs(v);
      const own = v > 0;
      const shown = Math.min(n, 5);
      for (let i = 0; i < shown; i++) {
        const { x, y } = this.stackXY(p, i);
        const isTop = i === shown - 1;
        const g = this.checker(x, y, own ? ownFill : otherFill, isTop && n > 5 ? String(n) : "", layer);
        g.setAttribute("data-side", own ? "own" : "other");
        g.setAttribute("data-point", String(p));
        if (isTop) {
          if (own) g.setAttribute("data-top", String(p));
          else g.setAttribute("data-other-top", String(p));
          g.setAttribute("data-count", String(n));
          if (own && pickedFrom === p) g.setAttribute("opacity", "0.35");
          if (own && this.pick && !this.pick.moved && this.pick.from === p) g.classList.add("bg-picked");
        }
        if (own && interactive) g.classList.add("bg-movable");
      }
    }

    // checkers on the bar: the viewer's above the middle, the other side's below
    for (const [idx, own] of [[0, true], [1, false]]) {
      const n = b.bar[idx];
      const shown = Math.min(n, 4);
      for (let i = 0; i < shown; i++) {
        const { x, y } = this.barXY(own, i);
        const isTop = i === shown - 1;
        const g = this.checker(x, y, own ? ownFill : otherFill, isTop && n > 4 ? String(n) : "", layer);
        g.setAttribute("data-side", own ? "own" : "other");
        g.setAttribute("data-point", "bar");
        if (isTop) {
          g.setAttribute("data-count", String(n));
          g.setAttribute(own ? "data-top" : "data-other-top", String(BAR));
          if (own && pickedFrom === BAR) g.setAttribute("opacity", "0.35");
        }
        if (own && interactive) g.classList.add("bg-movable");
      }
    }

    // borne-off checkers: thin slabs in the trays (the viewer's tray on the home side)
    for (const [idx, own] of [[0, true], [1, false]]) {
      const n = b.off[idx];
      const fill = own ? ownFill : otherFill;
      for (let i = 0; i < n; i++) {
        const y = own ? BOTTOM - 6 - (i + 1) * SLAB : TOP + 6 + i * SLAB;
        const r = this.rect(TRAYX + 7, y, TW - 14, 14.6, { fill, stroke: outlineOf(fill), "stroke-width": 1.5, rx: 3, class: "bg-slab", "data-side": own ? "own" : "other" }, layer);
        if (i === n - 1) r.setAttribute(own ? "data-top" : "data-other-top", String(OFF));
      }
    }

    // dice on the mover's half (the right half is the viewer's, the left the other side's)
    if (s && s.dice) {
      const moverSide = this.sideOf(s.on_roll);
      const moverOwn = moverSide === null ? true : moverSide === side;
      const fill = moverSide === null ? c.cube : moverSide === 0 ? c.checker0 : c.checker1;
      let faces = s.dice[0] === s.dice[1] ? [s.dice[0], s.dice[0], s.dice[0], s.dice[0]] : s.dice.slice();
      const left = interactive ? this.remaining() : faces;
      if (interactive && this.swapped && faces.length === 2) faces = faces.slice().reverse();
      const usedFlags = faces.map(() => false);
      if (interactive) {
        const pool = left.slice();
        faces.forEach((f, i) => {
          const j = pool.indexOf(f);
          if (j >= 0) pool.splice(j, 1);
          else usedFlags[i] = true;
        });
        // used dice of a double are the last ones
        if (faces.length === 4) {
          const used = usedFlags.filter(Boolean).length;
          faces.forEach((_, i) => (usedFlags[i] = i >= 4 - used));
        }
      }
      const size = faces.length === 4 ? 44 : 50;
      const gap = size + 12;
      const cx = moverOwn ? RF + 3 * PW : LF + 3 * PW;
      const g = el("g", { class: "bg-dice", "data-action": interactive ? "dice" : null, "aria-hidden": "true" }, layer);
      if (interactive) g.style.cursor = "pointer";
      const span = (faces.length - 1) * gap + size + 16;
      el("rect", { x: this.fx(cx) - span / 2, y: this.fy(MID) - size / 2 - 8, width: span, height: size + 16, fill: "transparent" }, g);
      faces.forEach((f, i) => {
        const x = this.fx(cx + (i - (faces.length - 1) / 2) * gap);
        this.die(x, this.fy(MID), size, f, fill, usedFlags[i], g);
      });
    } else if (s && (s.actions || []).includes("roll")) {
      const g = el("g", { class: "bg-roll", "data-action": "roll", role: "button" }, layer);
      g.style.cursor = "pointer";
      const x = this.fx(RF + 3 * PW);
      el("rect", { x: x - 56, y: this.fy(MID) - 22, width: 112, height: 44, rx: 22, fill: c.frame, stroke: c.highlight, "stroke-width": 3 }, g);
      const t = el("text", { x, y: this.fy(MID), "text-anchor": "middle", "dominant-baseline": "central", class: "bg-roll-text", fill: c.text }, g);
      t.textContent = "Roll";
    }

    // the doubling cube: centred on the bar, or at its owner's end of the bar
    if (s) {
      const ownerSide = this.sideOf(s.cube_owner);
      const cy = ownerSide === null ? MID : ownerSide === side ? BOTTOM - 32 : TOP + 32;
      const x = this.fx(BARX + BW / 2);
      const y = this.fy(cy);
      const canDouble = (s.actions || []).includes("double");
      const g = el("g", { class: "bg-cube", "data-action": canDouble ? "double" : null, "data-owner": ownerSide === null ? "centre" : ownerSide === side ? "own" : "other" }, layer);
      if (canDouble) g.style.cursor = "pointer";
      el("rect", { x: x - 23, y: y - 23, width: 46, height: 46, rx: 7, fill: c.cube, stroke: canDouble ? c.highlight : "#3a3026", "stroke-width": canDouble ? 4 : 2 }, g);
      const t = el("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central", class: "bg-cube-text", fill: "#1d1d1d" }, g);
      t.textContent = String(s.cube > 1 ? s.cube : 64);
    }

    // the info strips: the viewer's on the home side, the other's on the far side
    if (s) this.strips(s, side, ownFill, otherFill, b);
    this.svg.setAttribute("aria-label", this.describe(s, b, side));
    if (this.pick && this.pick.moved) this.drawGhost();
  }

  strips(s, side, ownFill, otherFill, b) {
    const c = this.colors;
    const seats = s.seats || [];
    const names = (sd) => {
      // a chouette's team is named by whoever moves for it: "intermediate 2 +2"
      const rank = (x) => (x.role === "acting captain" ? 0 : x.role === "captain" ? 1 : 2);
      const list = seats.filter((x) => x.side === sd).sort((a, b) => rank(a) - rank(b)).map((x) => x.name);
      if (list.length === 0) return sd === side ? "You" : "Opponent";
      return list.length > 1 ? `${list[0]} +${list.length - 1}` : list[0];
    };
    const moverSide = this.sideOf(s.on_roll);
    const pips = s.board.pips || [0, 0];
    const score = s.score || [0, 0];
    const info = s.kind === "money" ? "Money game" : s.kind === "chouette" ? "Chouette" : `Match to ${s.match_length}`;
    const status = () => {
      if (s.over) return "match over";
      if (!s.on_roll) return "";
      if (s.phase === "cube") return "cube decision";
      if (s.dice) return `to play ${s.dice[0]}-${s.dice[1]}`;
      return "to roll";
    };
    for (const own of [true, false]) {
      const sd = own ? side : 1 - side;
      const cy = this.fy(own ? H - STRIP / 2 : STRIP / 2);
      const isMover = moverSide === sd;
      const g = el("g", { class: "bg-strip", "data-side": own ? "own" : "other" }, this.layer);
      if (isMover) el("rect", { x: 12, y: cy - 19, width: W - 24, height: 38, rx: 19, fill: shade(c.frame, 0.18), class: "bg-turn" }, g);
      const fill = own ? ownFill : otherFill;
      el("circle", { cx: 36, cy, r: 13, fill, stroke: outlineOf(fill), "stroke-width": 2 }, g);
      const name = el("text", { x: 58, y: cy, "dominant-baseline": "central", class: "bg-name" + (isMover ? " bg-mover" : ""), fill: c.text }, g);
      const nm = names(sd);
      name.textContent = (nm.length > 22 ? nm.slice(0, 21) + "…" : nm) + (s.kind === "chouette" ? "" : `  ·  ${score[sd] ?? 0}`);
      const centre = el("text", { x: W / 2 + 40, y: cy, "text-anchor": "middle", "dominant-baseline": "central", class: "bg-status", fill: c.text }, g);
      if (isMover) centre.textContent = status();
      else if (own === (moverSide !== null && moverSide !== side)) {
        centre.textContent = info + (s.crawford ? " · Crawford" : "");
        centre.classList.add("bg-match");
      }
      const pip = el("text", { x: W - 28, y: cy, "text-anchor": "end", "dominant-baseline": "central", class: "bg-pips", fill: c.text }, g);
      const n = own ? pips[0] : pips[1];
      pip.textContent = `${this.interactive && own ? pipCount(b, true) : n} pips`;
    }
  }

  describe(s, b, side) {
    if (!s) return "Backgammon board";
    const moverSide = this.sideOf(s.on_roll);
    const who = s.on_roll ? (moverSide === side && s.viewer ? "Your turn" : `${s.on_roll}'s turn`) : "Opening roll";
    const dice = s.dice ? `, dice ${s.dice[0]} and ${s.dice[1]}` : "";
    const pips = s.board.pips || [0, 0];
    const own = this.interactive ? pipCount(b, true) : pips[0];
    const play = this.interactive && this.hops.length ? `. Tentative play ${this.text}` : "";
    const bar = b.bar[0] || b.bar[1] ? `. On the bar: ${b.bar[0]} of yours, ${b.bar[1]} of theirs` : "";
    return `${who}${dice}. Pips: yours ${own}, theirs ${pips[1]}. Borne off: ${b.off[0]} and ${b.off[1]}${bar}. Cube ${s.cube}${play}.`;
  }

  checker(x, y, fill, label, parent) {
    const g = el("g", { class: "bg-checker" }, parent);
    el("circle", { cx: x + 1.5, cy: y + 2.5, r: CR, fill: "#000", opacity: 0.22, class: "bg-shadow" }, g);
    el("circle", { cx: x, cy: y, r: CR, fill, stroke: outlineOf(fill), "stroke-width": 2.5 }, g);
    el("circle", { cx: x, cy: y, r: CR - 8, fill: "none", stroke: outlineOf(fill), "stroke-opacity": 0.45, "stroke-width": 1.5 }, g);
    if (label) {
      const t = el("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central", class: "bg-count", fill: inkOn(fill) }, g);
      t.textContent = label;
    }
    return g;
  }

  die(x, y, size, face, fill, used, parent) {
    const g = el("g", { class: "bg-die" + (used ? " bg-used" : ""), "data-face": face, opacity: used ? 0.35 : 1 }, parent);
    el("rect", { x: x - size / 2, y: y - size / 2, width: size, height: size, rx: size * 0.18, fill, stroke: outlineOf(fill), "stroke-width": 2.5 }, g);
    const ink = inkOn(fill);
    const d = size * 0.26;
    for (const [px, py] of PIPS[face] || []) el("circle", { cx: x + px * d, cy: y + py * d, r: size * 0.09, fill: ink }, g);
    return g;
  }

  drawGhost() {
    const pick = this.pick;
    this.dragLayer.replaceChildren();
    if (!pick || !pick.moved) return;
    const s = this.snapshot;
    const side = s ? s.side || 0 : 0;
    const c = this.colors;
    const g = this.checker(pick.x, pick.y, side === 0 ? c.checker0 : c.checker1, "", this.dragLayer);
    g.classList.add("bg-ghost");
  }
}

/**
 * The other side's checker moves between two boards of the viewer (their checkers move up
 * the viewer's numbering: from their bar, 25 here, read as 0, to their tray, 0 here, read
 * as 25), paired greedily; [] when it does not look like one turn (a new game, say).
 * @returns {{from: number, to: number}[]}
 */
export function otherMoves(before, after) {
  const count = (b, p) => (p === 0 ? b.bar[1] : p === 25 ? b.off[1] : Math.max(0, -b.points[p - 1]));
  const sources = [];
  const dests = [];
  for (let p = 0; p <= 25; p++) {
    const d = count(after, p) - count(before, p);
    for (let i = 0; i < -d; i++) sources.push(p);
    for (let i = 0; i < d; i++) dests.push(p);
  }
  // a checker hit by the viewer shows up on their bar (a source of nothing): ignore it
  if (dests.length > 4 || dests.length === 0) return [];
  const out = [];
  for (const to of dests.sort((a, b) => a - b)) {
    let best = -1;
    for (let i = 0; i < sources.length; i++) if (sources[i] < to && (best < 0 || sources[i] > sources[best])) best = i;
    if (best < 0) continue;
    const from = sources.splice(best, 1)[0];
    out.push({ from: from === 0 ? BAR : from, to: to === 25 ? OFF : to });
  }
  return out;
}

/** The mover's pip count on `b` (own: true) or the other side's. */
export function pipCount(b, own) {
  let n = 0;
  for (let p = 1; p <= 24; p++) {
    const v = b.points[p - 1];
    if (own && v > 0) n += v * p;
    if (!own && v < 0) n += -v * (25 - p);
  }
  return n + 25 * (own ? b.bar[0] : b.bar[1]);
}

function shade(hex, amount) {
  const m = /^#?([0-9a-f]{6})$/i.exec(String(hex).trim());
  if (!m) return hex;
  const n = parseInt(m[1], 16);
  const ch = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => {
    const t = amount < 0 ? 0 : 255;
    return Math.round(v + (t - v) * Math.abs(amount));
  });
  return "#" + ch.map((v) => v.toString(16).padStart(2, "0")).join("");
}
