// Toolstream console. Plain JavaScript: pages are drawn from the JSON API
// with DOM nodes (text is always set as text, never parsed as HTML), and
// kept live by the server-sent events of /api/events.
'use strict';

const state = { me: null, calls: new Map(), answers: new Map(), page: '', fresh: new Set(), timer: null };
const STATES = ['completed', 'awaiting_approval', 'running', 'succeeded', 'failed', 'rejected', 'incomplete'];

// h makes an element: h('td', {class: 'x'}, 'text', child, ...).
function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, v);
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === undefined || kid === null || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

async function api(path, body) {
  const opts = { credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    opts.method = 'POST';
    opts.headers['Content-Type'] = 'application/json';
    opts.headers['X-Console-CSRF'] = state.me ? state.me.csrf : '';
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  if (res.status === 401) { location.replace('/'); throw new Error('signed out'); }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

const main = () => document.getElementById('main');
const badge = (text, cls) => h('span', { class: 'badge ' + (cls || '') }, text);
const stateBadge = s => badge(s.replace('_', ' '), 's-' + s);
function when(t) {
  if (!t || t.startsWith('0001')) return '';
  const d = new Date(t);
  return d.toLocaleTimeString([], { hour12: false }) + '.' + String(d.getMilliseconds()).padStart(3, '0');
}
function day(t) { return t && !t.startsWith('0001') ? new Date(t).toLocaleString([], { hour12: false }) : ''; }
function nsDate(ns) { return ns ? new Date(ns / 1e6).toLocaleString([], { hour12: false }) : ''; }
function pretty(json) {
  if (!json) return '';
  try { return JSON.stringify(JSON.parse(json), null, 2); } catch { return json; }
}
function errorBox(err) { return h('p', { class: 'error', role: 'alert' }, String(err.message || err)); }
function traceLink(c, text) {
  const id = c.call_id || c.item_id;
  const q = new URLSearchParams({ tenant: c.tenant, id: id || '' });
  if (c.response_id) q.set('response', c.response_id);
  return h('a', { href: '#/call?' + q, class: 'mono' }, text || id || c.key);
}

// ---- live updates ----
function connect() {
  const live = document.getElementById('live');
  const es = new EventSource('/api/events');
  es.onopen = () => { live.textContent = 'live'; live.className = 'live on'; loadCalls(); };
  es.onerror = () => { live.textContent = 'reconnecting…'; live.className = 'live off'; };
  es.addEventListener('call', e => {
    const c = JSON.parse(e.data);
    state.calls.set(c.key, c);
    state.fresh.add(c.key);
    changed('call');
  });
  es.addEventListener('answer', e => {
    const a = JSON.parse(e.data);
    state.answers.set(a.tenant + '/' + a.response_id, a);
    changed('answer');
  });
}

let redraw = null;
function changed(kind) {
  updateApprovalCount();
  if (redraw) return;
  redraw = setTimeout(() => { // one redraw per burst of events
    redraw = null;
    if ((state.page === 'calls' || state.page === 'approvals') && kind) render();
    else if (state.page === 'answers' && kind === 'answer') render();
  }, 150);
}

async function loadCalls() {
  try {
    const data = await api('/api/calls');
    for (const c of data.calls) state.calls.set(c.key, c);
    updateApprovalCount();
    if (state.page === 'calls' || state.page === 'approvals') render();
  } catch (err) { console.error(err); }
}

function updateApprovalCount() {
  const n = [...state.calls.values()].filter(c => c.state === 'awaiting_approval').length;
  const el = document.getElementById('approval-count');
  el.hidden = n === 0;
  el.textContent = n;
}

// ---- pages ----
const pages = { calls: callsPage, call: callPage, approvals: approvalsPage, answers: answersPage, memory: memoryPage, runs: runsPage, health: healthPage };

function route() {
  const [path, query] = (location.hash.slice(2) || 'calls').split('?');
  state.page = pages[path] ? path : 'calls';
  state.query = new URLSearchParams(query || '');
  for (const a of document.querySelectorAll('nav a')) {
    if (a.dataset.page === state.page) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  clearInterval(state.timer);
  state.timer = null;
  render(true);
}

function render(navigated) {
  const focus = document.activeElement && document.activeElement.id;
  const sel = focus && document.activeElement.selectionStart;
  const out = pages[state.page]();
  if (out instanceof Node) {
    main().replaceChildren(out);
    if (focus && !navigated) { // keep the keyboard where it was across live redraws
      const el = document.getElementById(focus);
      if (el) { el.focus(); if (sel !== undefined && el.setSelectionRange) try { el.setSelectionRange(sel, sel); } catch {} }
    }
  }
  if (navigated && state.routed) main().focus({ preventScroll: true }); // after a page change, not on arrival: Tab starts at the top
  state.routed = true;
}

// Calls: the live list, filters, counts by state.
const filters = { tenant: '', tool: '', state: '', since: '' };
function callsPage() {
  const since = filters.since ? Date.now() - Number(filters.since) * 1000 : 0;
  const all = [...state.calls.values()].filter(c =>
    (!filters.tenant || c.tenant === filters.tenant) && (!filters.tool || c.tool === filters.tool) &&
    (!since || new Date(c.last).getTime() >= since));
  const counts = {};
  for (const c of all) counts[c.state] = (counts[c.state] || 0) + 1;
  const shown = all.filter(c => !filters.state || c.state === filters.state)
    .sort((a, b) => (b.first > a.first) - (b.first < a.first) || b.order - a.order).slice(0, 300);
  const tenants = [...new Set([...state.calls.values()].map(c => c.tenant))].sort();
  const tools = [...new Set([...state.calls.values()].map(c => c.tool).filter(Boolean))].sort();
  const opt = (v, cur, label) => h('option', { value: v, selected: v === cur }, label || v);
  const set = k => e => { filters[k] = e.target.value; render(); };
  const form = h('form', { class: 'filters panel', onsubmit: e => e.preventDefault(), 'aria-label': 'Filter calls' },
    state.me.tenant ? null : h('label', {}, 'Tenant', h('select', { id: 'f-tenant', onchange: set('tenant') }, opt('', filters.tenant, 'all'), tenants.map(t => opt(t, filters.tenant)))),
    h('label', {}, 'Tool', h('select', { id: 'f-tool', onchange: set('tool') }, opt('', filters.tool, 'all'), tools.map(t => opt(t, filters.tool)))),
    h('label', {}, 'Outcome', h('select', { id: 'f-state', onchange: set('state') }, opt('', filters.state, 'all'), STATES.map(s => opt(s, filters.state, s.replace('_', ' '))))),
    h('label', {}, 'Time', h('select', { id: 'f-since', onchange: set('since') }, opt('', filters.since, 'all'), opt('300', filters.since, 'last 5 min'), opt('3600', filters.since, 'last hour'), opt('86400', filters.since, 'last day'))));
  const chips = h('div', { class: 'counts', role: 'group', 'aria-label': 'Counts by outcome' },
    h('button', { type: 'button', class: 'count', 'aria-pressed': String(!filters.state), onclick: () => { filters.state = ''; render(); } }, h('b', {}, all.length), 'all'),
    STATES.filter(s => counts[s]).map(s => h('button', { type: 'button', class: 'count', id: 'count-' + s, 'aria-pressed': String(filters.state === s),
      onclick: () => { filters.state = filters.state === s ? '' : s; render(); } }, h('b', {}, counts[s]), stateBadge(s))));
  const rows = shown.map(c => {
    const tr = h('tr', { class: state.fresh.has(c.key) ? 'fresh' : '', 'data-key': c.key },
      h('td', { class: 'when' }, when(c.first)),
      h('td', { class: 'mono' }, c.tenant),
      h('td', { class: 'mono' }, c.tool),
      h('td', {}, stateBadge(c.state), c.decision ? [' ', badge(c.decision, c.decision === 'denied' ? 's-denied' : 's-succeeded')] : null),
      h('td', {}, traceLink(c)),
      h('td', { class: 'mono hide-narrow' }, c.response_id),
      h('td', { class: 'detail' }, h('div', { class: 'clip', title: [c.reason, c.detail].filter(Boolean).join(': ') || c.arguments }, [c.reason, c.detail].filter(Boolean).join(': ') || c.arguments)));
    return tr;
  });
  state.fresh.clear();
  return h('section', {}, h('h1', {}, 'Calls'), form, chips,
    h('div', { class: 'tablewrap' }, h('table', { id: 'calls' },
      h('colgroup', {}, h('col', { width: '9%' }), h('col', { width: '10%' }), h('col', { width: '13%' }), h('col', { width: '14%' }), h('col', { width: '18%' }), h('col', { width: '14%', class: 'hide-narrow' }), h('col', {})),
      h('thead', {}, h('tr', {}, h('th', {}, 'First seen'), h('th', {}, 'Tenant'), h('th', {}, 'Tool'), h('th', {}, 'Outcome'), h('th', {}, 'Call'), h('th', { class: 'hide-narrow' }, 'Response'), h('th', {}, 'Detail'))),
      h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: 7, class: 'empty' }, 'No calls yet. They appear here as the log records them.'))))));
}

