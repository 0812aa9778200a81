// The analysis beside the replay (/r/<id>): the per-player summary, the decision of the frame
// shown, the worst decisions (each jumps to its frame) and a graph of player 0's
// match-winning chances (money: equity) through the match. Its data is
// GET /api/tables/<id>/analysis (backgammon/server/analysis_api.py): 202 with the progress
// while the server analyses, 200 with MatchAnalysis.to_dict() (docs/ANALYSIS-DESIGN.md) when
// done. A decision's `event` is the index of its frame in the replay.

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

/** How often (ms) the page asks how far the analysis got. */
const POLL_MS = 1000;
/** Words (and the chess-like mark drawn in the record) of each label. */
const LABELS = { doubtful: "?!", bad: "?", "very bad": "??" };

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

function svg(tag, attrs = {}, text = "") {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text) node.textContent = text;
  return node;
}

// -- numbers in words ---------------------------------------------------------------------

const fixed = (x, digits = 3) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(digits) : "–");
const signed = (x, digits = 3) => (typeof x === "number" && Number.isFinite(x) ? `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(digits)}` : "–");
const percent = (x, digits = 1) => (typeof x === "number" && Number.isFinite(x) ? `${(100 * x).toFixed(digits)}%` : "–");

/** "alpha 6-4" for a play, "alpha" otherwise. */
function who(analysis, d) {
  const name = analysis.names[d.player] ?? `Player ${d.player}`;
  if (d.kind !== "play" || !d.dice) return name;
  const [a, b] = d.dice;
  return `${name} ${Math.max(a, b)}-${Math.min(a, b)}`;
}

/** What the decision was, in a few words: "played 13/3", "doubled", "took". */
function actionWords(d) {
  if (d.kind === "play") return d.action ? `played ${d.action}` : "could not move";
  return { double: "doubled", "no double": "did not double", take: "took", pass: "passed", beaver: "beavered" }[d.action] ?? d.action;
}

function bestWords(d) {
  if (d.kind === "play") return d.best || "no move";
  return d.cube?.proper || d.best;
}

/** The error: "0.231" in EMG (and the match-winning chances it cost in a match). */
function errorWords(d) {
  const mwc = typeof d.error_mwc === "number" && d.error_mwc > 0 ? ` (${percent(d.error_mwc)} MWC)` : "";
  return `${fixed(d.error)}${mwc}`;
}

// -- the panel ------------------------------------------------------------------------------

/** Mount the panel; `go(index)` shows a frame of the replay. Returns `{show(index)}`, called
 *  by the replay each time it shows a frame. */
export function mountAnalysis({ id, info, frames, gameStarts, go }) {
  const state = {
    id,
    frames,
    gameStarts,
    go,
    analysis: null,
    byFrame: new Map(),  // frame index -> [decision, ...]
    framesWith: [],      // the frames with a decision, in order
    at: 0,
    timer: 0,
    plies: null,
    size: { W: 640, H: 210 },  // the graph's, in its own units
  };
  const panel = $("analysis");
  const chouette = info?.kind === "chouette";
  if (chouette) {
    panel.hidden = true;
    for (const node of document.querySelectorAll(".match-file")) node.hidden = true;
    return { show() {} };
  }
  const tableId = encodeURIComponent(id);
  for (const fmt of ["mat", "sgf"]) {
    const link = $(`${fmt}-link`);
    link.href = `/api/tables/${tableId}/match.${fmt}`;
    link.setAttribute("download", `table-${id}.${fmt}`);
  }
  $("analyse").addEventListener("click", () => start(state, Number($("analysis-ply").value)));
  $("prev-decision").addEventListener("click", () => jumpDecision(state, -1));
  $("next-decision").addEventListener("click", () => jumpDecision(state, 1));
  if (info && info.status !== "over") {
    say(`The analysis comes when the ${info.length ? "match" : "session"} is over.`);
  } else {
    look(state);
  }
  return {
    show(index) {
      state.at = index;
      if (state.analysis) showFrame(state);
    },
  };
}

function say(text, kind = "") {
  const line = $("analysis-state");
  line.textContent = text;
  line.dataset.kind = kind;
}

