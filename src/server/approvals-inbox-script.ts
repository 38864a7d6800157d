/**
 * The approval inbox's script, served as /approvals/assets/inbox.js (a file, so the page's CSP
 * allows no inline script). Plain ES2017 in a string: it runs in the approver's browser, not here.
 * The token lives in sessionStorage (this tab only) and leaves only in the Authorization header;
 * live updates come over fetch() streaming because EventSource cannot send that header. Every
 * value from a request is written with textContent, never as HTML.
 */
export const INBOX_SCRIPT = String.raw`(function () {
  'use strict';
  var STORAGE_KEY = 'hookgate.approver-token';
  var RETRY_MS = 3000;
  var token = null;
  var tenant = null;
  var stream = null;
  var cards = new Map();

  function el(id) { return document.getElementById(id); }
  function make(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function status(text, isError) {
    var s = el('status');
    s.textContent = text;
    s.className = isError ? 'error' : '';
  }
  function claimsOf(jwt) {
    var part = jwt.split('.')[1];
    if (!part) throw new Error('not a JWT');
    part = part.replace(/-/g, '+').replace(/_/g, '/');
    while (part.length % 4) part += '=';
    var bytes = Uint8Array.from(atob(part), function (c) { return c.charCodeAt(0); });
    return JSON.parse(new TextDecoder().decode(bytes));
  }
  function api(path) { return '/v1/tenants/' + encodeURIComponent(tenant) + '/approvals' + path; }
  function auth() { return { authorization: 'Bearer ' + token }; }
  function duration(ms) {
    var s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return s + ' s';
    var m = Math.floor(s / 60);
    if (m < 60) return m + ' min ' + (s % 60) + ' s';
    return Math.floor(m / 60) + ' h ' + (m % 60) + ' min';
  }

  function signIn(value) {
    var claims;
    try {
      claims = claimsOf(value);
    } catch (e) {
      el('sign-in-error').textContent = 'That is not a JWT.';
      return;
    }
    if (typeof claims.tenant !== 'string') {
      el('sign-in-error').textContent = 'The token names no tenant.';
      return;
    }
    token = value;
    tenant = claims.tenant;
    sessionStorage.setItem(STORAGE_KEY, value);
    el('sign-in-error').textContent = '';
    el('token').value = '';
    el('sign-in-form').hidden = true;
    el('inbox').hidden = false;
    el('sign-out').hidden = false;
    el('who').textContent = (claims.sub || '?') + ' @ ' + tenant;
    connect();
  }

  function signOut(message) {
    sessionStorage.removeItem(STORAGE_KEY);
    token = null;
    tenant = null;
    if (stream) stream.abort();
    stream = null;
    cards.forEach(function (card) { card.remove(); });
    cards.clear();
    el('inbox').hidden = true;
    el('sign-out').hidden = true;
    el('sign-in-form').hidden = false;
    el('who').textContent = '';
    el('sign-in-error').textContent = message || '';
    updateEmpty();
  }

  function refused(res) {
    return res.json().then(
      function (body) { return (body && body.error && body.error.message) || ('HTTP ' + res.status); },
      function () { return 'HTTP ' + res.status; },
    );
  }

  function connect() {
    var controller = new AbortController();
    stream = controller;
    status('Connecting…');
    fetch(api('/events'), { headers: auth(), signal: controller.signal, cache: 'no-store' })
      .then(function (res) {
        if (res.status === 401 || res.status === 403) {
          return refused(res).then(function (why) { signOut('Signed out: ' + why); });
        }
        if (!res.ok || !res.body) throw new Error('HTTP ' + res.status);
        return read(res.body.getReader(), controller);
      })
      .catch(function (err) {
        if (controller.signal.aborted) return;
        status('Connection lost (' + err.message + '); retrying…', true);
      })
      .then(function () {
        if (stream === controller && token) setTimeout(function () { if (stream === controller && token) connect(); }, RETRY_MS);
      });
  }

  function read(reader, controller) {
    var decoder = new TextDecoder();
    var buffer = '';
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done) return;
        buffer += decoder.decode(chunk.value, { stream: true });
        var end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          onEvent(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
        if (!controller.signal.aborted) return pump();
      });
    }
    return pump();
  }

  function onEvent(block) {
    var name = 'message';
    var data = '';
    block.split('\n').forEach(function (line) {
      if (line.indexOf('event: ') === 0) name = line.slice(7);
      else if (line.indexOf('data: ') === 0) data += line.slice(6);
    });
    if (!data) return;
    var value = JSON.parse(data);
    if (name === 'ready') load();
    else if (name === 'created') add(value);
    else if (name === 'decided') settled(value);
  }

  function load() {
    fetch(api(''), { headers: auth(), cache: 'no-store' })
      .then(function (res) {
        if (!res.ok) return refused(res).then(function (why) { throw new Error(why); });
        return res.json();
      })
      .then(function (body) {
        body.approvals.forEach(add);
        status('Live: new requests appear here as they come.');
      })
      .catch(function (err) { status('Could not list the requests: ' + err.message, true); });
  }

  function add(req) {
    if (cards.has(req.id)) return;
    var card = make('li', 'request');
    card.dataset.id = req.id;
    card.dataset.since = String(req.created_at);
    card.dataset.expires = String(req.expires_at);
    card.appendChild(make('h2', 'tool', req.tool));
    var facts = make('dl', 'facts');
    [['Host', req.host], ['Hook', req.hook], ['Waiting', ''], ['Expires in', '']].forEach(function (pair) {
      facts.appendChild(make('dt', '', pair[0]));
      var dd = make('dd', pair[0] === 'Waiting' ? 'waiting' : pair[0] === 'Expires in' ? 'expires' : '', pair[1]);
      facts.appendChild(dd);
    });
    card.appendChild(facts);
    if (req.reason) card.appendChild(make('p', 'why', req.reason));
    if (req.args !== undefined) card.appendChild(make('pre', 'args', JSON.stringify(req.args, null, 2)));
    else card.appendChild(make('p', 'args-hidden', 'The arguments are not shown for this call.'));
    var label = make('label', 'reason-label', 'Reason (optional)');
    var reason = make('input', 'reason-input');
    reason.type = 'text';
    reason.maxLength = 1000;
    label.appendChild(reason);
    card.appendChild(label);
    var actions = make('div', 'actions');
    var approve = make('button', 'approve', 'Approve');
    var deny = make('button', 'deny', 'Deny');
    approve.type = deny.type = 'button';
    approve.addEventListener('click', function () { decide(req, card, 'approve', reason.value); });
    deny.addEventListener('click', function () { decide(req, card, 'deny', reason.value); });
    actions.appendChild(approve);
    actions.appendChild(deny);
    card.appendChild(actions);
    card.appendChild(make('p', 'card-error'));
    cards.set(req.id, card);
    el('requests').appendChild(card);
    tick();
    updateEmpty();
  }

  function decide(req, card, decision, reason) {
    var buttons = card.querySelectorAll('button');
    buttons.forEach(function (b) { b.disabled = true; });
    var body = { decision: decision, args_digest: req.args_digest };
    if (reason.trim()) body.reason = reason.trim();
    fetch(api('/' + encodeURIComponent(req.id)), {
      method: 'POST',
      headers: Object.assign({ 'content-type': 'application/json' }, auth()),
      body: JSON.stringify(body),
    })
      .then(function (res) {
        if (res.ok) return res.json().then(function (o) {
          remove(req.id);
          status((o.decision === 'approved' ? 'Approved ' : 'Denied ') + req.tool + '.');
        });
        return refused(res).then(function (why) {
          card.querySelector('.card-error').textContent = why;
          if (res.status === 409 || res.status === 410 || res.status === 404) {
            buttons.forEach(function (b) { b.disabled = true; });
          } else buttons.forEach(function (b) { b.disabled = false; });
        });
      })
      .catch(function (err) {
        card.querySelector('.card-error').textContent = err.message;
        buttons.forEach(function (b) { b.disabled = false; });
      });
  }

  function settled(outcome) {
    var card = cards.get(outcome.id);
    if (!card) return;
    var tool = card.querySelector('.tool').textContent;
    remove(outcome.id);
    var by = outcome.approver ? ' by ' + outcome.approver : '';
    status(tool + ': ' + outcome.decision + by + '.');
  }

  function remove(id) {
    var card = cards.get(id);
    if (card) card.remove();
    cards.delete(id);
    updateEmpty();
  }

  function updateEmpty() { el('empty').hidden = cards.size > 0; }

  function tick() {
    var now = Date.now();
    cards.forEach(function (card) {
      card.querySelector('.waiting').textContent = duration(now - Number(card.dataset.since));
      card.querySelector('.expires').textContent = duration(Number(card.dataset.expires) - now);
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    el('sign-in-form').addEventListener('submit', function (e) {
      e.preventDefault();
      var value = el('token').value.trim();
      if (value) signIn(value);
    });
    el('sign-out').addEventListener('click', function () { signOut(); });
    setInterval(tick, 1000);
    var saved = sessionStorage.getItem(STORAGE_KEY);
    if (saved) signIn(saved);
  });
})();
`;