// One call: its lineage as trace prints it.
function callPage() {
  const q = state.query;
  const box = h('section', {}, h('h1', {}, 'Call ', h('span', { class: 'mono' }, q.get('id'))), h('p', { class: 'sub' }, 'Reading the log…'));
  api('/api/trace?' + q).then(tr => box.replaceChildren(traceView(tr)), err => box.replaceChildren(h('h1', {}, 'Call'), errorBox(err)));
  return box;
}

function traceView(tr) {
  const kv = [['Tenant', tr.tenant], ['Tool', tr.tool], ['Call id', tr.call_id], ['Item', tr.item_id], ['Response', tr.response_id], ['Key', tr.key],
    ['Outcome', tr.outcome + (tr.reason ? ' (' + tr.reason + ')' : '')], ['Result', tr.result]];
  if (tr.built) {
    const b = tr.built;
    let from = `${b.deltas} deltas, ${b.bytes} bytes, log seq ${b.first_seq}–${b.last_seq}`;
    if (b.raw_first_seq) from += `; raw events TS_IN ${b.raw_first_seq}–${b.raw_last_seq}`;
    if (b.raw_stream) from += `; normalised at the edge from ${b.raw_stream} positions ${b.raw_first_pos}–${b.raw_last_pos}`;
    kv.push(['Built from', from]);
  }
  if (tr.record) {
    const r = tr.record;
    kv.push(['Executor record', [r.State, r.Approval && 'approval ' + r.Approval, r.Attempts && r.Attempts + ' attempt(s)', r.Takeovers && r.Takeovers + ' takeover(s)',
      r.Owner && 'lease ' + r.Owner, r.Error && r.Error + ': ' + r.Message].filter(Boolean).join(' · ')]);
  }
  const steps = tr.steps || [];
  let prev = null;
  const items = steps.map(s => {
    const dt = prev ? (new Date(s.stored) - new Date(prev.stored)) : 0;
    prev = s;
    return h('li', { class: 'st-' + s.stage },
      h('div', { class: 'step-head' }, badge(s.stage), h('strong', {}, s.kind), h('span', { class: 'when' }, `seq ${s.seq} · ${when(s.stored)}` + (dt ? ` · +${dt} ms` : ''))),
      s.what ? h('div', { class: 'step-what' }, s.what) : null);
  });
  return h('div', {},
    h('h1', {}, 'Call ', h('span', { class: 'mono' }, tr.call_id || tr.item_id), ' ', badge(tr.result || tr.outcome, 's-' + (tr.result || tr.outcome))),
    h('div', { class: 'panel' }, h('dl', { class: 'kv' }, kv.filter(([, v]) => v).map(([k, v]) => [h('dt', {}, k), h('dd', { class: 'mono' }, v)]))),
    h('h2', {}, 'Timeline'),
    h('div', { class: 'panel' }, items.length ? h('ol', { class: 'timeline', id: 'timeline' }, items) : h('p', { class: 'empty' }, 'No steps.')),
    tr.served && tr.served.prompt ? [h('h2', {}, 'Prompt'), h('div', { class: 'panel' },
      h('p', {}, `Sent through the gateway (${tr.served.api}${tr.served.upstream ? ', upstream ' + tr.served.upstream : ''}), ${tr.served.prompt.bytes} bytes, gateway seq ${tr.served.prompt.seq}` +
        (tr.served.prompt.truncated ? `; kept without ${(tr.served.prompt.left || []).join(', ')}` : '')),
      h('pre', { class: 'mono', id: 'prompt' }, JSON.stringify(tr.served.prompt.json, null, 2)))] : null,
    tr.attempts && tr.attempts.length ? [h('h2', {}, 'Attempts and lease holders'), table(['Attempt', 'Executor', 'Seq', 'Stored'], tr.attempts.map(a => [a.attempt, a.executor, a.seq, when(a.stored)]))] : null,
    tr.verdicts && tr.verdicts.length ? [h('h2', {}, 'Verdicts citing this call'), table(['Response', 'Claim', 'Verdict', 'Pointer', 'Value'], tr.verdicts.map(v => [v.response_id, v.claim, badge(v.verdict, 'v-' + v.verdict), v.pointer, v.value]))] : null,
    tr.timings && tr.timings.length ? [h('h2', {}, 'Timings'), table(['From', 'To', 'Stream time', 'Event time'], tr.timings.map(t => [t.from, t.to, ms(t.stream_ns), ms(t.event_ns)]))] : null);
}
const ms = ns => (ns / 1e6).toFixed(ns < 1e7 ? 2 : 0) + ' ms';