async function fetchAnalysis(state, query) {
  const response = await fetch(`/api/tables/${encodeURIComponent(state.id)}/analysis${query}`,
    { headers: { Accept: "application/json" }, credentials: "same-origin" });
  const body = await response.json().catch(() => ({ error: `the server answered ${response.status}` }));
  return { status: response.status, body };
}

/** On opening: whatever analysis the server has (never starts one). */
async function look(state) {
  say("Looking for an analysis…");
  let answer;
  try {
    answer = await fetchAnalysis(state, "?start=false");
  } catch {
    say("The analysis could not be loaded. Check your connection and reload the page.", "error");
    return;
  }
  handle(state, answer, true);
}

/** The Analyse button: ask for the analysis at `plies`, then follow its progress. */
async function start(state, plies) {
  state.plies = plies;
  $("analyse").disabled = true;
  say(`Asking the server to analyse at ${plies} ply…`);
  await poll(state);
}

async function poll(state) {
  clearTimeout(state.timer);
  let answer;
  try {
    answer = await fetchAnalysis(state, `?ply=${state.plies}`);
  } catch {
    say("The server cannot be reached; trying again…", "error");
    state.timer = setTimeout(() => poll(state), 3 * POLL_MS);
    return;
  }
  handle(state, answer, false);
}

function handle(state, { status, body }, looking) {
  const startRow = $("analysis-start");
  const bar = $("analysis-progress");
  if (status === 200) {
    bar.hidden = true;
    startRow.hidden = true;
    render(state, body);
    return;
  }
  if (status === 202) {
    state.plies = body.plies;
    startRow.hidden = true;
    bar.hidden = false;
    const total = body.total || 0;
    if (total) {
      bar.max = total;
      bar.value = body.done;
      say(`Analysing at ${body.plies} ply: ${body.done} of ${total} decisions…`);
    } else {
      bar.removeAttribute("value"); // an indeterminate bar until the first decision
      say(body.status === "queued" ? `Waiting for the analyser (${body.plies} ply)…` : `Analysing at ${body.plies} ply…`);
    }
    state.timer = setTimeout(() => poll(state), POLL_MS);
    return;
  }
  bar.hidden = true;
  if (status === 404 && body.status === "absent" && looking) {
    startRow.hidden = false;
    $("analyse").disabled = false;
    say("Not analysed yet. The server judges every decision of both players with its engine.");
    return;
  }
  startRow.hidden = status === 409;
  $("analyse").disabled = false;
  $("analyse").textContent = status === 500 ? "Try again" : "Analyse";
  say(`No analysis: ${body.error || `the server answered ${status}`}`, "error");
}

// -- showing the analysis ------------------------------------------------------------------------

function render(state, analysis) {
  state.analysis = analysis;
  state.byFrame = new Map();
  for (const d of analysis.decisions || []) {
    if (!(d.event >= 0 && d.event < state.frames.length)) continue;
    if (!state.byFrame.has(d.event)) state.byFrame.set(d.event, []);
    state.byFrame.get(d.event).push(d);
  }
  state.framesWith = [...state.byFrame.keys()].sort((a, b) => a - b);
  const what = analysis.money ? "money session" : `${analysis.length}-point match`;
  say(`Analysed at ${analysis.plies} ply: ${(analysis.decisions || []).length} decisions of the ${what}.`);
  $("analysis-body").hidden = false;
  $("worst-card").hidden = false;
  $("graph-card").hidden = false;
  renderSummary(analysis);
  renderWorst(state);
  renderGraph(state);
  markRecord(state);
  showFrame(state);
  let resizing = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => {
      if (graphSize().W !== state.size.W) renderGraph(state);
    }, 150);
  });
}

