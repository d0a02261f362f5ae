// proctor review: label judged attempts PASS or FAIL. Every piece of data is set with
// textContent; the server computes every number shown.
"use strict";

const token = document.querySelector('meta[name="proctor-token"]').getAttribute("content");
let state = null;
let current = 0;
let busy = false;
let loaded = -1;

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

async function api(path, body) {
  const options = { headers: { "X-Proctor-Token": token }, cache: "no-store" };
  if (body !== undefined) {
    options.method = "POST";
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const value = await response.json();
  if (!response.ok) throw new Error(value.error || response.statusText);
  return value;
}

function fixed(x) {
  return x === null || x === undefined ? "–" : x.toFixed(4);
}

function name(a) {
  return a.task + " #" + a.attempt + (a.agent ? " (" + a.agent + ")" : "");
}

function firstOpen(from) {
  const n = state.attempts.length;
  for (let k = 0; k < n; k++) {
    const i = (from + k) % n;
    if (!state.attempts[i].mine) return i;
  }
  return -1;
}

function renderHeader() {
  const t = state.totals;
  document.getElementById("who").textContent =
    "Rater " + state.rater + ", labels in " + state.labels_file +
    (state.show_judge ? " (judge shown)" : " (blind: the judge's verdict is hidden)");
  const plan = state.plan;
  document.getElementById("plan").textContent = plan
    ? "Sample of " + plan.size + " (seed " + plan.seed + "): " + plan.judge_pass + " judge-PASS of " +
      plan.available_pass + ", " + plan.judge_fail + " judge-FAIL of " + plan.available_fail +
      ", split by " + (plan.rule === "even" ? "halves (too few labels for the advice yet)" : plan.rule)
    : "Every judged attempt: " + state.attempts.length + ", judge-PASS first";
  const done = state.attempts.filter((a) => a.mine).length;
  document.getElementById("totals").textContent =
    "You labelled " + done + " of " + state.attempts.length + ". The file holds " + t.labels +
    " labels (" + t.human_pass + " PASS, " + t.human_fail + " FAIL) by " + t.raters + " rater(s).";
}

function renderList() {
  const list = document.getElementById("list");
  clear(list);
  state.attempts.forEach((a, i) => {
    const item = el("button", null, "item" + (i === current ? " current" : "") + (a.mine ? " done" : ""));
    item.type = "button";
    item.dataset.index = String(i);
    item.appendChild(el("span", name(a), "name"));
    const marks = [a.labels + (a.labels === 1 ? " label" : " labels")];
    if (a.mine) marks.push("you: " + a.mine.human);
    if (a.judge) marks.push("judge: " + a.judge);
    item.appendChild(el("span", marks.join(" · "), "count"));
    item.addEventListener("click", () => go(i));
    list.appendChild(item);
  });
}

function renderCalibration() {
  const c = state.calibration;
  document.getElementById("cal-command").textContent = state.calibration_command;
  document.getElementById("cal-error").textContent = c.error || "";
  const correction = c.correction || {};
  const ci = correction.corrected_pass_rate_ci;
  const values = {
    "cal-n": c.n === undefined ? "–" : String(c.n),
    "cal-tpr": fixed(c.tpr),
    "cal-tnr": fixed(c.tnr),
    "cal-kappa": fixed(c.cohen_kappa),
    "cal-raw": fixed(correction.raw_pass_rate),
    "cal-corrected": fixed(correction.corrected_pass_rate),
    "cal-interval": ci ? "[" + fixed(ci.low) + ", " + fixed(ci.high) + "]" : "–",
  };
  for (const id in values) document.getElementById(id).textContent = values[id];
  const warnings = document.getElementById("cal-warnings");
  clear(warnings);
  (c.warnings || []).concat(c.problems || []).forEach((w) => warnings.appendChild(el("li", w)));
}

function section(parent, title, text, cls) {
  parent.appendChild(el("h3", title));
  parent.appendChild(el("pre", text === null || text === undefined ? "(none)" : text, cls));
}

function renderFiles(parent, files) {
  parent.appendChild(el("h3", "End state (what the judge saw)"));
  if (!files.sandbox) {
    parent.appendChild(el("p", "No kept sandbox was found for this attempt under --keep: the judge's files cannot be shown."));
    return;
  }
  if (files.globs.length) parent.appendChild(el("p", "judge_files: " + files.globs.join(", ")));
  if (!files.entries.length) parent.appendChild(el("p", "No files."));
  for (const f of files.entries) {
    const box = el("div", null, "file");
    box.appendChild(el("p", f.path + " — " + f.status + ", " + f.size + " bytes", "path"));
    if (f.kind === "text") {
      box.appendChild(el("pre", f.text, "content"));
      if (f.hidden > 0) box.appendChild(el("p", "[cut: " + f.hidden + " more bytes not shown, as for the judge]", "cut"));
    } else if (f.kind === "symlink") {
      box.appendChild(el("p", "symlink to " + f.text + ": not followed"));
    } else if (f.kind === "unreadable") {
      box.appendChild(el("p", "unreadable: " + f.text));
    } else if (f.kind === "over_budget") {
      box.appendChild(el("p", "not shown: the total limit of " + files.limits.total + " bytes was reached"));
    } else {
      box.appendChild(el("p", f.kind + ": not shown"));
    }
    parent.appendChild(box);
  }
  if (files.unlisted > 0) parent.appendChild(el("p", files.unlisted + " more files not listed (limit " + files.limits.max_files + ")"));
}

async function renderAttempt() {
  const box = document.getElementById("attempt");
  clear(box);
  box.dataset.index = String(current);
  if (current < 0 || !state.attempts.length) {
    box.appendChild(el("p", state.attempts.length ? "Every attempt is labelled. The calibration is on the right." : "No judged attempt to label.", "done-all"));
    return;
  }
  const a = state.attempts[current];
  box.appendChild(el("h2", (current + 1) + " / " + state.attempts.length + ": " + name(a)));
  const actions = el("div", null, "actions");
  const note = el("textarea");
  note.id = "note";
  note.placeholder = "note (optional)";
  note.maxLength = 2000;
  const pass = el("button", "PASS (p)", "pass");
  pass.id = "btn-pass";
  const fail = el("button", "FAIL (f)", "fail");
  fail.id = "btn-fail";
  const skip = el("button", "skip (s)", "skip");
  skip.id = "btn-skip";
  for (const b of [pass, fail, skip]) b.type = "button";
  pass.addEventListener("click", () => label("PASS"));
  fail.addEventListener("click", () => label("FAIL"));
  skip.addEventListener("click", () => move(1));
  if (a.mine) {
    pass.disabled = fail.disabled = true;
    note.disabled = true;
    note.value = a.mine.note;
    actions.appendChild(el("p", "You labelled this " + a.mine.human + " at " + a.mine.timestamp + ".", "mine"));
  }
  actions.appendChild(pass);
  actions.appendChild(fail);
  actions.appendChild(skip);
  actions.appendChild(note);
  box.appendChild(actions);
  box.appendChild(el("p", a.labels + (a.labels === 1 ? " label" : " labels") + " in the file for this attempt.", "count"));
  const body = el("div", null, "body");
  box.appendChild(body);
  const wanted = current;
  loaded = -1;
  let detail;
  try {
    detail = await api("/api/attempt?index=" + current);
  } catch (e) {
    body.appendChild(el("p", "Cannot load the attempt: " + e.message, "error"));
    return;
  }
  if (wanted !== current) return;
  if (detail.judge) {
    section(body, "Judge: " + detail.judge.verdict, detail.judge.reasoning, "judge");
  }
  section(body, "Rubric", detail.rubric === null ? "(no --tasks given: the rubric is not known)" : detail.rubric);
  section(body, "Task input", detail.input === null ? "(no --tasks given)" : detail.input);
  section(body, "Answer", detail.answer === null ? "(the agent gave no final answer)" : detail.answer, "answer");
  renderFiles(body, detail.files);
  loaded = current;
  box.dataset.loaded = String(current);
}

function render() {
  renderHeader();
  renderList();
  renderCalibration();
  return renderAttempt();
}

function go(i) {
  if (!state || !state.attempts.length) return;
  current = Math.max(0, Math.min(state.attempts.length - 1, i));
  render();
}

function move(step) {
  if (!state || !state.attempts.length) return;
  const n = state.attempts.length;
  go((current + step + n) % n);
}

async function label(human) {
  if (busy || current < 0 || state.attempts[current].mine) return;
  busy = true;
  document.body.dataset.busy = "true";
  const status = document.getElementById("status");
  const note = document.getElementById("note");
  try {
    state = await api("/api/label", { index: current, human: human, note: note ? note.value : "" });
    status.textContent = "Saved " + human + " for " + name(state.attempts[current]) + ".";
    const next = firstOpen(current);
    current = next;
    await render();
  } catch (e) {
    status.textContent = "Not saved: " + e.message;
  } finally {
    busy = false;
    document.body.dataset.busy = "false";
  }
}

document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT")) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const actions = { p: () => label("PASS"), f: () => label("FAIL"), s: () => move(1), ArrowRight: () => move(1), ArrowLeft: () => move(-1) };
  const action = actions[event.key];
  if (action) {
    event.preventDefault();
    action();
  }
});

async function start() {
  const status = el("p", "", "status");
  status.id = "status";
  document.querySelector("header").appendChild(status);
  try {
    state = await api("/api/state");
  } catch (e) {
    status.textContent = "Cannot load the review: " + e.message;
    document.body.dataset.ready = "true";
    return;
  }
  const open = firstOpen(0);
  current = open;
  await render();
  document.body.dataset.ready = "true";
}

start();
