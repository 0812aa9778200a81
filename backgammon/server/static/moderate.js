// The moderators' page: open reports with the chat they kept, kick / ban / close buttons, and
// forms to ban, lift a ban and kick by name. Everyone else is told the page is for moderators.
// Every POST carries the session's CSRF token (from GET /api/me) in X-CSRF-Token.

let csrf = "";

const $ = (id) => document.getElementById(id);

/** Call the JSON API (GET without a body, POST with one); resolves to the body or throws an
 *  Error whose message is the server's sentence. */
async function call(path, body) {
  const init = { headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.headers["X-CSRF-Token"] = csrf;
    init.body = JSON.stringify(body);
  }
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
    throw new Error(data && typeof data.error === "string" ? data.error
      : `The server answered ${response.status} ${response.statusText}.`);
  }
  return data;
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function link(href, text) {
  const a = el("a", text);
  a.href = href;
  return a;
}

function when(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

function say(node, text, ok) {
  node.textContent = text;
  node.className = ok ? "done" : "problem";
}

/** Ask for a reason (required); null when the moderator cancels. */
function askReason(question, fallback = "") {
  for (;;) {
    const answer = window.prompt(question, fallback);
    if (answer === null) return null;
    if (answer.trim()) return answer.trim();
  }
}

function chatList(report) {
  const list = el("ul", null, "chat");
  if (!report.chat.length) list.append(el("li", "(no chat at this table)", "muted"));
  const target = report.target.toLowerCase();
  for (const line of report.chat) {
    const item = el("li", null, line.from.toLowerCase() === target ? "target" : "");
    item.append(el("span", new Date(line.at).toLocaleTimeString(), "at"),
      el("span", line.from + (line.spectator ? " (watching)" : ""), "who"), document.createTextNode(": " + line.text));
    list.append(item);
  }
  return list;
}

function reportCard(report) {
  const card = el("article", null, `card report ${report.status}`);
  card.dataset.report = report.id;
  card.append(el("h2", `#${report.id}: ${report.reporter} reported ${report.target}`));
  const facts = el("p", null, "muted");
  facts.append(`${when(report.created)} at table `, link(report.links.table, report.table),
    " · ", link(report.links.replay, `replay (the report came at move ${report.seq})`));
  if (!report.target_account) facts.append(" · a guest (no account: kick and ban need one)");
  if (report.target_banned_until) facts.append(` · banned until ${when(report.target_banned_until)}`);
  card.append(facts, el("p", `Reason: ${report.reason}`), chatList(report));
  const result = el("p", null);
  if (report.status === "closed") {
    card.append(el("p", `Closed by ${report.handled_by ?? "?"}: ${report.resolution}`, "muted"));
    return card;
  }
  const row = el("div", null, "row");
  const act = async (button, path, body, done) => {
    button.disabled = true;
    try {
      await call(path, body);
      say(result, done, true);
    } catch (error) {
      say(result, error.message, false);
    } finally {
      button.disabled = false;
    }
  };
  const kick = el("button", `Kick ${report.target}`);
  kick.type = "button";
  kick.disabled = !report.target_account;
  kick.addEventListener("click", async () => {
    const reason = askReason(`Why kick ${report.target} from table ${report.table}?`, report.reason);
    if (reason) await act(kick, "/api/moderation/kick", { table: report.table, name: report.target, reason },
      `${report.target} was kicked from the table.`);
  });
  const hours = el("select");
  for (const [value, label] of [["1", "1 hour"], ["24", "1 day"], ["168", "1 week"], ["720", "30 days"], ["", "ever"]]) {
    const option = el("option", label);
    option.value = value;
    hours.append(option);
  }
  hours.value = "24";
  hours.setAttribute("aria-label", "how long");
  const ban = el("button", `Ban ${report.target}`);
  ban.type = "button";
  ban.disabled = !report.target_account;
  hours.disabled = ban.disabled;
  ban.addEventListener("click", async () => {
    const reason = askReason(`Why ban ${report.target}?`, report.reason);
    if (reason) await act(ban, "/api/moderation/ban",
      { name: report.target, hours: hours.value ? Number(hours.value) : null, reason },
      `${report.target} is banned ${hours.value ? "for " + hours.selectedOptions[0].textContent : "for ever"}.`);
  });
  const close = el("button", "Close report");
  close.type = "button";
  close.addEventListener("click", async () => {
    const resolution = askReason("What was done (the resolution)?", "no action needed");
    if (!resolution) return;
    await act(close, `/api/moderation/reports/${report.id}/close`, { resolution }, "Closed.");
    await loadReports();
  });
  const forLabel = el("label", "for ");
  forLabel.append(hours);
  row.append(kick, ban, forLabel, close);
  card.append(row, result);
  return card;
}

async function loadReports() {
  const box = $("reports");
  try {
    const data = await call(`/api/moderation/reports?status=${encodeURIComponent($("filter").value)}`);
    box.replaceChildren(...data.reports.map(reportCard));
    $("empty").hidden = data.reports.length > 0;
  } catch (error) {
    box.replaceChildren(el("p", error.message, "problem"));
  }
}

function formData(form) {
  return Object.fromEntries(new FormData(form).entries());
}

function wireForms() {
  const result = $("form-result");
  const submit = (id, path, body, done) => {
    const form = $(id);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const values = formData(form);
      try {
        await call(path, body(values));
        say(result, done(values), true);
        form.reset();
        await loadReports();
      } catch (error) {
        say(result, error.message, false);
      }
    });
  };
  submit("ban-form", "/api/moderation/ban",
    (v) => ({ name: v.name, hours: v.hours ? Number(v.hours) : null, reason: v.reason }),
    (v) => `${v.name} is banned ${v.hours ? "for " + v.hours + " hours" : "for ever"}.`);
  submit("unban-form", "/api/moderation/unban",
    (v) => (v.reason ? { name: v.name, reason: v.reason } : { name: v.name }),
    (v) => `${v.name}'s ban is lifted.`);
  submit("kick-form", "/api/moderation/kick",
    (v) => ({ table: v.table, name: v.name, reason: v.reason }),
    (v) => `${v.name} was kicked from table ${v.table}.`);
}

async function main() {
  const status = $("status");
  let me;
  try {
    me = await call("/api/me");
  } catch (error) {
    say(status, error.message, false);
    return;
  }
  csrf = me.csrf || "";
  if (!me.user) {
    status.replaceChildren("This page is for moderators. ", link("/login?next=/moderate", "Log in"),
      " with a moderator account to use it.");
    return;
  }
  if (me.user.role !== "moderator") {
    status.textContent = `This page is for moderators only, and ${me.user.name} is not one. ` +
      "If you want to report someone, use the report button at their table.";
    return;
  }
  status.textContent = `Logged in as ${me.user.name} (moderator).`;
  $("tools").hidden = false;
  $("filter").addEventListener("change", loadReports);
  $("refresh").addEventListener("click", loadReports);
  wireForms();
  await loadReports();
}

main();