function table(heads, rows, id) {
  return h('div', { class: 'tablewrap' }, h('table', { id },
    h('thead', {}, h('tr', {}, heads.map(x => h('th', {}, x)))),
    h('tbody', {}, rows.length ? rows.map(r => h('tr', {}, r.map(c => h('td', {}, c)))) : h('tr', {}, h('td', { colspan: heads.length, class: 'empty' }, 'None.')))));
}

// Approvals: the calls waiting for a person.
let sideEffects = {};
function approvalsPage() {
  const waiting = [...state.calls.values()].filter(c => c.state === 'awaiting_approval').sort((a, b) => a.order - b.order);
  const decided = [...state.calls.values()].filter(c => c.decision).sort((a, b) => b.order - a.order).slice(0, 20);
  const may = state.me.may_decide;
  if (!state.fetchingSideEffects && waiting.some(c => !(c.tool in sideEffects))) {
    state.fetchingSideEffects = true; // once per tool: the registry's level of each waiting call's tool
    api('/api/approvals').then(d => {
      for (const c of waiting) if (!(c.tool in sideEffects)) sideEffects[c.tool] = '';
      for (const a of d.approvals) sideEffects[a.tool] = a.side_effect || '';
      state.fetchingSideEffects = false;
      if (state.page === 'approvals') render();
    }, () => { for (const c of waiting) sideEffects[c.tool] = ''; state.fetchingSideEffects = false; });
  }
  const cards = waiting.map((c, i) => {
    const reasonId = 'reason-' + i;
    const msg = h('span', { class: 'sub', role: 'status' });
    const decide = async (decision, btn) => {
      const reason = document.getElementById(reasonId).value;
      if (decision === 'deny' && !reason.trim()) { msg.textContent = 'A denial needs a reason.'; document.getElementById(reasonId).focus(); return; }
      btn.disabled = true;
      try {
        await api('/api/decide', { tenant: c.tenant, key: c.key, decision, reason });
        msg.textContent = decision === 'approve' ? 'Approved: waiting for an executor…' : 'Denied.';
      } catch (err) { msg.textContent = err.message; btn.disabled = false; }
    };
    const se = sideEffects[c.tool];
    return h('article', { class: 'card', 'data-key': c.key, 'aria-label': 'Approval of ' + c.tool },
      h('h3', {}, h('span', { class: 'mono' }, c.tool), se ? badge(se, 'se-' + se) : null, stateBadge(c.state)),
      h('dl', { class: 'kv' }, h('dt', {}, 'Tenant'), h('dd', { class: 'mono' }, c.tenant), h('dt', {}, 'Call'), h('dd', {}, traceLink(c)),
        h('dt', {}, 'Key'), h('dd', { class: 'mono' }, c.key), h('dt', {}, 'Waiting since'), h('dd', {}, day(c.last))),
      h('pre', { class: 'args', 'aria-label': 'Arguments' }, pretty(c.arguments)),
      may ? h('div', { class: 'actions' },
        h('input', { id: reasonId, placeholder: 'Reason (required to deny)', 'aria-label': 'Reason' }),
        h('button', { type: 'button', class: 'ok', 'data-action': 'approve', onclick: e => decide('approve', e.currentTarget) }, 'Approve'),
        h('button', { type: 'button', class: 'danger', 'data-action': 'deny', onclick: e => decide('deny', e.currentTarget) }, 'Deny'), msg)
        : h('p', { class: 'sub' }, 'Your role (' + state.me.role + ') may not decide.'));
  });
  return h('section', {}, h('h1', {}, 'Approvals'),
    cards.length ? h('div', { class: 'cards', id: 'approvals' }, cards) : h('p', { class: 'panel empty' }, 'Nothing waits for approval.'),
    h('h2', {}, 'Recently decided'),
    table(['Tool', 'Tenant', 'Call', 'Decision', 'By', 'Reason', 'Now'], decided.map(c => [
      h('span', { class: 'mono' }, c.tool), h('span', { class: 'mono' }, c.tenant), traceLink(c), badge(c.decision, c.decision === 'denied' ? 's-denied' : 's-succeeded'),
      c.decided_by, c.decision_reason, stateBadge(c.state)]), 'decided'));
}

