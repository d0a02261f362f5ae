// proctor view: the runs found under the given folders, live, with their history and a
// comparison of two of them. Every figure shown is a string the server formatted; the page
// uses the numbers of `chart` only to place points. Data is set with textContent or
// setAttribute, never parsed as markup.
"use strict";

const token = document.querySelector('meta[name="proctor-token"]').getAttribute("content");
const SVG = ["http:", "", "www.w3.org", "2000", "svg"].join("/");
const POLL_MS = 500;
const MISSING = "-";

const state = {
  version: null,
  data: null, // the last full answer of /api/runs
  ledger: [], // ledger series
  sort: { key: "when", descending: true },
  picked: [], // ids, in the order they were picked
  rows: new Map(), // id -> { key, tr }
  historyKey: null,
  updated: null,
  error: null,
};

// ---- helpers ---------------------------------------------------------------------------

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function svg(tag, attrs, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const name in attrs || {}) node.setAttribute(name, String(attrs[name]));
  if (parent) parent.appendChild(node);
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

async function api(path) {
  const response = await fetch(path, { headers: { "X-Proctor-Token": token }, cache: "no-store" });
  let value = null;
  try {
    value = await response.json();
  } catch (e) {
    throw new Error(response.status + " " + response.statusText);
  }
  if (!response.ok) throw new Error((value && value.error) || response.status + " " + response.statusText);
  return value;
}

function route(path, params) {
  const parts = params.map((p) => p[0] + "=" + encodeURIComponent(p[1]));
  parts.push("token=" + encodeURIComponent(token));
  return path + "?" + parts.join("&");
}

function newTabLink(href, text) {
  const a = el("a", text);
  a.setAttribute("href", href);
  a.setAttribute("target", "_blank");
  a.setAttribute("rel", "noopener noreferrer");
  return a;
}

// The server's string already says a lower bound as the table does ("≥ $0.01, 2 unpriced calls").
function lowerBoundText(agent) {
  return agent.cost_per_success;
}

function wordClass(text) {
  const word = String(text === null || text === undefined ? "" : text).toLowerCase().replace(/[^a-z]+/g, "-").replace(/^-+|-+$/g, "");
  return word || "none";
}

function timeOf(when) {
  if (!when) return null;
  const t = Date.parse(when);
  return Number.isNaN(t) ? null : t;
}

// ---- runs table ------------------------------------------------------------------------

function agentLine(agent, child) {
  const line = el("div", null, "agent-line");
  line.setAttribute("data-agent", agent.agent);
  if (child) line.appendChild(child);
  return line;
}

function metric(key, text, cls) {
  const span = el("span", text, cls);
  span.setAttribute("data-metric", key);
  return span;
}

function cell(field) {
  const td = el("td");
  td.setAttribute("data-field", field);
  return td;
}