function renderSummary(analysis) {
  const table = $("analysis-summary");
  const players = analysis.players || [];
  const head = el("tr", {}, el("th", { scope: "col" }, el("span", { class: "visually-hidden" }, "Figure")),
    ...players.map((p, i) => el("th", { scope: "col", class: `side${i}` }, el("span", { class: "chip", "aria-hidden": "true" }), ` ${p.name}`)));
  const cubeErrors = (p) => {
    const c = p.cube || {};
    return String((c.missed_doubles || 0) + (c.wrong_doubles || 0) + (c.wrong_takes || 0) + (c.wrong_passes || 0));
  };
  const rows = [
    ["Rating", (p) => p.rating || "–", "gnubg's words for the error rate"],
    ["PR", (p) => fixed(p.pr, 2), "performance rating as XG counts it: 500 × the mean error per unforced decision"],
    ["Error rate", (p) => `${fixed(p.rate, 1)} mEMG`, "millipoints given away per unforced decision"],
    ["Errors", (p) => fixed(p.error), "equity given away in all (EMG)"],
    ["Checker", (p) => `${fixed(p.checker?.error)} in ${p.checker?.unforced ?? 0}`, "checker-play error (EMG) in unforced plays"],
    ["Cube errors", cubeErrors, "missed doubles, wrong doubles, wrong takes and wrong passes"],
    ["Luck", (p) => signed(p.luck), "the dice's luck in all (EMG): positive = lucky"],
  ];
  const body = rows.map(([label, value, title]) => el("tr", {},
    el("th", { scope: "row", title }, label), ...players.map((p) => el("td", { class: "num" }, value(p)))));
  table.replaceChildren(
    el("caption", { class: "visually-hidden" }, "Each player's figures"),
    el("thead", {}, head), el("tbody", {}, ...body));
}

function labelBadge(d) {
  if (!d.label) return null;
  return el("span", { class: `err-label err-${d.label.replace(" ", "-")}` }, d.label);
}

function renderWorst(state) {
  const { analysis } = state;
  const worst = (analysis.decisions || [])
    .filter((d) => d.error > 0 && state.byFrame.has(d.event))
    .sort((a, b) => b.error - a.error || a.index - b.index)
    .slice(0, 10);
  const list = $("worst");
  list.replaceChildren();
  if (!worst.length) {
    list.append(el("li", { class: "muted" }, "No errors: every decision was the engine's choice."));
    return;
  }
  for (const d of worst) {
    const button = el("button", { type: "button", class: "worst-step", dataset: { frame: String(d.event), decision: String(d.index) } },
      el("span", { class: "worst-top" }, el("span", { class: "worst-error" }, `−${fixed(d.error)}`), labelBadge(d),
        el("span", { class: "muted" }, `game ${d.game}`)),
      el("span", { class: "worst-what" }, `${who(analysis, d)} ${actionWords(d)}`,
        el("span", { class: "muted" }, ` · best ${bestWords(d)}`)));
    button.addEventListener("click", () => state.go(d.event));
    list.append(el("li", {}, button));
  }
}

function markRecord(state) {
  for (const [frame, decisions] of state.byFrame) {
    const worst = decisions.reduce((a, b) => (b.error > a.error ? b : a));
    if (!worst.label) continue;
    const lines = document.querySelectorAll(`#log li[data-frame="${frame}"]`);
    const li = lines[lines.length - 1];
    if (!li) continue;
    li.dataset.label = worst.label;
    const step = li.querySelector(".step");
    if (step) step.title = `${worst.label}: gave away ${errorWords(worst)}; best ${bestWords(worst)}`;
  }
}

function jumpDecision(state, direction) {
  const frames = state.framesWith;
  const target = direction > 0 ? frames.find((f) => f > state.at) : frames.filter((f) => f < state.at).at(-1);
  if (target !== undefined) state.go(target);
}

function candidateList(d) {
  const list = el("ol", { class: "candidates", "aria-label": "The engine's best plays" });
  for (const c of d.candidates || []) {
    const played = c.move === d.action;
    list.append(el("li", { class: played ? "played" : "" },
      el("code", {}, c.move || "no move"),
      el("span", { class: "num" }, fixed(c.value)),
      el("span", { class: "num muted" }, c.difference ? `−${fixed(Math.abs(c.difference))}` : "best"),
      played ? el("span", { class: "visually-hidden" }, " (played)") : null));
  }
  return list;
}