// Answers: claims highlighted by verdict, evidence beside each.
function answersPage() {
  if (!state.answersLoaded) {
    state.answersLoaded = true;
    api('/api/answers').then(d => { for (const a of d.answers) state.answers.set(a.tenant + '/' + a.response_id, a); render(); }, err => main().replaceChildren(errorBox(err)));
  }
  const list = [...state.answers.values()].sort((a, b) => b.order - a.order);
  return h('section', {}, h('h1', {}, 'Answers'),
    h('p', { class: 'sub' }, 'Each verified final answer, its claims marked by verdict: ', badge('supported', 'v-supported'), ' ', badge('contradicted', 'v-contradicted'), ' ', badge('unsupported', 'v-unsupported'), ' ', badge('not checkable', 'v-not_checkable')),
    list.length ? list.map(answerView) : h('p', { class: 'panel empty' }, 'No verified answers yet.'));
}

function answerView(a) {
  const runes = Array.from(a.text || '');
  const claims = [...(a.claims || [])].sort((x, y) => x.start - y.start);
  const text = h('div', { class: 'answer-text' });
  let at = 0;
  claims.forEach((c, i) => {
    if (c.start < at || c.end > runes.length || c.start >= c.end) return;
    text.append(runes.slice(at, c.start).join(''));
    text.append(h('mark', { class: 'v-' + c.verdict, title: c.verdict, id: `claim-${a.response_id}-${i}` }, runes.slice(c.start, c.end).join('')));
    at = c.end;
  });
  text.append(runes.slice(at).join(''));
  return h('article', { class: 'panel answer', 'data-response': a.response_id },
    h('h3', {}, h('span', { class: 'mono' }, a.response_id), ' ', h('span', { class: 'sub' }, a.tenant + ' · faithfulness ' + (a.faithfulness * 100).toFixed(0) + '% · policy ' + (a.policy || '—')), a.blocked ? [' ', badge('blocked', 's-failed')] : null),
    text,
    a.repaired ? h('p', {}, h('strong', {}, 'Repaired: '), a.repaired) : null,
    h('ul', { class: 'claims' }, claims.map(c => h('li', {},
      h('div', {}, badge(c.verdict.replace('_', ' '), 'v-' + c.verdict), ' ', c.text, c.reason ? h('div', { class: 'sub' }, c.reason) : null),
      h('div', { class: 'evidence' }, (c.evidence || []).length ? c.evidence.map(e => h('div', {},
        h('a', { href: '#/call?' + new URLSearchParams({ tenant: a.tenant, id: e.call_id }) }, e.call_id), ' ', e.pointer || '/', ' = ', h('span', { class: 'val' }, e.value))) : 'no evidence')))));
}