function buildRow(run) {
  const tr = el("tr", null, "run" + (run.live ? " live" : ""));
  tr.setAttribute("data-id", run.id);

  const pickCell = el("td", null, "pick-cell");
  const pick = el("input", null, "pick");
  pick.type = "checkbox";
  pick.setAttribute("data-id", run.id);
  pick.setAttribute("aria-label", "pick " + run.file + " to compare");
  pick.checked = state.picked.indexOf(run.id) >= 0;
  pick.addEventListener("change", () => setPicked(run.id, pick.checked));
  pickCell.appendChild(pick);
  tr.appendChild(pickCell);

  const file = cell("file");
  const link = newTabLink(route("/run", [["id", run.id]]), run.file);
  link.setAttribute("title", "open the report of " + run.file + (run.run_id ? " (run " + run.run_id + ")" : ""));
  file.appendChild(link);
  if (run.bad_lines) file.appendChild(el("div", run.bad_lines + " unreadable line" + (run.bad_lines === 1 ? "" : "s"), "note bad"));
  // Why `report` would refuse the file (a repeated attempt, two task files): its figures
  // are not the report's.
  if (run.error) file.appendChild(el("div", run.error, "note bad run-error"));
  if (Array.isArray(run.parts) && run.parts.length) {
    const parts = el("div", "merged from " + run.parts.length + " file" + (run.parts.length === 1 ? "" : "s"), "note");
    parts.title = run.parts.join("\n");
    file.appendChild(parts);
  }
  tr.appendChild(file);

  const suite = cell("suite");
  suite.textContent = run.suite_name;
  if (run.suite) suite.setAttribute("title", run.suite + (run.task_file ? " · " + run.task_file : ""));
  tr.appendChild(suite);

  const agents = cell("agents");
  const rate = cell("pass_rate");
  const cost = cell("cost_per_success");
  const verdict = cell("verdict");
  for (const a of run.agents) {
    const name = agentLine(a, el("span", a.agent, "agent-name"));
    name.setAttribute("title", a.agent + ": " + a.attempts + " attempts read");
    name.appendChild(el("span", " (" + a.attempts + ")", "note"));
    agents.appendChild(name);

    const r = agentLine(a, metric("pass_rate", a.pass_rate, "rate"));
    r.appendChild(document.createTextNode(" "));
    r.appendChild(metric("pass_rate_ci", a.pass_rate_ci, "ci"));
    rate.appendChild(r);

    const c = metric("cost_per_success", lowerBoundText(a), a.cost_is_lower_bound ? "lower-bound" : null);
    if (a.cost_is_lower_bound) c.setAttribute("title", "lower bound: some calls were unpriced");
    cost.appendChild(agentLine(a, c));

    const shown = a.verdict === null || a.verdict === undefined ? MISSING : a.verdict;
    const v = metric("verdict", shown, "verdict " + wordClass(shown));
    if (a.verdict_error) v.setAttribute("title", a.verdict_error);
    else if (a.previous) v.setAttribute("title", "against the previous run of this suite and agent");
    verdict.appendChild(agentLine(a, v));
  }
  if (!run.agents.length) {
    agents.textContent = MISSING;
    rate.textContent = MISSING;
    cost.textContent = MISSING;
    verdict.textContent = MISSING;
  }

  const when = cell("when");
  when.textContent = run.when_shown;
  if (run.when) when.setAttribute("title", run.when);

  const progress = cell("progress");
  progress.appendChild(el("span", run.progress, "progress"));
  if (run.live) {
    progress.appendChild(document.createTextNode(" "));
    progress.appendChild(el("span", "live", "badge live"));
    if (run.time_left) progress.appendChild(el("div", run.time_left + " left", "note time-left"));
  }

  tr.appendChild(agents);
  tr.appendChild(when);
  tr.appendChild(progress);
  tr.appendChild(rate);
  tr.appendChild(cost);
  tr.appendChild(verdict);
  return tr;
}

function filters() {
  return {
    suite: document.getElementById("filter-suite").value.trim().toLowerCase(),
    agent: document.getElementById("filter-agent").value.trim().toLowerCase(),
    since: document.getElementById("filter-since").value,
  };
}

function keep(run, f) {
  if (f.suite && (run.suite_name + " " + run.suite).toLowerCase().indexOf(f.suite) < 0) return false;
  if (f.agent && !run.agents.some((a) => a.agent.toLowerCase().indexOf(f.agent) >= 0)) return false;
  if (f.since && (!run.when || run.when.slice(0, 10) < f.since)) return false;
  return true;
}

function sortValue(run, key) {
  const first = run.agents[0];
  switch (key) {
    case "when": return run.when || null;
    case "suite": return run.suite_name.toLowerCase();
    case "agent": return first ? first.agent.toLowerCase() : null;
    case "file": return run.file.toLowerCase();
    case "pass_rate": return first && first.chart && typeof first.chart.pass_rate === "number" ? first.chart.pass_rate : null;
    default: return null;
  }
}

