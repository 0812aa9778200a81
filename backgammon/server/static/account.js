// The account in the browser: who is logged in (GET /api/me), the session's CSRF token on
// every POST, the account bar of every page, and the login page (/login).
// docs/CLUB-DESIGN.md ("Server: accounts") is the contract with the server.

let cached = null;

/** `{user: {name, role, rating, experience} | null, csrf: string | null}`, asked of the server
 *  once per page (`refresh: true` asks again). Never rejects: without an answer, a guest. */
export function me({ refresh = false } = {}) {
  if (cached === null || refresh) {
    cached = fetch("/api/me", { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then((response) => (response.ok ? response.json() : null))
      .then((data) => ({ user: data?.user ?? null, csrf: data?.csrf ?? null }))
      .catch(() => ({ user: null, csrf: null }));
  }
  return cached;
}

/** The headers that let a state-changing request through: `{"X-CSRF-Token": ...}` with a
 *  session, `{}` without one. */
export async function csrfHeaders() {
  const { csrf } = await me();
  return csrf ? { "X-CSRF-Token": csrf } : {};
}

async function send(url, body) {
  const headers = { "Content-Type": "application/json", Accept: "application/json", ...(await csrfHeaders()) };
  let response;
  try {
    response = await fetch(url, { method: "POST", headers, credentials: "same-origin", body: JSON.stringify(body ?? {}) });
  } catch {
    throw new Error("The server cannot be reached. Check your connection and try again.");
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  return { response, data };
}

/** POST `body` as JSON with the CSRF token; resolves to the answer, or throws an Error whose
 *  message is the server's sentence. When the session changed meanwhile (another tab logged
 *  in or out), the token is fetched again and the request sent once more. */
export async function postJSON(url, body) {
  const before = (await me()).csrf;
  let { response, data } = await send(url, body);
  if (response.status === 403 && (await me({ refresh: true })).csrf !== before) {
    ({ response, data } = await send(url, body));
  }
  if (!response.ok) {
    const sentence = data && typeof data.error === "string" ? data.error
      : `The server answered ${response.status} ${response.statusText}.`;
    const error = new Error(sentence);
    error.status = response.status;
    error.retryAfter = Number(response.headers.get("Retry-After")) || null;
    throw error;
  }
  if (data && "csrf" in data && "user" in data) cached = Promise.resolve({ user: data.user, csrf: data.csrf });
  return data;
}

/** A rating as shown: a whole number. */
export function ratingText(rating) {
  return Number.isFinite(rating) ? String(Math.round(rating)) : "—";
}

/** Where the login page goes back to: `?next=/path` on this site, else the lobby. */
export function nextPath(search = location.search) {
  const next = new URLSearchParams(search).get("next");
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}

function link(href, text, testid) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  if (testid) a.dataset.testid = testid;
  return a;
}

function ensureStyles() {
  if (document.querySelector('link[href="/static/account.css"]')) return;
  const sheet = document.createElement("link");
  sheet.rel = "stylesheet";
  sheet.href = "/static/account.css";
  document.head.append(sheet);
}

/** Log out (the server ends the session and clears the cookie); resolves to me()'s answer. */
export async function logout() {
  await postJSON("/api/logout", {});
  return me({ refresh: true });
}

/** Fill `element` with the account bar: "Log in / Register", or "name (rating) · Profile ·
 *  Log out". */
export async function renderAccountBar(element) {
  ensureStyles();
  const { user } = await me();
  element.classList.add("account");
  element.replaceChildren();
  if (!user) {
    const here = location.pathname + location.search;
    const href = location.pathname === "/login" ? "/login" : `/login?next=${encodeURIComponent(here)}`;
    element.append(link(href, "Log in / Register", "login-link"));
    return;
  }
  const profile = `/u/${encodeURIComponent(user.name)}`;
  const name = document.createElement("strong");
  name.dataset.testid = "account-name";
  name.textContent = user.name;
  const rating = user.role === "bot" ? "" : ` (${ratingText(user.rating)})`;
  const out = document.createElement("button");
  out.type = "button";
  out.className = "link";
  out.textContent = "Log out";
  out.dataset.testid = "logout";
  out.addEventListener("click", async () => {
    out.disabled = true;
    try {
      await logout();
      location.reload();
    } catch (e) {
      out.disabled = false;
      out.title = e.message;
    }
  });
  element.append(name, rating, " · ", link(profile, "Profile", "profile-link"), " · ", out);
}

/** The guest seats this browser holds (the lobby keeps them as `bg.tokens.<table>`):
 *  `[{table, token}]`, at most 200. Registering sends them; the server keeps only those held
 *  under the new account's name. */
export function guestSeats() {
  const seats = [];
  try {
    for (let i = 0; i < localStorage.length && seats.length < 200; i += 1) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith("bg.tokens.")) continue;
      const table = key.slice("bg.tokens.".length);
      const tokens = JSON.parse(localStorage.getItem(key) ?? "{}");
      for (const token of Object.values(tokens ?? {})) {
        if (typeof token === "string" && seats.length < 200) seats.push({ table, token });
      }
    }
  } catch {
    // storage disabled or damaged: nothing to claim
  }
  return seats;
}

// -- the login page --------------------------------------------------------------------------

function show(element, text) {
  element.textContent = text;
  element.hidden = !text;
}

function wire(form, submit) {
  const error = form.querySelector(".error");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    show(error, "");
    button.disabled = true;
    try {
      await submit(new FormData(form));
    } catch (e) {
      show(error, e.message);
      button.disabled = false;
    }
  });
}

/** The login page: log in, register, and — once logged in — change the password or log out. */
export async function startLoginPage() {
  const $ = (id) => document.getElementById(id);
  const bar = $("account");
  if (bar) await renderAccountBar(bar);
  const { user } = await me();
  $("guest-forms").hidden = Boolean(user);
  $("account-forms").hidden = !user;
  if (user) {
    $("me-name").textContent = user.name;
    $("me-profile").href = `/u/${encodeURIComponent(user.name)}`;
    $("password-form").elements.username.value = user.name; // for password managers
  } else {
    let name = "";
    try {
      name = JSON.parse(localStorage.getItem("bg.name") ?? '""');
    } catch {
      name = "";
    }
    if (typeof name === "string" && name) {
      $("login-name").value = name;
      $("register-name").value = name;
    }
  }
  const done = () => location.assign(nextPath());

  wire($("login-form"), async (data) => {
    await postJSON("/api/login", { name: data.get("name"), password: data.get("password") });
    done();
  });
  wire($("register-form"), async (data) => {
    if (data.get("password") !== data.get("confirm")) throw new Error("The two passwords differ: type the same one twice.");
    const name = String(data.get("name")).trim();
    await postJSON("/api/register", { name, password: data.get("password"), seats: guestSeats() });
    try {
      localStorage.setItem("bg.name", JSON.stringify(name));
    } catch {
      // storage disabled: nothing to keep
    }
    done();
  });
  wire($("password-form"), async (data) => {
    if (data.get("new") !== data.get("confirm")) throw new Error("The two new passwords differ: type the same one twice.");
    await postJSON("/api/password", { old: data.get("old"), new: data.get("new") });
    $("password-form").reset();
    $("password-form").querySelector("button[type=submit]").disabled = false;
    show($("password-done"), "Your password is changed; your other sessions are logged out.");
  });
  $("logout-button").addEventListener("click", async () => {
    try {
      await logout();
    } finally {
      location.reload();
    }
  });
}

if (document.body?.dataset.page === "login") startLoginPage();