// Memory: a user's records, versions, supersession; correct and forget.
const mem = { tenant: '', user: '', history: true, records: null, error: null, versions: {} };
function memoryPage() {
  if (!mem.tenant) mem.tenant = state.me.tenant || '';
  const load = async () => {
    mem.tenant = document.getElementById('m-tenant').value.trim();
    mem.user = document.getElementById('m-user').value.trim();
    mem.history = document.getElementById('m-history').checked;
    mem.error = null; mem.versions = {};
    try {
      const q = new URLSearchParams({ tenant: mem.tenant, user: mem.user });
      if (mem.history) q.set('history', '1');
      mem.records = (await api('/api/memory?' + q)).records || [];
    } catch (err) { mem.error = err; mem.records = null; }
    render();
  };
  const form = h('form', { class: 'filters panel', onsubmit: e => { e.preventDefault(); load(); } },
    h('label', {}, 'Tenant', h('input', { id: 'm-tenant', value: mem.tenant, required: true, readonly: !!state.me.tenant })),
    h('label', {}, 'User', h('input', { id: 'm-user', value: mem.user, required: true })),
    h('label', { class: 'inline' }, h('input', { type: 'checkbox', id: 'm-history', checked: mem.history }), 'Superseded, expired and cold too'),
    h('button', { type: 'submit', class: 'primary' }, 'Show records'));
  let body = null;
  if (mem.error) body = errorBox(mem.error);
  else if (mem.records) body = mem.records.length ? memoryTable() : h('p', { class: 'panel empty' }, 'No records.');
  return h('section', {}, h('h1', {}, 'Memory'), form, body);
}