function sorted(runs) {
  const { key, descending } = state.sort;
  const order = new Map(runs.map((r, i) => [r.id, i]));
  return runs.slice().sort((a, b) => {
    const x = sortValue(a, key);
    const y = sortValue(b, key);
    if (x === null && y !== null) return 1; // missing values last either way
    if (y === null && x !== null) return -1;
    if (x !== null && y !== null && x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1);
    return order.get(a.id) - order.get(b.id); // the server's order: newest first
  });
}

function renderRuns() {
  const body = document.getElementById("runs-body");
  const runs = state.data ? state.data.runs : [];
  const f = filters();
  const shown = sorted(runs.filter((r) => keep(r, f)));
  const alive = new Set(runs.map((r) => r.id));
  for (const id of Array.from(state.rows.keys())) {
    if (!alive.has(id)) state.rows.delete(id);
  }
  const wanted = new Set();
  shown.forEach((run, i) => {
    const key = JSON.stringify(run);
    let entry = state.rows.get(run.id);
    if (!entry || entry.key !== key) {
      const tr = buildRow(run);
      if (entry && entry.tr.parentNode === body) body.replaceChild(tr, entry.tr);
      entry = { key: key, tr: tr };
      state.rows.set(run.id, entry);
    }
    wanted.add(entry.tr);
    if (body.children[i] !== entry.tr) body.insertBefore(entry.tr, body.children[i] || null);
  });
  for (const tr of Array.from(body.children)) {
    if (!wanted.has(tr)) body.removeChild(tr);
  }
  for (const th of document.querySelectorAll("#runs th[data-sort]")) {
    const on = th.getAttribute("data-sort") === state.sort.key;
    th.classList.toggle("sorted", on);
    th.classList.toggle("descending", on && state.sort.descending);
    th.setAttribute("aria-sort", on ? (state.sort.descending ? "descending" : "ascending") : "none");
  }
  const empty = document.getElementById("empty");
  if (!runs.length) {
    empty.textContent = state.data && state.data.scanning ? "Looking for runs…" : "No run found under these folders.";
  } else if (!shown.length) {
    empty.textContent = "No run matches the filters.";
  }
  empty.hidden = shown.length > 0;
  document.getElementById("shown-count").textContent = runs.length ? shown.length + " of " + runs.length + " runs shown" : "";
}

// ---- status, roots, notes --------------------------------------------------------------

function two(n) {
  return (n < 10 ? "0" : "") + n;
}

function clock(date) {
  return two(date.getHours()) + ":" + two(date.getMinutes()) + ":" + two(date.getSeconds());
}

function renderStatus() {
  const status = document.getElementById("status");
  const parts = [];
  if (state.data) {
    const live = state.data.runs.filter((r) => r.live).length;
    parts.push("live: " + live + (live === 1 ? " run" : " runs") + " being written");
    if (state.data.scanning) parts.push("scanning the folders…");
    if (state.updated) parts.push("last update " + clock(state.updated));
  }
  if (state.error) parts.push("cannot reach the server: " + state.error + " (trying again)");
  status.textContent = parts.join(" · ");
  status.classList.toggle("error", Boolean(state.error));
  status.classList.toggle("busy", Boolean(state.data && state.data.scanning));
}

function renderHeader() {
  const data = state.data;
  document.getElementById("roots").textContent = data.roots.length ? "Runs under " + data.roots.join(", ") : "";
  const notes = document.getElementById("notes");
  clear(notes);
  for (const note of data.notes || []) notes.appendChild(el("li", note));
  notes.hidden = !(data.notes || []).length;
}

// ---- compare ---------------------------------------------------------------------------

function runById(id) {
  return state.data ? state.data.runs.find((r) => r.id === id) || null : null;
}

function setPicked(id, on) {
  state.picked = state.picked.filter((x) => x !== id);
  if (on) state.picked.push(id);
  renderPicked();
}