function cubeTable(d) {
  const c = d.cube;
  if (!c) return null;
  const row = (label, value) => el("tr", {}, el("th", { scope: "row" }, label), el("td", { class: "num" }, fixed(value)));
  return el("table", { class: "ledger cube-table" },
    el("caption", { class: "visually-hidden" }, "The cube's equities"),
    el("tbody", {}, row("No double", c.no_double), row("Double, take", c.double_take), row("Double, pass", c.double_pass)));
}

function decisionBlock(state, d) {
  const { analysis } = state;
  const ok = !(d.error > 0);
  const head = el("p", { class: "decision-head" },
    el("strong", {}, `${who(analysis, d)} ${actionWords(d)}`), " ", labelBadge(d));
  const verdict = el("p", { class: ok ? "decision-ok" : "decision-error" },
    d.forced ? "Forced." : ok ? `The best ${d.kind === "play" ? "play" : "decision"}.` : `Error ${errorWords(d)}; best: `,
    ok || d.forced ? null : el("code", {}, bestWords(d)));
  const block = el("div", { class: "decision", dataset: { decision: String(d.index) } }, head, verdict);
  if (d.kind === "play" && (d.candidates || []).length && !d.forced) block.append(candidateList(d));
  if (d.kind !== "play") {
    const table = cubeTable(d);
    if (table) block.append(table);
    if (d.cube?.proper) block.append(el("p", { class: "muted" }, `Proper cube action: ${d.cube.proper}.`));
  }
  const luck = typeof d.luck === "number" && d.kind === "play" ? el("p", { class: "muted" }, `Luck of the roll: ${signed(d.luck)}`) : null;
  if (luck) block.append(luck);
  return block;
}

function showFrame(state) {
  const box = $("decision");
  const decisions = state.byFrame.get(state.at) || [];
  if (!decisions.length) {
    box.replaceChildren(el("p", { class: "muted" }, "No decision on this step: step on, or jump to the next decision."));
  } else {
    box.replaceChildren(...decisions.map((d) => decisionBlock(state, d)));
  }
  const frames = state.framesWith;
  $("prev-decision").disabled = !frames.some((f) => f < state.at);
  $("next-decision").disabled = !frames.some((f) => f > state.at);
  for (const b of document.querySelectorAll("#worst .worst-step")) {
    if (Number(b.dataset.frame) === state.at) b.setAttribute("aria-current", "step");
    else b.removeAttribute("aria-current");
  }
  moveMarker(state);
}

// -- the graph --------------------------------------------------------------------------------

const PAD = { left: 40, right: 10, top: 14, bottom: 22 };

/** The graph's size in its own units: the width it has on the page (text stays 11px). */
function graphSize() {
  const width = Math.round($("graph").clientWidth) || 640;
  const W = Math.max(280, Math.min(1000, width));
  return { W, H: W < 520 ? 170 : 210 };
}

function scales(state) {
  const { analysis } = state;
  const { W, H } = state.size;
  const n = Math.max(1, state.frames.length - 1);
  let lo = 0, hi = 1;
  if (analysis.money) {
    const biggest = Math.max(1, ...analysis.decisions.map((d) => Math.abs(d.chances || 0)));
    hi = Math.ceil(biggest);
    lo = -hi;
  }
  const x = (frame) => PAD.left + (frame / n) * (W - PAD.left - PAD.right);
  const y = (v) => PAD.top + (1 - (v - lo) / (hi - lo)) * (H - PAD.top - PAD.bottom);
  const frameAt = (px) => Math.round(((px - PAD.left) / (W - PAD.left - PAD.right)) * n);
  return { x, y, lo, hi, frameAt };
}

/** The value of the graph at `frame`: the chances after the last decision at or before it. */
function chancesAt(state, frame) {
  let value = state.analysis.money ? 0 : 0.5;
  for (const f of state.framesWith) {
    if (f > frame) break;
    const ds = state.byFrame.get(f);
    value = ds[ds.length - 1].chances;
  }
  return value;
}