function validity(r) {
  const from = nsDate(r.valid_from);
  return from + ' → ' + (r.valid_until ? nsDate(r.valid_until) : r.ended_at ? nsDate(r.ended_at) : 'open');
}

function memoryTable() {
  const may = state.me.may_write_memory;
  const rows = [];
  mem.records.forEach((r, i) => {
    const msg = h('div', { class: 'sub', role: 'status' });
    const forget = async btn => {
      if (!confirm(`Forget ${r.id}? Every version of it is erased from the views and made unreadable in the log.`)) return;
      btn.disabled = true; msg.textContent = 'Forgetting…';
      try { await api('/api/memory/forget', { tenant: mem.tenant, user: mem.user, id: r.id }); msg.textContent = 'Forgotten.'; mem.records = mem.records.filter(x => x.id !== r.id); setTimeout(render, 600); }
      catch (err) { msg.textContent = err.message; btn.disabled = false; }
    };
    const correct = async () => {
      const text = prompt('Corrected statement for ' + r.id, r.text);
      if (text === null || !text.trim()) return;
      msg.textContent = 'Correcting…';
      try { // the text changes, the slot stays
        await api('/api/memory/correct', { tenant: mem.tenant, user: mem.user, id: r.id, text, expected_version: r.version,
          kind: r.kind, subject: r.subject || '', attribute: r.attribute || '', value: r.value || '', polarity: r.polarity || '' });
        document.querySelector('form.filters').requestSubmit();
      }
      catch (err) { msg.textContent = err.message; }
    };
    const history = async () => {
      if (mem.versions[r.id]) { delete mem.versions[r.id]; render(); return; }
      try { mem.versions[r.id] = (await api('/api/memory/history?' + new URLSearchParams({ tenant: mem.tenant, user: mem.user, id: r.id }))).records || []; render(); }
      catch (err) { msg.textContent = err.message; }
    };
    const active = r.status === 'active';
    rows.push(h('tr', { 'data-id': r.id },
      h('td', { class: 'mono' }, r.id, h('div', { class: 'sub' }, 'v' + r.version)),
      h('td', {}, r.kind, r.subject ? h('div', { class: 'sub mono' }, [r.subject, r.attribute, r.value].filter(Boolean).join(' · ')) : null),
      h('td', {}, r.text),
      h('td', {}, badge(r.status, active ? 'b-closed' : 'b-half_open')),
      h('td', { class: 'when' }, validity(r)),
      h('td', { class: 'mono' }, (r.supersedes || []).length ? ['replaces ', r.supersedes.join(', ')] : null, r.superseded_by ? h('div', {}, 'replaced by ', r.superseded_by) : null),
      h('td', {}, h('div', { class: 'actions' },
        h('button', { type: 'button', onclick: history, 'aria-expanded': String(!!mem.versions[r.id]) }, 'Versions'),
        may && active ? h('button', { type: 'button', 'data-action': 'correct', onclick: correct }, 'Correct') : null,
        may ? h('button', { type: 'button', class: 'danger', 'data-action': 'forget', id: 'forget-' + i, onclick: e => forget(e.currentTarget) }, 'Forget') : null), msg)));
    for (const v of mem.versions[r.id] || []) {
      rows.push(h('tr', { class: 'history-row' }, h('td', { class: 'mono' }, '↳ v' + v.version), h('td', {}, v.kind), h('td', {}, v.text), h('td', {}, badge(v.status)), h('td', { class: 'when' }, validity(v)),
        h('td', { class: 'mono' }, v.superseded_by ? 'replaced by ' + v.superseded_by : ''), h('td', { class: 'sub mono' }, v.source)));
    }
  });
  return h('div', { class: 'tablewrap' }, h('table', { id: 'memory' },
    h('colgroup', {}, h('col', { width: '14%' }), h('col', { width: '12%' }), h('col', {}), h('col', { width: '9%' }), h('col', { width: '17%' }), h('col', { width: '12%' }), h('col', { width: '16%' })),
    h('thead', {}, h('tr', {}, ['Record', 'Kind', 'Text', 'Status', 'Valid', 'Supersession', ''].map(x => h('th', {}, x)))),
    h('tbody', {}, rows)));
}