// The two picked runs, older first: by `when`, a run without a time counting as older;
// on a tie the server's order (newest first) decides.
function pair() {
  const runs = state.picked.map(runById).filter(Boolean);
  if (runs.length !== 2) return null;
  const index = (r) => state.data.runs.indexOf(r);
  const [a, b] = runs;
  const ta = timeOf(a.when);
  const tb = timeOf(b.when);
  let aOlder;
  if (ta === null || tb === null) aOlder = ta === null && tb !== null ? true : tb === null && ta !== null ? false : index(a) > index(b);
  else aOlder = ta !== tb ? ta < tb : index(a) > index(b);
  return aOlder ? { old: a, new: b } : { old: b, new: a };
}

function commonAgents(p) {
  const newer = new Set(p.new.agents.map((a) => a.agent));
  return p.old.agents.map((a) => a.agent).filter((name) => newer.has(name));
}

function renderPicked() {
  const runs = state.data ? state.data.runs : [];
  const alive = new Set(runs.map((r) => r.id));
  state.picked = state.picked.filter((id) => alive.has(id));
  for (const box of document.querySelectorAll("input.pick")) {
    box.checked = state.picked.indexOf(box.getAttribute("data-id")) >= 0;
  }
  const button = document.getElementById("compare");
  const label = document.getElementById("compare-agent-label");
  const select = document.getElementById("compare-agent");
  const note = document.getElementById("picked");
  const p = pair();
  button.disabled = !p;
  if (!p) {
    label.hidden = true;
    note.textContent = state.picked.length > 2
      ? state.picked.length + " runs picked: pick exactly two."
      : state.picked.length === 1 ? "1 run picked: pick one more." : "Pick two runs to compare them.";
    return;
  }
  note.textContent = "old: " + p.old.file + " (" + p.old.when_shown + ") → new: " + p.new.file + " (" + p.new.when_shown + ")";
  const common = commonAgents(p);
  if (common.length > 1) {
    const before = select.value;
    const current = Array.from(select.options).map((o) => o.value);
    if (current.join("\n") !== common.join("\n")) {
      clear(select);
      for (const name of common) {
        const option = el("option", name);
        option.value = name;
        select.appendChild(option);
      }
      if (common.indexOf(before) >= 0) select.value = before;
    }
    label.hidden = false;
  } else {
    label.hidden = true;
  }
}

// `agent` is given when both runs hold exactly one common agent and either holds several,
// or when they share several (then the one chosen in the select).
function agentFor(p) {
  const common = commonAgents(p);
  if (common.length === 1 && (p.old.agents.length > 1 || p.new.agents.length > 1)) return common[0];
  if (common.length > 1) return document.getElementById("compare-agent").value || common[0];
  return null;
}

function comparisonRow(table, label, key, formatted, always) {
  const present = formatted && Object.prototype.hasOwnProperty.call(formatted, key);
  if (!present && !always) return;
  const value = present ? formatted[key] : null;
  const tr = el("tr");
  tr.appendChild(el("th", label));
  const td = el("td", typeof value === "string" ? value : MISSING, "num");
  td.setAttribute("data-metric", key);
  tr.appendChild(td);
  table.appendChild(tr);
}