function renderGraph(state) {
  const { analysis } = state;
  const name0 = analysis.names[0] ?? "Player 0";
  const what = analysis.money ? `${name0}'s equity` : `${name0}'s match-winning chances`;
  $("graph-title").textContent = what;
  state.size = graphSize();
  const { W, H } = state.size;
  const { x, y, lo, hi, frameAt } = scales(state);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "graph-svg", role: "img", tabindex: "0",
    "aria-label": `${what} through the ${analysis.money ? "session" : "match"}, one point per decision. `
      + "Click to go to the nearest decision; the arrow keys step through the replay." });
  root.append(svg("title", {}, what));
  // the grid and its labels
  const ticks = analysis.money ? [lo, lo / 2, 0, hi / 2, hi] : [0, 0.25, 0.5, 0.75, 1];
  for (const t of ticks) {
    root.append(svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y(t), y2: y(t), class: t === (analysis.money ? 0 : 0.5) ? "graph-mid" : "graph-grid" }));
    root.append(svg("text", { x: PAD.left - 6, y: y(t) + 4, class: "graph-label", "text-anchor": "end" },
      analysis.money ? (t > 0 ? `+${t}` : `${t}`) : `${Math.round(t * 100)}%`));
  }
  // the games
  for (const g of state.gameStarts) {
    if (g.index === 0) continue;
    root.append(svg("line", { x1: x(g.index), x2: x(g.index), y1: PAD.top - 4, y2: H - PAD.bottom, class: "graph-game" }));
  }
  for (const g of state.gameStarts) {
    const next = state.gameStarts.find((o) => o.index > g.index);
    const end = next ? next.index : state.frames.length - 1;
    if (x(end) - x(g.index) < 24) continue; // too narrow for a label
    const middle = (g.index + end) / 2;
    root.append(svg("text", { x: x(middle), y: H - 6, class: "graph-label", "text-anchor": "middle" }, `G${g.game}`));
  }
  // the line, from 50% (money: 0) before the first decision
  const points = [[x(0), y(analysis.money ? 0 : 0.5)]];
  for (const f of state.framesWith) {
    const ds = state.byFrame.get(f);
    points.push([x(f), y(ds[ds.length - 1].chances)]);
  }
  root.append(svg("polyline", { points: points.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(" "), class: "graph-line" }));
  // the errors as dots
  for (const [f, ds] of state.byFrame) {
    for (const d of ds) {
      if (!d.label) continue;
      const dot = svg("circle", { cx: x(f), cy: y(d.chances), r: d.label === "doubtful" ? 3 : 4.5, class: `graph-dot err-${d.label.replace(" ", "-")}`, "data-frame": f });
      dot.append(svg("title", {}, `Game ${d.game}: ${who(analysis, d)} ${actionWords(d)}, ${d.label} (−${fixed(d.error)})`));
      root.append(dot);
    }
  }
  // the current frame
  root.append(svg("line", { class: "graph-now", y1: PAD.top - 4, y2: H - PAD.bottom, x1: 0, x2: 0 }));
  root.append(svg("circle", { class: "graph-now-dot", r: 4, cx: 0, cy: 0 }));
  root.addEventListener("click", (e) => {
    const matrix = root.getScreenCTM();
    if (!matrix) return;
    const point = new DOMPoint(e.clientX, e.clientY).matrixTransform(matrix.inverse());
    const frame = Math.max(0, Math.min(state.frames.length - 1, frameAt(point.x)));
    const nearest = state.framesWith.reduce((best, f) => (Math.abs(f - frame) < Math.abs(best - frame) ? f : best),
      state.framesWith[0] ?? frame);
    state.go(nearest);
  });
  $("graph").replaceChildren(root);
  moveMarker(state);
}

function moveMarker(state) {
  const root = document.querySelector("#graph .graph-svg");
  if (!root) return;
  const { x, y } = scales(state);
  const px = x(state.at).toFixed(1);
  const line = root.querySelector(".graph-now");
  line.setAttribute("x1", px);
  line.setAttribute("x2", px);
  const dot = root.querySelector(".graph-now-dot");
  const value = chancesAt(state, state.at);
  dot.setAttribute("cx", px);
  dot.setAttribute("cy", y(value).toFixed(1));
  const words = state.analysis.money ? signed(value) : percent(value);
  $("graph-now").textContent = `At this step: ${words}`;
}
