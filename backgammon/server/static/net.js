// Talking to the server: the HTTP API, seat tokens and names kept in this browser, and
// WebSockets that reconnect by themselves (docs/PROTOCOL.md is the contract).

export const PROTOCOL = 1;

/** Call the JSON API; resolves to the body, or throws an Error whose message is the
 *  server's sentence (`{"error": ...}`) or says that the server cannot be reached. */
export async function api(path, body) {
  const init = body === undefined
    ? { headers: { Accept: "application/json" } }
    : { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(body) };
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

/** A WebSocket that reconnects by itself: 0.5 s, doubling to 10 s, with jitter.
 *  callbacks: onOpen(socket) (say hello here), onMessage(data), onStatus(connected: bool). */
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
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      this.socket = null;
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

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.socket?.close();
  }
}