async function compare() {
  const p = pair();
  if (!p) return;
  const agent = agentFor(p);
  const params = [["old", p.old.id], ["new", p.new.id]];
  if (agent !== null) params.push(["agent", agent]);
  const box = document.getElementById("comparison");
  clear(box);
  box.appendChild(el("h2", "Compare"));
  box.appendChild(el("p", "old: " + p.old.file + " → new: " + p.new.file + (agent !== null ? " (agent " + agent + ")" : "") + "…", "note"));
  box.setAttribute("data-state", "loading");
  const button = document.getElementById("compare");
  button.disabled = true;
  let answer;
  try {
    answer = await api(route("/api/compare", params));
  } catch (e) {
    clear(box);
    box.appendChild(el("h2", "Compare"));
    box.appendChild(el("p", "old: " + p.old.file + " → new: " + p.new.file, "note"));
    box.appendChild(el("p", "The comparison failed: " + e.message, "error"));
    box.setAttribute("data-state", "error");
    renderPicked();
    return;
  }
  clear(box);
  const c = answer.comparison || {};
  const f = c.formatted || {};
  box.appendChild(el("h2", "Compare"));
  const side = (s, run) => (s && s.file ? s.file : run.file) + (s && s.label ? " (" + s.label + ")" : "");
  box.appendChild(el("p", "old: " + side(c.old, p.old) + " → new: " + side(c.new, p.new), "sides"));
  box.appendChild(el("p", answer.command, "command"));
  const verdictLine = el("p", "verdict: ", "verdict-line");
  const verdict = el("span", c.verdict === undefined || c.verdict === null ? MISSING : c.verdict, "verdict " + wordClass(c.verdict));
  verdict.setAttribute("data-metric", "verdict");
  verdictLine.appendChild(verdict);
  box.appendChild(verdictLine);
  const table = el("table", null, "metrics");
  comparisonRow(table, "pass@1 old (mean over tasks)", "old.pass_at_1", f, true);
  comparisonRow(table, "pass@1 new (mean over tasks)", "new.pass_at_1", f, true);
  comparisonRow(table, "Δ (new − old)", "delta.estimate", f, true);
  comparisonRow(table, "Δ 95% CI", "delta.ci", f, true);
  comparisonRow(table, "SE (clustered by task)", "delta.se", f, false);
  comparisonRow(table, "pass^k Δ", "pass_hat_k_delta.estimate", f, false);
  comparisonRow(table, "pass^k Δ 95% CI", "pass_hat_k_delta.ci", f, false);
  comparisonRow(table, "exact sign-flip p", "sign_flip_p", f, true);
  comparisonRow(table, "McNemar exact p", "mcnemar.p", f, false);
  comparisonRow(table, "minimum detectable effect", "mde", f, false);
  comparisonRow(table, "cost per success old", "old.cost_per_success.usd", f, true);
  comparisonRow(table, "cost per success new", "new.cost_per_success.usd", f, true);
  box.appendChild(table);
  if (Array.isArray(c.notes) && c.notes.length) {
    const notes = el("ul", null, "notes");
    for (const n of c.notes) notes.appendChild(el("li", String(n)));
    box.appendChild(notes);
  }
  const more = el("p");
  more.appendChild(newTabLink(route("/compare", params), "The whole comparison (per task, regressions, fixes)"));
  box.appendChild(more);
  box.setAttribute("data-state", "done");
  renderPicked();
}

// ---- history ---------------------------------------------------------------------------

const W = 560;
const PAD = { left: 70, right: 14, top: 10, bottom: 22 };
const RATE_H = 170;
const COST_H = 100;

function seriesOf(runs, ledger) {
  const groups = new Map();
  const group = (suite, suiteName, agent) => {
    const key = JSON.stringify([suite, agent]);
    if (!groups.has(key)) groups.set(key, { suite: suite, suiteName: suiteName, agent: agent, runs: [], ledger: [] });
    return groups.get(key);
  };
  for (const run of runs) {
    for (const a of run.agents) {
      if (!a.chart || timeOf(run.when) === null) continue;
      group(run.suite || run.suite_name, run.suite_name, a.agent).runs.push({ run: run, agent: a, t: timeOf(run.when) });
    }
  }
  for (const s of ledger) {
    // A ledger series joins the runs of its suite, named by digest or as shown.
    let target = null;
    for (const g of groups.values()) {
      // `ledger add` names a suite by the first 12 hex digits of its task digest unless
      // given --suite NAME.
      const byDigest = /^[0-9a-f]{12,}$/.test(String(s.suite)) && String(g.suite).replace(/^sha256:/, "").startsWith(s.suite);
      if (g.agent === s.agent && (g.suite === s.suite || g.suiteName === s.suite || byDigest)) target = g;
    }
    if (!target) target = group(s.suite, s.suite, s.agent);
    for (const point of s.points || []) {
      const t = timeOf(point.when);
      if (t !== null && typeof point.cost === "number") target.ledger.push({ point: point, t: t });
    }
  }
  const list = Array.from(groups.values());
  for (const g of list) {
    g.runs.sort((x, y) => x.t - y.t);
    g.ledger.sort((x, y) => x.t - y.t);
  }
  list.sort((x, y) => (x.suiteName + "\n" + x.agent < y.suiteName + "\n" + y.agent ? -1 : 1));
  return list;
}