// Runs: each run's state and signals; a run's rounds, calls and outcomes.
const rn = { tenant: '', list: null, error: null, open: {} };
function runsPage() {
  if (!rn.tenant) rn.tenant = state.me.tenant || filters.tenant || ([...state.calls.values()][0] || {}).tenant || '';
  const load = async () => {
    rn.tenant = document.getElementById('r-tenant').value.trim();
    rn.error = null; rn.open = {};
    try { rn.list = (await api('/api/runs?' + new URLSearchParams({ tenant: rn.tenant }))).list || []; } catch (err) { rn.error = err; rn.list = null; }
    render();
  };
  if (rn.list === null && rn.tenant && !rn.error && !rn.loading) {
    rn.loading = true;
    api('/api/runs?' + new URLSearchParams({ tenant: rn.tenant })).then(d => { rn.list = d.list || []; }, err => { rn.error = err; })
      .finally(() => { rn.loading = false; if (state.page === 'runs') render(); });
  }
  const form = h('form', { class: 'filters panel', onsubmit: e => { e.preventDefault(); load(); } },
    h('label', {}, 'Tenant', h('input', { id: 'r-tenant', value: rn.tenant, required: true, readonly: !!state.me.tenant })),
    h('button', { type: 'submit', class: 'primary' }, 'Show runs'));
  let body = null;
  if (rn.error) body = errorBox(rn.error);
  else if (rn.list) body = rn.list.length ? runsTable() : h('p', { class: 'panel empty' }, 'No runs.');
  return h('section', {}, h('h1', {}, 'Runs'), form, body);
}

function runsTable() {
  const rows = [];
  const sorted = [...rn.list].sort((a, b) => b.last_at - a.last_at);
  for (const r of sorted) {
    const toggle = async () => {
      if (rn.open[r.run]) { delete rn.open[r.run]; render(); return; }
      try { rn.open[r.run] = (await api('/api/runs/rounds?' + new URLSearchParams({ tenant: r.tenant, run: r.run }))).rounds || []; }
      catch (err) { rn.open[r.run] = err; }
      render();
    };
    const signals = [r.degraded ? badge('degraded', 's-failed') : null, r.rounds_without_new_evidence ? badge(r.rounds_without_new_evidence + ' rounds without new evidence', 's-awaiting_approval') : null,
      r.waiting_approval ? badge(r.waiting_approval + ' waiting approval', 's-awaiting_approval') : null];
    rows.push(h('tr', { 'data-run': r.run },
      h('td', {}, h('button', { type: 'button', class: 'link-dark mono', onclick: toggle, 'aria-expanded': String(!!rn.open[r.run]) }, r.run)),
      h('td', {}, stateBadge(r.status || 'open')),
      h('td', {}, r.settled + ' / ' + r.rounds, r.open_rounds ? h('div', { class: 'sub' }, r.open_rounds + ' open') : null),
      h('td', {}, r.calls, r.failures ? h('div', { class: 'sub' }, r.failures + ' failed (' + r.failures_in_row + ' in a row)') : null),
      h('td', {}, r.last_round ? stateBadge(r.last_round) : ''),
      h('td', {}, signals),
      h('td', { class: 'when' }, nsDate(r.last_at))));
    const open = rn.open[r.run];
    if (open instanceof Error) rows.push(h('tr', {}, h('td', { colspan: 7 }, errorBox(open))));
    else if (open) for (const rd of open) {
      rows.push(h('tr', { class: 'history-row' },
        h('td', { class: 'mono' }, '↳ round ' + rd.round), h('td', {}, stateBadge(rd.status || 'open')),
        h('td', { class: 'mono', colspan: 2 }, rd.response, rd.response_status ? h('div', { class: 'sub' }, rd.response_status + (rd.response_reason ? ' (' + rd.response_reason + ')' : '')) : null),
        h('td', { colspan: 3 }, (rd.calls || []).length ? h('ul', { class: 'plain' }, rd.calls.map(c => h('li', {},
          stateBadge(c.state), ' ', h('a', { class: 'mono', href: '#/call?' + new URLSearchParams({ tenant: r.tenant, id: c.call_id || c.item, response: rd.response }) }, c.name || c.item),
          c.summary || c.message ? h('span', { class: 'sub' }, ' ' + (c.summary || (c.error + ': ' + c.message))) : null))) : h('span', { class: 'sub' }, 'no calls'))));
    }
  }
  return h('div', { class: 'tablewrap' }, h('table', { id: 'runs' },
    h('colgroup', {}, h('col', { width: '22%' }), h('col', { width: '11%' }), h('col', { width: '9%' }), h('col', { width: '11%' }), h('col', { width: '11%' }), h('col', {}), h('col', { width: '15%' })),
    h('thead', {}, h('tr', {}, ['Run', 'Status', 'Rounds settled', 'Calls', 'Last round', 'Signals', 'Last event'].map(x => h('th', {}, x)))),
    h('tbody', {}, rows)));
}

