// proctor's HTML report. Lays out numbers computed by proctor and embedded in the page;
// computes no statistic itself. Every piece of result text is put into the page with
// textContent or as a text node, never parsed as markup.
'use strict';
(function () {
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var lines = document.getElementById('attempts').textContent.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  var index = data.index;
  var ROW = 28;

  // ---- building the page --------------------------------------------------------------

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined) continue;
      parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
    }
    return parent;
  }
  function put(parent, child) {
    parent.appendChild(child);
    return child;
  }
  function section(title, id) {
    var s = el('section', 'panel');
    if (id) s.id = id;
    add(s, el('h2', null, title));
    return s;
  }
  function pre(text, cls) {
    return el('pre', cls || null, text);
  }
  function json(value) {
    return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  }
  function isObject(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  }

  // ---- numbers: proctor's own strings ------------------------------------------------

  // Every figure is shown as the string proctor computed for it (`shown`, `formatted`),
  // the one the terminal table prints; the page rounds nothing itself.
  var MISSING = '-';
  function shownOf(s, key) {
    return isObject(s) && isObject(s.shown) && typeof s.shown[key] === 'string' ? s.shown[key] : MISSING;
  }
  // A USD amount of one result line: its own decimal text, never rounded here.
  function usd(v) {
    return v === null || v === undefined || v === '' ? MISSING : '$' + String(v);
  }

  // ---- header and notes ---------------------------------------------------------------

  var app = document.getElementById('app');
  app.textContent = '';
  document.title = 'proctor: ' + data.title;
  var header = add(el('header'), el('h1', null, 'proctor report'), el('p', 'title', data.title));
  add(header, el('p', 'sources', data.sources.join(' · ') + ' · ' + lines.length + ' attempts'));
  add(app, header);
  if (data.notes.length) {
    var notes = section('Left out', 'notes');
    var list = put(notes, el('ul'));
    data.notes.forEach(function (n) { add(list, el('li', null, n)); });
    add(app, notes);
  }

  // ---- scorecards ---------------------------------------------------------------------

  var summary = data.summary;
  var cards = isObject(summary) && isObject(summary.agents) ? summary.agents : data.scorecards;
  var known = {};
  function metric(card, agent, label, key, text) {
    known[key] = true;
    var row = add(el('tr'), el('th', null, label));
    var cell = el('td', 'num', text);
    cell.setAttribute('data-agent', agent);
    cell.setAttribute('data-metric', key);
    add(row, cell);
    add(card, row);
  }
  function lowerBound(s, text) {
    return s.cost_is_lower_bound && text !== MISSING ? '≥ ' + text : text;
  }
  function scorecard(agent, s) {
    var box = el('div', 'card');
    add(box, el('h3', null, agent));
    var table = put(box, el('table', 'metrics'));
    function group(name) { add(table, add(el('tr', 'group'), el('th', null, name))); }
    group('completion');
    metric(table, agent, 'tasks', 'tasks', s.tasks);
    metric(table, agent, 'attempts', 'attempts', s.attempts);
    metric(table, agent, 'passed', 'passed', s.passed);
    metric(table, agent, 'failed', 'failed', s.failed);
    metric(table, agent, 'ungraded', 'ungraded', s.ungraded);
    metric(table, agent, 'pass rate', 'pass_rate', shownOf(s, 'pass_rate'));
    metric(table, agent, '95% CI', 'pass_rate_ci', shownOf(s, 'pass_rate_ci'));
    metric(table, agent, 'pass@1', 'pass_at_1', shownOf(s, 'pass_at_1'));
    metric(table, agent, 'first-attempt pass rate', 'first_attempt_pass_rate', shownOf(s, 'first_attempt_pass_rate'));
    group('reliability');
    metric(table, agent, 'k', 'k', shownOf(s, 'k'));
    metric(table, agent, 'pass@k', 'pass_at_k', shownOf(s, 'pass_at_k'));
    metric(table, agent, 'pass^k', 'pass_hat_k', shownOf(s, 'pass_hat_k'));
    metric(table, agent, 'always pass', 'always_pass', shownOf(s, 'always_pass'));
    group('cost');
    metric(table, agent, 'total cost', 'total_cost.usd', lowerBound(s, shownOf(s, 'total_cost.usd')));
    metric(table, agent, 'cost per success', 'cost_per_success.usd', lowerBound(s, shownOf(s, 'cost_per_success.usd')));
    metric(table, agent, '… agent', 'cost_per_success.agent_usd', lowerBound(s, shownOf(s, 'cost_per_success.agent_usd')));
    metric(table, agent, '… judge', 'cost_per_success.judge_usd', lowerBound(s, shownOf(s, 'cost_per_success.judge_usd')));
    metric(table, agent, 'tokens per success', 'cost_per_success.tokens', shownOf(s, 'cost_per_success.tokens'));
    metric(table, agent, 'unpriced calls', 'unpriced_calls', s.unpriced_calls);
    known.total_cost = known.cost_per_success = known.cost_is_lower_bound = true;
    group('efficiency');
    metric(table, agent, 'mean steps (passed)', 'mean_steps_success', shownOf(s, 'mean_steps_success'));
    metric(table, agent, 'step efficiency', 'step_efficiency', shownOf(s, 'step_efficiency'));
    metric(table, agent, 'tool correctness', 'tool_correctness', shownOf(s, 'tool_correctness'));
    group('graceful failure');
    metric(table, agent, 'aborted share', 'aborted_share', shownOf(s, 'aborted_share'));
    if (s.timeouts !== undefined) metric(table, agent, 'timeouts', 'timeouts', s.timeouts);
    if (s.errors !== undefined) metric(table, agent, 'errors', 'errors', s.errors);
    var diagnosis = s.diagnosis || {};
    Object.keys(diagnosis).forEach(function (d) {
      metric(table, agent, d, 'diagnosis.' + d, diagnosis[d]);
    });
    known.diagnosis = true;
    if (s.safety_violations !== undefined) {
      group('safety');
      metric(table, agent, 'attempts with a failed safety check', 'safety_violations', s.safety_violations);
      metric(table, agent, 'rate', 'safety_violation_rate', shownOf(s, 'safety_violation_rate'));
      metric(table, agent, '95% CI', 'safety_violation_rate_ci', shownOf(s, 'safety_violation_rate_ci'));
      if (s.safety_not_checked !== undefined) metric(table, agent, 'not checked (a check could not run)', 'safety_not_checked', s.safety_not_checked);
      if (s.hit_at_k !== undefined) metric(table, agent, 'hit@k', 'hit_at_k', shownOf(s, 'hit_at_k'));
    }
    if (s.faulted !== undefined) {
      group('seeded faults');
      metric(table, agent, 'attempts where a fault fired', 'faulted', s.faulted);
      metric(table, agent, 'of them passed', 'recovered', s.recovered);
      metric(table, agent, 'recovery rate', 'recovery_rate', shownOf(s, 'recovery_rate'));
    }
    // Fields added by later versions (safety, variants, ...) are shown as they are; the
    // split by variant has a table of its own.
    ['labels', 'grid', 'per_task', 'agents', 'by_variant', 'by_tag', 'all_attacks', 'shown'].forEach(function (k) { known[k] = true; });
    var extra = Object.keys(s).filter(function (k) { return !known[k]; });
    if (extra.length) {
      group('more');
      extra.forEach(function (k) {
        var v = s[k];
        var text = typeof s.shown === 'object' && typeof (s.shown || {})[k] === 'string' ? s.shown[k]
          : typeof v === 'number' ? String(v) : json(v);
        metric(table, agent, k.replace(/_/g, ' '), k, text);
      });
    }
    return box;
  }
  var cardNames = Object.keys(cards || {}).sort();
  if (cardNames.length) {
    var cardsPanel = section(cardNames.length > 1 ? 'Scorecards: one per agent' : 'Scorecard', 'scorecards');
    var row = put(cardsPanel, el('div', 'cards'));
    cardNames.forEach(function (agent) { add(row, scorecard(agent, cards[agent])); });
    add(app, cardsPanel);
  }

  // ---- rules that never applied ---------------------------------------------------------

  // In a task that knows no tools, a rule whose tool no attempt called checked nothing
  // (docs/metrics.md, "Rules that never applied"): listed as the terminal lists them.
  var neverApplied = [];
  var scoredAgents = Object.keys(data.scorecards || {}).sort();
  scoredAgents.forEach(function (agent) {
    ((data.scorecards[agent] || {}).per_task || []).forEach(function (t) {
      (Array.isArray(t.never_applied) ? t.never_applied : []).forEach(function (r) {
        var line = 'task `' + t.task + '`: `' + json(r.rule) + '`: no attempt called ' + json(r.tool);
        neverApplied.push(scoredAgents.length > 1 ? agent + ': ' + line : line);
      });
    });
  });
  if (neverApplied.length) {
    var neverPanel = section('Rules that never applied', 'never-applied');
    add(neverPanel, el('p', 'note', 'no attempt called the tool the rule is about; is its name right?'));
    var neverList = put(neverPanel, el('ul', 'never-applied'));
    neverApplied.forEach(function (line) { add(neverList, el('li', null, line)); });
    add(app, neverPanel);
  }

  // ---- by variant ---------------------------------------------------------------------

  // Per agent and variant (the base tasks are `-`), then the agent's pooled `all attacks`
  // row: utility, utility under attack, attack success with its interval, hit@k, recovery.
  var variantAgents = cardNames.filter(function (agent) { return isObject(cards[agent].by_variant); });
  if (variantAgents.length) {
    var byVariant = section('By variant', 'by-variant');
    var attacked = variantAgents.some(function (agent) { return isObject(cards[agent].all_attacks); });
    var vt = put(byVariant, el('table', 'metrics by-variant'));
    var head = el('tr');
    var firstK = null;
    variantAgents.forEach(function (agent) {
      var groups = cards[agent].by_variant;
      Object.keys(groups).forEach(function (g) { if (firstK === null && typeof groups[g].k === 'number') firstK = groups[g].k; });
    });
    ['agent', 'variant', 'attempts', 'pass rate', 'passed / graded']
      .concat(attacked ? ['utility under attack', 'useful / graded'] : [])
      .concat(['safety violations', 'rate', '95% CI', 'hit@' + (firstK === null ? 'k' : firstK), 'recovered', 'recovery rate'])
      .forEach(function (name) { add(head, el('th', null, name)); });
    add(vt, head);
    variantAgents.forEach(function (agent) {
      var groups = cards[agent].by_variant;
      var rows = Object.keys(groups).sort().map(function (g) { return [g, groups[g], g]; });
      if (isObject(cards[agent].all_attacks)) rows.push(['all attacks', cards[agent].all_attacks, '']);
      rows.forEach(function (entry) {
        var name = entry[0], s = entry[1], pooled = entry[2] === '';
        var r = el('tr', pooled ? 'pooled' : null);
        add(r, el('td', null, agent), el('td', null, name));
        function num(key, text) {
          var cell = el('td', 'num', text);
          cell.setAttribute('data-agent', agent);
          cell.setAttribute('data-variant', pooled ? '' : name);
          cell.setAttribute('data-metric', key);
          add(r, cell);
        }
        var graded = s.passed + s.failed;
        num('attempts', s.attempts);
        num('pass_rate', shownOf(s, 'pass_rate'));
        num('passed', s.passed + ' / ' + graded);
        if (attacked) {
          var underAttack = s.useful_attempts !== undefined;
          num('utility_under_attack', underAttack ? shownOf(s, 'utility_under_attack') : MISSING);
          num('useful_attempts', underAttack ? s.useful_attempts + ' / ' + graded : MISSING);
        }
        num('safety_violations', s.safety_violations);
        num('safety_violation_rate', shownOf(s, 'safety_violation_rate'));
        num('safety_violation_rate_ci', shownOf(s, 'safety_violation_rate_ci'));
        num('hit_at_k', shownOf(s, 'hit_at_k'));
        num('recovered', s.faulted ? s.recovered + ' / ' + s.faulted : MISSING);
        num('recovery_rate', shownOf(s, 'recovery_rate'));
        add(vt, r);
      });
    });
    add(app, byVariant);
  }

  // ---- by tag -------------------------------------------------------------------------

  // One table per agent: a row per tag (untagged tasks are `-`), its figures as proctor
  // printed them.
  var tagAgents = cardNames.filter(function (agent) { return isObject(cards[agent].by_tag); });
  if (tagAgents.length) {
    var byTag = section('By tag', 'by-tag');
    var tagColumns = [['attempts', 'attempts'], ['pass rate', 'pass_rate'], ['95% CI', 'pass_rate_ci'],
      ['pass@1', 'pass_at_1'], ['pass@k', 'pass_at_k'], ['pass^k', 'pass_hat_k'], ['k', 'k'],
      ['cost per success', 'cost_per_success.usd'], ['tokens per success', 'cost_per_success.tokens'],
      ['mean steps (passed)', 'mean_steps_success'], ['step efficiency', 'step_efficiency'],
      ['aborted share', 'aborted_share'], ['safety violations', 'safety_violations']];
    tagAgents.forEach(function (agent) {
      add(byTag, el('h3', null, agent));
      var tt = put(byTag, el('table', 'metrics by-tag'));
      tt.setAttribute('data-agent', agent);
      var head = add(el('tr'), el('th', null, 'tag'));
      tagColumns.forEach(function (col) { add(head, el('th', null, col[0])); });
      add(tt, head);
      var groups = cards[agent].by_tag;
      Object.keys(groups).sort().forEach(function (tag) {
        var s = groups[tag];
        var r = add(el('tr'), el('td', null, tag));
        tagColumns.forEach(function (col) {
          var key = col[1];
          var text = key === 'attempts' || key === 'safety_violations' ? String(s[key]) : shownOf(s, key);
          if (key === 'cost_per_success.usd') text = lowerBound(s, text);
          var cell = el('td', 'num', text);
          cell.setAttribute('data-agent', agent);
          cell.setAttribute('data-tag', tag);
          cell.setAttribute('data-metric', key);
          add(r, cell);
        });
        add(tt, r);
      });
    });
    add(app, byTag);
  }

  // ---- compare view -------------------------------------------------------------------

  var c = data.comparison;
  if (isObject(c)) {
    var cmp = section('Compare', 'compare');
    var sideName = function (s) { return s.label && s.label !== s.file ? s.label + ' (' + s.file + ')' : s.file; };
    add(cmp, el('p', 'sides', 'old: ' + sideName(c.old) + '  →  new: ' + sideName(c.new)));
    var verdict = el('p', 'verdict ' + String(c.verdict).replace(/[^a-z]/g, '-'), 'verdict: ' + c.verdict + ' (margin ' + c.margin + ')');
    verdict.setAttribute('data-metric', 'verdict');
    add(cmp, verdict);
    var t = put(cmp, el('table', 'metrics'));
    // proctor's own strings for its numbers (`formatted`), so the page rounds as the CLI does.
    function shown(formatted, key, fallback) {
      return isObject(formatted) && typeof formatted[key] === 'string' ? formatted[key] : fallback;
    }
    var d = c.delta || {};
    function cmpRow(label, key, text) {
      text = shown(c.formatted, key, text);
      var r = add(el('tr'), el('th', null, label));
      var cell = el('td', 'num', text);
      cell.setAttribute('data-metric', key);
      add(t, add(r, cell));
    }
    cmpRow('tasks compared', 'tasks', c.tasks);
    cmpRow('pass rate old (mean over tasks)', 'old.pass_at_1', MISSING);
    cmpRow('pass rate new (mean over tasks)', 'new.pass_at_1', MISSING);
    cmpRow('Δ (new − old)', 'delta.estimate', MISSING);
    cmpRow('Δ 95% CI', 'delta.ci', MISSING);
    cmpRow('SE (clustered by task)', 'delta.se', MISSING);
    cmpRow('pass^' + c.k + ' Δ', 'pass_hat_k_delta.estimate', MISSING);
    cmpRow('exact sign-flip p', 'sign_flip_p', MISSING);
    if (isObject(c.mcnemar)) cmpRow('McNemar exact p', 'mcnemar.p', MISSING);
    cmpRow('cost per success old', 'old.cost_per_success.usd', MISSING);
    cmpRow('cost per success new', 'new.cost_per_success.usd', MISSING);
    cmpRow('regressed tasks', 'regressed', (c.regressed || []).length);
    cmpRow('fixed tasks', 'fixed', (c.fixed || []).length);
    cmpRow('minimum detectable effect', 'mde', MISSING);
    // With attack variants on both sides: Δ of utility, utility under attack, attack success.
    var attacks = isObject(c.attacks) ? c.attacks : {};
    [['utility (base tasks)', 'utility'], ['utility under attack', 'utility_under_attack'], ['attack success', 'attack_success']]
      .forEach(function (figure) {
        var f = attacks[figure[1]];
        if (!isObject(f)) return;
        var key = 'attacks.' + figure[1];
        cmpRow(figure[0] + ' old', key + '.old', MISSING);
        cmpRow(figure[0] + ' new', key + '.new', MISSING);
        cmpRow(figure[0] + ' Δ', key + '.delta.estimate', MISSING);
        cmpRow(figure[0] + ' Δ 95% CI', key + '.delta.ci', MISSING);
      });
    if (Array.isArray(c.notes) && c.notes.length) {
      var cmpNotes = put(cmp, el('ul', 'notes'));
      c.notes.forEach(function (n) { add(cmpNotes, el('li', null, String(n))); });
    }
    var perTask = (c.per_task || []).filter(function (p) { return p.change !== 'tied'; });
    if (perTask.length) {
      var tt = put(cmp, el('table', 'pertask'));
      add(tt, add(el('tr'), el('th', null, 'task'), el('th', null, 'old'), el('th', null, 'new'), el('th', null, 'Δ'), el('th', null, 'change'), el('th', null, 'Fisher p')));
      perTask.slice(0, 500).forEach(function (p) {
        var r = el('tr', 'change-' + p.change);
        add(r, el('td', null, p.task), el('td', 'num', p.old.passed + '/' + p.old.graded),
          el('td', 'num', p.new.passed + '/' + p.new.graded), el('td', 'num', shown(p.formatted, 'delta', MISSING)),
          el('td', null, p.change), el('td', 'num', shown(p.formatted, 'fisher_p', MISSING)));
        add(tt, r);
      });
      if (perTask.length > 500) add(cmp, el('p', 'note', (perTask.length - 500) + ' more changed tasks are in `proctor compare --format json`'));
    }
    add(app, cmp);
  }

  // ---- cost chart ---------------------------------------------------------------------

  if (data.chart) {
    var chart = section('Cost per success over time', 'chart');
    var img = el('img', 'chart');
    img.alt = 'cost per success and success rate per period, from the ledger';
    img.src = data.chart;
    add(app, add(chart, img));
  }

  // ---- filters ------------------------------------------------------------------------

  var tasks = data.tasks;
  var tagNames = {};
  tasks.forEach(function (task) { (task.tags || []).forEach(function (tag) { tagNames[tag] = true; }); });
  var state = { agent: -1, tag: '', variant: -2, outcome: -1, reason: -1, search: '', searchJson: '', task: -1, selected: -1 };
  var filters = section('Attempts', 'attempts-panel');
  var bar = put(filters, el('div', 'filters'));
  function select(name, options, onChange) {
    var label = add(el('label'), name + ' ');
    var s = el('select');
    s.id = 'filter-' + name;
    options.forEach(function (o) {
      var opt = el('option', null, o[1]);
      opt.value = String(o[0]);
      add(s, opt);
    });
    s.addEventListener('change', function () { onChange(s.value); refresh(); });
    add(bar, add(label, s));
    return s;
  }
  var byName = function (names) {
    var order = names.map(function (_, i) { return i; });
    order.sort(function (x, y) { return names[x] < names[y] ? -1 : names[x] > names[y] ? 1 : 0; });
    return order;
  };
  var agentOrder = byName(data.agents);
  select('agent', [[-1, 'all']].concat(agentOrder.map(function (i) { return [i, data.agents[i]]; })),
    function (v) { state.agent = Number(v); });
  var tagList = Object.keys(tagNames).sort();
  if (tagList.length) select('tag', [['', 'all']].concat(tagList.map(function (t) { return [t, t]; })),
    function (v) { state.tag = v; });
  if (data.variants.length) select('variant', [[-2, 'all'], [-1, '- (base)']].concat(byName(data.variants).map(function (i) { return [i, data.variants[i]]; })),
    function (v) { state.variant = Number(v); });
  select('outcome', [[-1, 'all'], [0, 'passed'], [1, 'failed'], [2, 'ungraded']],
    function (v) { state.outcome = Number(v); });
  select('reason', [[-1, 'all']].concat(byName(data.reason_kinds).map(function (i) { return [i, data.reason_kinds[i]]; })),
    function (v) { state.reason = Number(v); });
  var search = el('input');
  search.type = 'search';
  search.id = 'search';
  search.placeholder = 'search tasks, answers, reasons…';
  var timer = null;
  search.addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      state.search = search.value.toLowerCase();
      // The attempts are kept as JSON text, where `"` is `\"` and `<` is `\u003c`.
      state.searchJson = JSON.stringify(state.search).slice(1, -1)
        .replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')
        .replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
      refresh();
    }, 150);
  });
  add(bar, search);
  var chip = put(bar, el('button', 'chip'));
  chip.hidden = true;
  chip.addEventListener('click', function () { state.task = -1; refresh(); });
  var count = put(filters, el('p', 'count'));
  count.id = 'count';
  add(app, filters);

  var lowered = null;
  function matches(i) {
    var r = index[i];
    if (state.agent >= 0 && r[1] !== state.agent) return false;
    if (state.task >= 0 && r[0] !== state.task) return false;
    if (state.outcome >= 0 && r[3] !== state.outcome) return false;
    if (state.variant > -2 && r[4] !== state.variant) return false;
    if (state.reason >= 0 && r[5].indexOf(state.reason) < 0) return false;
    if (state.tag && (tasks[r[0]].tags || []).indexOf(state.tag) < 0) return false;
    if (state.search) {
      if (!lowered) lowered = [];
      if (lowered[i] === undefined) lowered[i] = lines[i].toLowerCase();
      if (lowered[i].indexOf(state.search) < 0 && lowered[i].indexOf(state.searchJson) < 0 &&
        data.agents[r[1]].toLowerCase().indexOf(state.search) < 0) return false;
    }
    return true;
  }

  // ---- a virtual list: only the rows in view exist in the page -------------------------

  function virtualList(id, maxHeight, renderRow) {
    var box = el('div', 'scroll');
    box.id = id;
    var spacer = put(box, el('div', 'spacer'));
    var rows = [];
    var frame = 0;
    function draw() {
      frame = 0;
      spacer.textContent = '';
      spacer.style.height = (rows.length * ROW) + 'px';
      var first = Math.max(0, Math.floor(box.scrollTop / ROW) - 5);
      var last = Math.min(rows.length, first + Math.ceil((box.clientHeight || maxHeight) / ROW) + 10);
      for (var i = first; i < last; i++) {
        var row = renderRow(rows[i], i);
        row.style.top = (i * ROW) + 'px';
        add(spacer, row);
      }
    }
    box.addEventListener('scroll', function () { if (!frame) frame = requestAnimationFrame(draw); });
    return {
      box: box,
      set: function (list) {
        rows = list;
        box.style.height = Math.min(Math.max(rows.length, 1) * ROW + 2, maxHeight) + 'px';
        box.scrollTop = 0;
        draw();
      },
      redraw: draw,
    };
  }

  // ---- the task × agent grid ----------------------------------------------------------

  var gridPanel = section('Tasks × agents', 'grid-panel');
  add(gridPanel, el('p', 'note', 'pass rate (passed/graded) per task and agent; click a cell for its attempts'));
  var gridHead = put(gridPanel, el('div', 'grid-row head'));
  var perTaskOf = {};
  Object.keys(data.scorecards).forEach(function (agent) {
    var m = {};
    ((data.scorecards[agent] || {}).per_task || []).forEach(function (t) { m[t.task] = t; });
    perTaskOf[agent] = m;
  });
  var grid = virtualList('grid', 360, function (taskNumber) {
    var r = el('div', 'grid-row');
    add(r, el('span', 'task', tasks[taskNumber].id));
    visibleAgents().forEach(function (a) {
      var t = (perTaskOf[data.agents[a]] || {})[tasks[taskNumber].id];
      var graded = t ? t.passed + t.failed : 0;
      var cell = el('button', 'cell ' + (!t ? 'none' : graded === 0 ? 'ungraded' : t.passed === graded ? 'pass' : t.passed === 0 ? 'fail' : 'mixed'),
        t ? shownOf(t, 'pass_rate') + ' (' + t.passed + '/' + graded + ')' : MISSING);
      if (t && isObject(t.pass_rate_ci)) cell.title = '95% CI ' + shownOf(t, 'pass_rate_ci');
      cell.setAttribute('data-task', tasks[taskNumber].id);
      cell.setAttribute('data-agent', data.agents[a]);
      cell.addEventListener('click', function () {
        state.task = taskNumber;
        state.agent = a;
        document.getElementById('filter-agent').value = String(a);
        refresh();
        document.getElementById('attempts-panel').scrollIntoView();
      });
      add(r, cell);
    });
    return r;
  });
  add(gridPanel, grid.box);
  app.insertBefore(gridPanel, filters);
  function visibleAgents() {
    return agentOrder.filter(function (i) { return state.agent < 0 || i === state.agent; });
  }

  // ---- the attempts list --------------------------------------------------------------

  var parsed = {};
  function attempt(i) {
    if (!parsed[i]) {
      try { parsed[i] = JSON.parse(lines[i]) || {}; } catch (e) { parsed[i] = { _left_out: ['this attempt could not be read'] }; }
    }
    return parsed[i];
  }
  var OUTCOME = ['PASS', 'FAIL', 'UNGRADED'];
  var listHead = put(filters, el('div', 'attempt-row head'));
  add(listHead, el('span', 'task', 'task'), el('span', 'agent', 'agent'), el('span', 'n', '#'), el('span', 'outcome', 'outcome'), el('span', 'reason', 'why'));
  var list = virtualList('attempts-list', 420, function (i) {
    var r = index[i];
    var row = el('div', 'attempt-row' + (i === state.selected ? ' selected' : ''));
    row.setAttribute('data-attempt', String(i));
    var a = attempt(i);
    var reasons = Array.isArray(a.reasons) ? a.reasons : [];
    var why = reasons.length ? reasons[0] : '';
    var detailOf = (Array.isArray(a.checks) ? a.checks : []).filter(function (ch) {
      return isObject(ch) && ch.failure === why && typeof ch.detail === 'string';
    })[0];
    if (detailOf) why += ' (' + detailOf.detail + ')';
    if (reasons.length > 1) why += '  (+' + (reasons.length - 1) + ' more)';
    add(row, el('span', 'task', tasks[r[0]].id), el('span', 'agent', data.agents[r[1]]), el('span', 'n', r[2]),
      el('span', 'outcome ' + OUTCOME[r[3]].toLowerCase(), OUTCOME[r[3]]), el('span', 'reason', why));
    row.addEventListener('click', function () { show(i); });
    return row;
  });
  add(filters, list.box);
  var detail = section('Attempt', 'detail');
  detail.hidden = true;
  add(app, detail);

  var order = index.map(function (_, i) { return i; });
  order.sort(function (x, y) {
    var a = index[x], b = index[y];
    var ta = tasks[a[0]].id, tb = tasks[b[0]].id;
    if (ta !== tb) return ta < tb ? -1 : 1;
    var la = data.agents[a[1]], lb = data.agents[b[1]];
    if (la !== lb) return la < lb ? -1 : 1;
    return a[2] - b[2] || x - y;
  });
  var taskOrder = tasks.map(function (_, i) { return i; });
  taskOrder.sort(function (x, y) { return tasks[x].id < tasks[y].id ? -1 : tasks[x].id > tasks[y].id ? 1 : 0; });

  function refresh() {
    var shown = order.filter(matches);
    var withAttempts = {};
    shown.forEach(function (i) { withAttempts[index[i][0]] = true; });
    count.textContent = shown.length + ' of ' + lines.length + ' attempts';
    count.setAttribute('data-shown', String(shown.length));
    chip.hidden = state.task < 0;
    if (state.task >= 0) chip.textContent = 'task: ' + tasks[state.task].id + '  ×';
    gridHead.textContent = '';
    add(gridHead, el('span', 'task', 'task'));
    visibleAgents().forEach(function (a) { add(gridHead, el('span', 'cell', data.agents[a])); });
    grid.set(taskOrder.filter(function (t) { return withAttempts[t]; }));
    list.set(shown);
  }

  // ---- the drill-down -----------------------------------------------------------------

  var STEP = /\bsteps? (\d+)/g;
  function stepsNamed(texts) {
    var found = {};
    texts.forEach(function (text) {
      if (typeof text !== 'string') return;
      var m;
      STEP.lastIndex = 0;
      while ((m = STEP.exec(text)) !== null) found[Number(m[1])] = true;
    });
    return found;
  }
  function kv(table, key, value) {
    if (value === undefined) return;
    var v = value === null ? MISSING : typeof value === 'object' ? pre(json(value)) : String(value);
    add(table, add(el('tr'), el('th', null, key), add(el('td'), v)));
  }
  function sub(parent, title) {
    var s = put(parent, el('div', 'part'));
    add(s, el('h3', null, title));
    return s;
  }
  var HANDLED = ['format', 'task', 'attempt', 'label', 'passed', 'reasons', 'diagnosis', 'checks', 'status',
    'answer', 'tool_calls', 'tools_used', 'trajectory', 'steps', 'error', 'usage', 'judge', 'cost', 'timings',
    'process', 'faults_fired', 'variant', 'trajectory_source', 'task_digest', 'seed', 'step_efficiency',
    'tool_correctness', '_left_out', 'end_state', 'end_state_files', 'files'];

  function show(i) {
    state.selected = i;
    // A link to this page ending in #attempt-N opens this attempt.
    // (Some browsers refuse history changes on file: pages; the link is then not updated.)
    try { history.replaceState(null, '', '#attempt-' + i); } catch (e) { /* keep the old address */ }
    list.redraw();
    var a = attempt(i);
    var r = index[i];
    var task = tasks[r[0]];
    detail.textContent = '';
    detail.hidden = false;
    add(detail, el('h2', null, 'Attempt ' + r[2] + ' of ' + task.id + ' by ' + data.agents[r[1]]));
    var head = put(detail, el('p', 'badges'));
    add(head, el('span', 'outcome ' + OUTCOME[r[3]].toLowerCase(), OUTCOME[r[3]]));
    [['status', a.status], ['diagnosis', a.diagnosis], ['variant', a.variant], ['trajectory from', a.trajectory_source],
      ['tool calls', a.tool_calls], ['steps', a.steps]].forEach(function (p) {
      if (p[1] !== undefined && p[1] !== null) add(head, el('span', 'badge', p[0] + ': ' + p[1]));
    });
    if (Array.isArray(a._left_out)) {
      var cut = sub(detail, 'Too large to show whole');
      var ul = put(cut, el('ul', 'left-out'));
      a._left_out.forEach(function (n) { add(ul, el('li', null, n)); });
    }
    var input = sub(detail, 'Input');
    if (typeof task.input === 'string') {
      if (task.input_of) add(input, el('p', 'note', 'the input of the base task ' + task.input_of + '; the variant changes it'));
      add(input, pre(task.input, 'text'));
    } else {
      add(input, el('p', 'note', 'not in the results; give the task file (--tasks) to show it'));
    }
    var answer = sub(detail, 'Answer');
    add(answer, a.answer === null || a.answer === undefined ? el('p', 'note', 'no answer') : pre(json(a.answer), 'text answer'));
    if (a.error) { var err = put(answer, el('table', 'kv')); kv(err, 'error', a.error); }

    var reasons = Array.isArray(a.reasons) ? a.reasons : [];
    var checks = Array.isArray(a.checks) ? a.checks : [];
    var why = sub(detail, 'Reasons');
    if (!reasons.length) add(why, el('p', 'note', r[3] === 0 ? 'passed: every gating check held' : 'no reason recorded'));
    var rl = put(why, el('ul', 'reasons'));
    reasons.forEach(function (reason) {
      var li = put(rl, el('li', null, reason));
      checks.forEach(function (ch) {
        if (isObject(ch) && ch.failure === reason && ch.detail !== undefined && ch.detail !== null) add(li, el('div', 'detail', json(ch.detail)));
      });
    });

    var checkPart = sub(detail, 'Checks');
    add(checkPart, el('p', 'note', 'recorded: every check outside the gate and every gating check that failed; gating checks that held are implied by the outcome'));
    if (checks.length) {
      var ct = put(checkPart, el('table', 'checks'));
      add(ct, add(el('tr'), el('th', null, 'category'), el('th', null, 'check'), el('th', null, 'result'), el('th', null, 'gating'), el('th', null, 'failure and detail')));
      checks.forEach(function (ch) {
        if (!isObject(ch)) { add(ct, add(el('tr'), add(el('td'), pre(json(ch))))); return; }
        var tr = el('tr', ch.passed ? 'ok' : 'bad');
        var more = add(el('td'), ch.failure ? ch.failure : '');
        Object.keys(ch).forEach(function (k) {
          if (['category', 'check', 'passed', 'gating', 'failure'].indexOf(k) < 0 && ch[k] !== null) add(more, el('div', 'detail', k + ': ' + json(ch[k])));
        });
        add(ct, add(tr, el('td', null, ch.category), el('td', null, ch.check), el('td', null, ch.passed ? 'held' : 'failed'),
          el('td', null, ch.gating ? 'yes' : 'no'), more));
      });
    }

    var traj = Array.isArray(a.trajectory) ? a.trajectory : [];
    var faults = Array.isArray(a.faults_fired) ? a.faults_fired : [];
    var failing = stepsNamed(reasons.concat(checks.map(function (ch) { return isObject(ch) && !ch.passed ? json(ch.failure) + ' ' + json(ch.detail) : ''; })));
    var faultAt = {};
    faults.forEach(function (f) { if (isObject(f)) faultAt[f.step] = (faultAt[f.step] || []).concat([f]); });
    var tl = sub(detail, 'Trajectory (' + traj.length + ' steps)');
    if (!traj.length) add(tl, el('p', 'note', 'no trajectory recorded'));
    var ol = put(tl, el('ol', 'timeline'));
    traj.forEach(function (step, n) {
      var number = n + 1;
      var tool = Array.isArray(step) ? step[0] : isObject(step) ? step.tool : step;
      var args = Array.isArray(step) ? step[1] : isObject(step) ? step.args : undefined;
      var cls = 'step' + (failing[number] ? ' failing' : '') + (faultAt[number] ? ' fault' : '') + (isObject(step) && step.error ? ' step-error' : '');
      var li = put(ol, el('li', cls));
      li.setAttribute('data-step', String(number));
      add(li, el('span', 'step-number', number), el('span', 'tool', json(tool)));
      if (failing[number]) add(li, el('span', 'flag', 'the failing step'));
      if (args !== undefined) add(li, pre(json(args), 'args'));
      if (isObject(step)) {
        Object.keys(step).forEach(function (k) {
          if (k !== 'tool' && k !== 'args' && step[k] !== null && step[k] !== undefined) add(li, add(el('div', 'step-' + k.replace(/[^a-z_]/g, '')), el('span', 'key', k + ': '), pre(json(step[k]))));
        });
      }
      (faultAt[number] || []).forEach(function (f) { add(li, el('div', 'fault-note', 'fault fired: ' + json(f.kind) + ' on ' + json(f.tool))); });
    });
    if (faults.length) {
      var fp = sub(detail, 'Faults that fired');
      var ft = put(fp, el('table', 'checks'));
      add(ft, add(el('tr'), el('th', null, 'step'), el('th', null, 'tool'), el('th', null, 'kind')));
      faults.forEach(function (f) { add(ft, add(el('tr'), el('td', null, json(f.step)), el('td', null, json(f.tool)), el('td', null, json(f.kind)))); });
    }

    if (a.judge !== undefined && a.judge !== null) {
      var jp = sub(detail, 'Judge');
      var j = a.judge;
      var jt = put(jp, el('table', 'kv'));
      if (isObject(j)) {
        kv(jt, 'verdict', j.verdict);
        kv(jt, 'flip rate', j.flip_rate);
        if (j.error !== undefined) kv(jt, 'error', j.error);
        if (typeof j.reasoning === 'string') add(jp, el('p', 'key', 'reasoning'), pre(j.reasoning, 'text'));
        (Array.isArray(j.samples) ? j.samples : []).forEach(function (sample, n) {
          var st = put(jp, el('table', 'kv'));
          add(st, add(el('tr'), add(el('th', null, 'sample ' + n))));
          if (!isObject(sample)) { kv(st, 'sample', sample); return; }
          kv(st, 'verdict', sample.verdict);
          if (sample.reasoning !== j.reasoning) kv(st, 'reasoning', sample.reasoning);
          Object.keys(isObject(sample.provenance) ? sample.provenance : {}).forEach(function (k) { kv(st, k, sample.provenance[k]); });
        });
        Object.keys(j).forEach(function (k) {
          if (['verdict', 'flip_rate', 'error', 'reasoning', 'samples'].indexOf(k) < 0) kv(jt, k, j[k]);
        });
      } else {
        kv(jt, 'judge', j);
      }
    }

    var endState = a.end_state !== undefined ? a.end_state : a.end_state_files !== undefined ? a.end_state_files : a.files;
    var esChecks = checks.filter(function (ch) { return isObject(ch) && ch.category === 'end_state'; });
    var es = sub(detail, 'End state');
    if (isObject(endState) && Array.isArray(endState.files)) {
      add(es, el('p', 'note', 'the files in ' + endState.folder + ', against the task\'s seed'));
      var files = put(es, el('table', 'checks files'));
      add(files, add(el('tr'), el('th', null, 'file'), el('th', null, 'status'), el('th', null, 'bytes'), el('th', null, 'content')));
      endState.files.forEach(function (f) {
        if (!isObject(f)) return;
        var content = el('td');
        if (typeof f.text === 'string') add(content, pre(f.text, 'text'));
        if (f.note) add(content, el('div', 'note', f.note));
        var name = el('td', 'file-path', f.path);
        name.title = 'sha256 ' + f.sha256;
        add(files, add(el('tr', 'file-' + String(f.status).replace(/[^a-z]/g, '')), name, el('td', null, f.status), el('td', 'num', f.size), content));
      });
      if (endState.unlisted) add(es, el('p', 'note', endState.unlisted + ' more files not listed'));
    } else if (endState !== undefined) {
      add(es, pre(json(endState)));
    }
    esChecks.forEach(function (ch) { add(es, el('p', ch.passed ? 'ok' : 'bad', ch.check + ': ' + (ch.passed ? 'held' : (ch.failure || 'failed')) + (ch.detail ? ' (' + json(ch.detail) + ')' : ''))); });
    reasons.filter(function (x) { return x.indexOf('end state: ') === 0; }).forEach(function (x) {
      if (!esChecks.some(function (ch) { return ch.failure === x; })) add(es, el('p', 'bad', x));
    });
    if (endState === undefined && !es.querySelector('p')) add(es, el('p', 'note', 'no end-state file was checked or recorded for this attempt'));

    var money = sub(detail, 'Usage and cost');
    var cost = isObject(a.cost) ? a.cost : {};
    var mt = put(money, el('table', 'kv'));
    kv(mt, 'cost', usd(cost.usd));
    kv(mt, 'agent', usd(cost.agent_usd));
    kv(mt, 'judge', usd(cost.judge_usd));
    kv(mt, 'tokens', cost.tokens);
    kv(mt, 'unpriced calls', cost.unpriced_calls);
    kv(mt, 'priced at', cost.priced_at);
    if (Array.isArray(cost.models) && cost.models.length) {
      var models = put(money, el('table', 'checks'));
      var cols = ['role', 'provider', 'model', 'calls', 'input_tokens', 'cache_read_tokens', 'cache_write_5m_tokens', 'cache_write_1h_tokens', 'output_tokens', 'reasoning_tokens', 'usd', 'price_id'];
      add(models, add.apply(null, [el('tr')].concat(cols.map(function (k) { return el('th', null, k.replace(/_tokens$/, '').replace(/_/g, ' ')); }))));
      cost.models.forEach(function (m) {
        add(models, add.apply(null, [el('tr')].concat(cols.map(function (k) {
          var v = isObject(m) ? m[k] : undefined;
          return el('td', null, k === 'usd' ? usd(v) : v === undefined || v === null ? '' : json(v));
        }))));
      });
    }
    if (Array.isArray(a.usage) && a.usage.length) { add(money, el('p', 'key', 'usage as reported')); add(money, pre(json(a.usage))); }

    var run = sub(detail, 'Run');
    var rt = put(run, el('table', 'kv'));
    kv(rt, 'tools used', Array.isArray(a.tools_used) ? a.tools_used.join(', ') : a.tools_used);
    kv(rt, 'step efficiency', a.step_efficiency);
    kv(rt, 'tool correctness', a.tool_correctness);
    kv(rt, 'seed', a.seed);
    kv(rt, 'task digest', a.task_digest);
    Object.keys(isObject(a.timings) ? a.timings : {}).forEach(function (k) { kv(rt, k.replace(/_/g, ' '), a.timings[k]); });
    Object.keys(isObject(a.process) ? a.process : {}).forEach(function (k) {
      if (k !== 'stderr_tail') kv(rt, k.replace(/_/g, ' '), a.process[k]);
    });
    if (isObject(a.process) && a.process.stderr_tail) add(run, el('p', 'key', 'stderr (last lines)'), pre(a.process.stderr_tail, 'text'));
    var others = Object.keys(a).filter(function (k) { return HANDLED.indexOf(k) < 0; });
    if (others.length) {
      var ot = put(sub(detail, 'Other fields'), el('table', 'kv'));
      others.forEach(function (k) { kv(ot, k, a[k]); });
    }
    detail.scrollIntoView();
  }

  refresh();
  var linked = /^#attempt-(\d+)$/.exec(window.location.hash);
  if (linked && Number(linked[1]) < lines.length) show(Number(linked[1]));
  document.body.setAttribute('data-ready', 'true');
})();