function ticks(t0, t1) {
  const n = t1 - t0 < 1 ? 1 : 4;
  const out = [];
  for (let i = 0; i <= n; i++) out.push(n === 1 ? t0 : t0 + ((t1 - t0) * i) / n);
  return out;
}

function dateLabel(t, span) {
  const iso = new Date(t).toISOString();
  return span < 2 * 86400000 ? iso.slice(5, 10) + " " + iso.slice(11, 16) : iso.slice(0, 10);
}

function frame(height, label) {
  const root = svg("svg", { viewBox: "0 0 " + W + " " + height, width: W, height: height, class: "chart", role: "img" });
  svg("title", {}, root).textContent = label;
  svg("rect", { x: PAD.left, y: PAD.top, width: W - PAD.left - PAD.right, height: height - PAD.top - PAD.bottom, class: "plot" }, root);
  return root;
}

function xAxis(root, height, t0, t1, x) {
  const y = height - PAD.bottom;
  const all = ticks(t0, t1);
  all.forEach((t, i) => {
    svg("line", { x1: x(t), x2: x(t), y1: y, y2: y + 4, class: "tick" }, root);
    const anchor = all.length > 1 && i === 0 ? "start" : all.length > 1 && i === all.length - 1 ? "end" : "middle";
    const text = svg("text", { x: x(t), y: y + 16, class: "axis", "text-anchor": anchor }, root);
    text.textContent = dateLabel(t, t1 - t0);
  });
}

function yLabel(root, y, text) {
  svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y, y2: y, class: "grid" }, root);
  const label = svg("text", { x: PAD.left - 6, y: y + 4, class: "axis", "text-anchor": "end" }, root);
  label.textContent = text;
}

function pointTitle(node, text) {
  svg("title", {}, node).textContent = text;
}