// Health: lag, relay backlog, open calls, breakers.
function healthPage() {
  const box = h('section', {}, h('h1', {}, 'Health'), h('p', { class: 'sub' }, 'Measuring…'));
  const load = () => api('/api/health').then(hl => box.replaceChildren(healthView(hl)), err => box.replaceChildren(h('h1', {}, 'Health'), errorBox(err)));
  load();
  state.timer = setInterval(() => { if (state.page === 'health') load(); }, 2000);
  return box;
}

function healthView(hl) {
  const yes = b => badge(b ? 'yes' : 'no', b ? 'b-yes' : 'b-no');
  const stats = [['Log connection', hl.connected ? 'up' : 'down'], ['Calls in flight', hl.pending]];
  if (hl.open_calls !== undefined) stats.push(['Assembler: open calls', hl.open_calls], ['Assembler: open responses', hl.open_responses]);
  const ex = hl.executor;
  return h('div', {}, h('h1', {}, 'Health ', h('span', { class: 'sub' }, 'measured ' + when(hl.at))),
    h('div', { class: 'grid2' }, stats.map(([k, v]) => h('div', { class: 'panel' }, h('div', { class: 'sub' }, k), h('div', { class: 'stat' }, v)))),
    h('h2', {}, 'Projections'),
    table(['Projection', 'Stream', 'Running', 'Checkpoint', 'Stream last', 'Lag', 'Relay backlog', 'Applied', 'Rejected'],
      (hl.projections || []).map(p => [h('span', { class: 'mono' }, p.name), p.stream, yes(p.running), p.checkpoint, p.last, h('strong', {}, p.lag), p.relay_backlog, p.applied, p.rejected]), 'projections'),
    ex ? [h('h2', {}, 'Executor'), table(['Invoked', 'Succeeded', 'Failed', 'Duplicates', 'Takeovers', 'Dropped'], [[ex.Invoked, ex.Succeeded, ex.Failed, ex.Duplicates, ex.Takeovers, ex.Dropped]])] : null,
    h('h2', {}, 'Circuit breakers'),
    hl.breakers.length ? table(['Tenant', 'Tool', 'State', 'Failures', 'Open until'], hl.breakers.map(b => [b.tenant, b.tool, badge(b.state.replace('_', ' '), 'b-' + b.state), b.failures, day(b.open_until)]), 'breakers')
      : h('p', { class: 'panel empty' }, 'Every circuit is closed: no tool of this process has failing invocations.'));
}

async function start() {
  try { state.me = await api('/api/me'); } catch (err) { main().replaceChildren(errorBox(err)); return; }
  document.getElementById('who').textContent = state.me.role + (state.me.tenant ? ' · tenant ' + state.me.tenant : ' · every tenant');
  document.getElementById('signout').addEventListener('click', async () => {
    await fetch('/signout', { method: 'POST', credentials: 'same-origin', headers: { 'X-Console-CSRF': state.me.csrf } });
    location.replace('/');
  });
  window.addEventListener('hashchange', route);
  route();
  connect();
}
document.addEventListener('DOMContentLoaded', start);
