// Talking to the server: the HTTP API, seat tokens and names kept in this browser, and
// WebSockets that reconnect by themselves (docs/PROTOCOL.md is the contract).

export const PROTOCOL = 1;

// A logged-in person's POSTs go through account.js's postJSON, which adds the session's CSRF
// token (X-CSRF-Token) and fetches it again if the session changed (docs/CLUB-DESIGN.md).
let postJSON = null;

/** Call the JSON API; resolves to the body, or throws an Error whose message is the
 *  server's sentence (`{"error": ...}`) or says that the server cannot be reached.
 *  Once `loadAccount` found a session, POSTs go through account.js's `postJSON`. */
export async function api(path, body) {
  if (body !== undefined && postJSON) return postJSON(path, body);
  const init = body === undefined
    ? { headers: { Accept: "application/json" }, credentials: "same-origin" }
    : { method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(body) };
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new Error("The server cannot be reached. Check your connection and try again.");
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const sentence = data && typeof data.error === "string" ? data.error
      : `The server answered ${response.status} ${response.statusText}.`;
    throw new Error(sentence);
  }
  return data;
}

// -- what this browser keeps -------------------------------------------------------------

function readJSON(key, fallback) {
  try {
    const raw = localStorage.getItem(key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

function writeJSON(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // storage full or disabled: the page still works for this visit
  }
}

/** The seat tokens this browser holds for table `id`: {seat name: token}. */
export function tokensFor(id) {
  const tokens = readJSON(`bg.tokens.${id}`, {});
  return tokens && typeof tokens === "object" ? tokens : {};
}

/** Add `tokens` ({seat name: token}) to those kept for table `id`. */
export function keepTokens(id, tokens) {
  writeJSON(`bg.tokens.${id}`, { ...tokensFor(id), ...tokens });
}

/** The guest name chosen in this browser ("" if none yet). */
export function guestName() {
  const name = readJSON("bg.name", "");
  return typeof name === "string" ? name : "";
}

export function keepGuestName(name) {
  writeJSON("bg.name", name.trim());
}

export { readJSON, writeJSON };

// -- the account (account.js, written for the login page; guarded: a page works without it) --

/** Who is logged in: `{user: {name, role, rating, experience} | null, account: the account.js
 *  module | null}`. Fills `#account` with the account bar when the page has one. Never throws:
 *  without account.js or /api/me the person is a guest. */
export async function loadAccount() {
  let module = null;
  try {
    module = await import("/static/account.js");
  } catch {
    return { user: null, account: null };
  }
  let user = null;
  try {
    const answer = await module.me();
    user = answer?.user ?? null;
    if (user && typeof module.postJSON === "function") postJSON = module.postJSON;
  } catch {
    user = null;
  }
  const bar = document.getElementById("account");
  if (bar) {
    try {
      await module.renderAccountBar(bar);
    } catch {
      // the bar is a convenience: the page goes on without it
    }
  }
  return { user, account: module };
}

/** Random bytes as hex (crypto.getRandomValues): the browser's share of the dice. */
export function randomHex(bytes = 32) {
  const buffer = new Uint8Array(bytes);
  crypto.getRandomValues(buffer);
  return Array.from(buffer, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function wsURL(path) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}

/** Close codes after which reconnecting is pointless: 4403 (kicked or banned), 4404 (no such table). */
const FINAL_CODES = new Set([4403, 4404]);

/** A WebSocket that reconnects by itself: 0.5 s, doubling to 10 s, with jitter.
 *  callbacks: onOpen(socket) (say hello here), onMessage(data), onStatus(connected: bool),
 *  onEnd(code) (the server closed for good: 4403 or 4404; no reconnecting after it). */
export class Connection {
  constructor(path, callbacks) {
    this.path = path;
    this.callbacks = callbacks;
    this.delay = 500;
    this.socket = null;
    this.closed = false;
    this.timer = null;
    this.open();
  }

  open() {
    if (this.closed) return;
    let socket;
    try {
      socket = new WebSocket(wsURL(this.path));
    } catch {
      this.retry();
      return;
    }
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.delay = 500;
      this.callbacks.onStatus?.(true);
      this.callbacks.onOpen?.(this);
    });
    socket.addEventListener("message", (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      this.callbacks.onMessage?.(data);
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (FINAL_CODES.has(event.code)) {
        this.closed = true;
        this.callbacks.onEnd?.(event.code);
        return;
      }
      if (this.closed) return;
      this.callbacks.onStatus?.(false);
      this.retry();
    });
  }

  retry() {
    if (this.closed) return;
    const wait = this.delay * (0.75 + Math.random() * 0.5);
    this.delay = Math.min(this.delay * 2, 10000);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), wait);
  }

  get connected() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  /** Send a message; false when the connection is down (the caller says so). */
  send(message) {
    if (!this.connected) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /** Close for good (no reconnecting, no status callback). */
  close() {
    this.closed = true;
    clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = null;
    socket?.close();
  }
}