function drawSeries(g) {
  const figure = el("figure", null, "series");
  figure.setAttribute("data-suite", g.suite);
  figure.setAttribute("data-agent", g.agent);
  const caption = el("figcaption");
  caption.appendChild(el("span", g.suiteName, "suite-name"));
  caption.appendChild(document.createTextNode(" · "));
  caption.appendChild(el("span", g.agent, "agent-name"));
  caption.appendChild(el("span", " · " + g.runs.length + (g.runs.length === 1 ? " run" : " runs"), "note"));
  figure.appendChild(caption);

  const times = g.runs.map((p) => p.t).concat(g.ledger.map((p) => p.t));
  let t0 = Math.min.apply(null, times);
  let t1 = Math.max.apply(null, times);
  if (t1 - t0 < 1) {
    t0 -= 43200000;
    t1 += 43200000;
  }
  const x = (t) => PAD.left + ((t - t0) / (t1 - t0)) * (W - PAD.left - PAD.right);

  if (g.runs.length) {
    const rate = frame(RATE_H, "pass rate of " + g.agent + " on " + g.suiteName + " over time");
    rate.classList.add("rate-chart");
    const y = (v) => PAD.top + (1 - Math.max(0, Math.min(1, v))) * (RATE_H - PAD.top - PAD.bottom);
    yLabel(rate, y(0), "0%");
    yLabel(rate, y(0.5), "50%");
    yLabel(rate, y(1), "100%");
    const banded = g.runs.filter((p) => typeof p.agent.chart.low === "number" && typeof p.agent.chart.high === "number");
    if (banded.length > 1) {
      const upper = banded.map((p) => x(p.t) + "," + y(p.agent.chart.high));
      const lower = banded.slice().reverse().map((p) => x(p.t) + "," + y(p.agent.chart.low));
      svg("polygon", { points: upper.concat(lower).join(" "), class: "band" }, rate);
    }
    for (const p of banded) {
      svg("line", { x1: x(p.t), x2: x(p.t), y1: y(p.agent.chart.low), y2: y(p.agent.chart.high), class: "whisker" }, rate);
    }
    const placed = g.runs.filter((p) => typeof p.agent.chart.pass_rate === "number");
    if (placed.length > 1) svg("polyline", { points: placed.map((p) => x(p.t) + "," + y(p.agent.chart.pass_rate)).join(" "), class: "line" }, rate);
    for (const p of placed) {
      const dot = svg("circle", { cx: x(p.t), cy: y(p.agent.chart.pass_rate), r: 4, class: "point" + (p.run.live ? " live" : "") }, rate);
      dot.setAttribute("data-run", p.run.id);
      pointTitle(dot, p.run.file + " · " + p.run.when_shown + "\npass rate " + p.agent.pass_rate + " " + p.agent.pass_rate_ci + (p.run.live ? "\n(live: " + p.run.progress + ")" : ""));
    }
    xAxis(rate, RATE_H, t0, t1, x);
    figure.appendChild(rate);
  }

  const costRuns = g.runs.filter((p) => typeof p.agent.chart.cost === "number");
  if (costRuns.length || g.ledger.length) {
    const points = costRuns.map((p) => ({
      t: p.t, cost: p.agent.chart.cost, lower: Boolean(p.agent.cost_is_lower_bound), run: p.run, shown: p.agent.cost_usd,
      text: p.run.file + " · " + p.run.when_shown + "\ncost per success " + lowerBoundText(p.agent),
    })).concat(g.ledger.map((p) => ({
      t: p.t, cost: p.point.cost, lower: Boolean(p.point.lower_bound), run: null, shown: p.point.cost_per_success,
      text: "ledger · " + p.point.when + "\ncost per success " + (p.point.lower_bound && p.point.cost_per_success !== MISSING ? "≥ " : "") + p.point.cost_per_success,
    })));
    let top = points[0];
    for (const p of points) if (p.cost > top.cost) top = p;
    const max = top.cost > 0 ? top.cost : 1;
    const cost = frame(COST_H, "cost per success of " + g.agent + " on " + g.suiteName + " over time");
    cost.classList.add("cost-chart");
    const y = (v) => PAD.top + (1 - Math.max(0, v) / max) * (COST_H - PAD.top - PAD.bottom);
    yLabel(cost, y(0), "$0");
    // The top of the axis is the highest point, labelled with the server's own string.
    if (top.cost > 0) yLabel(cost, y(top.cost), (top.lower ? "≥ " : "") + top.shown);
    const runLine = points.filter((p) => p.run).sort((a, b) => a.t - b.t);
    if (runLine.length > 1) svg("polyline", { points: runLine.map((p) => x(p.t) + "," + y(p.cost)).join(" "), class: "line cost" }, cost);
    for (const p of points) {
      const cls = "point cost" + (p.run ? "" : " ledger") + (p.lower ? " lower-bound" : "");
      const dot = svg("circle", { cx: x(p.t), cy: y(p.cost), r: p.run ? 4 : 3.5, class: cls }, cost);
      if (p.run) dot.setAttribute("data-run", p.run.id);
      pointTitle(dot, p.text + (p.lower ? "\nlower bound (unpriced calls)" : ""));
    }
    xAxis(cost, COST_H, t0, t1, x);
    figure.appendChild(el("div", "cost per success" + (g.ledger.length ? " (runs, and the ledger as small points)" : ""), "chart-label"));
    figure.appendChild(cost);
  } else {
    figure.appendChild(el("div", "cost per success: not known for these runs", "chart-label note"));
  }
  return figure;
}

function renderHistory() {
  const runs = state.data ? state.data.runs : [];
  const f = filters();
  const shown = runs.filter((r) => keep(r, f));
  const ledger = state.ledger.map((s) => ({
    suite: s.suite, agent: s.agent,
    points: (s.points || []).filter((p) => !f.since || String(p.when).slice(0, 10) >= f.since),
  }));
  // A run kept for one agent may hold others: chart only the agents the filter names; a
  // ledger series without runs shown is kept when its own suite matches.
  const series = seriesOf(shown, ledger).filter((g) =>
    (!f.agent || g.agent.toLowerCase().indexOf(f.agent) >= 0) &&
    (g.runs.length > 0 || !f.suite || (g.suite + " " + g.suiteName).toLowerCase().indexOf(f.suite) >= 0) &&
    (g.runs.length > 0 || g.ledger.length > 0));
  const key = JSON.stringify([runs.length, series.map((g) => [g.suite, g.agent, g.runs.map((p) => [p.run.id, p.run.when_shown, p.run.file, p.run.live, p.run.progress, p.agent]), g.ledger.map((p) => p.point)])]);
  if (key === state.historyKey) return;
  state.historyKey = key;
  const box = document.getElementById("series");
  clear(box);
  if (!series.length) {
    box.appendChild(el("p", runs.length ? "No run with a time to place on a chart." : "No run yet.", "note"));
    return;
  }
  for (const g of series) box.appendChild(drawSeries(g));
}

// ---- loading ---------------------------------------------------------------------------

function render() {
  renderRuns();
  renderPicked();
  renderHistory();
  renderStatus();
}

async function loadLedger() {
  try {
    const answer = await api("/api/ledger");
    state.ledger = Array.isArray(answer.series) ? answer.series : [];
  } catch (e) {
    state.ledger = [];
  }
}

async function poll() {
  try {
    const path = state.version === null ? "/api/runs" : "/api/runs?since=" + encodeURIComponent(state.version);
    const answer = await api(path);
    state.error = null;
    if (!answer.unchanged && answer.version !== state.version) {
      state.version = answer.version;
      state.data = answer;
      state.updated = new Date();
      renderHeader();
      render();
    } else {
      renderStatus();
    }
  } catch (e) {
    state.error = e.message;
    renderStatus();
  }
  document.body.setAttribute("data-ready", "true");
  setTimeout(poll, POLL_MS);
}

function start() {
  for (const th of document.querySelectorAll("#runs th[data-sort]")) {
    th.tabIndex = 0;
    const sortBy = () => {
      const key = th.getAttribute("data-sort");
      if (state.sort.key === key) state.sort.descending = !state.sort.descending;
      else state.sort = { key: key, descending: key === "when" || key === "pass_rate" };
      renderRuns();
    };
    th.addEventListener("click", sortBy);
    th.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        sortBy();
      }
    });
  }
  for (const id of ["filter-suite", "filter-agent", "filter-since"]) {
    document.getElementById(id).addEventListener("input", () => {
      renderRuns();
      renderHistory();
    });
  }
  document.getElementById("compare").addEventListener("click", compare);
  // Ledger points join the charts when they come; the ledger is read again now and then.
  loadLedger().then(() => {
    state.historyKey = null;
    if (state.data) renderHistory();
  });
  setInterval(() => {
    loadLedger().then(() => { if (state.data) renderHistory(); });
  }, 30000);
  poll();
}

start();
