import type { Hono } from 'hono';
import { INBOX_SCRIPT } from './approvals-inbox-script.js';
import { INBOX_STYLE } from './approvals-inbox-style.js';
import { DOCS_CSP } from './docs.js';

/**
 * The approval inbox (/approvals): a page a tenant's approver opens on any device, signs in to with
 * an approver token, and decides waiting calls from. Same rules as /docs: everything from this
 * origin, nothing inline, no request anywhere else (the CSP enforces it).
 */
const PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width, initial-scale=1">' +
  '<title>hookgate approvals</title><link rel="stylesheet" href="/approvals/assets/inbox.css"></head>' +
  '<body><header><h1>Approvals</h1><span id="who"></span>' +
  '<button id="sign-out" type="button" hidden>Sign out</button></header><main>' +
  '<form id="sign-in-form"><label for="token">Approver token</label>' +
  '<input id="token" type="password" autocomplete="off" spellcheck="false">' +
  '<button id="sign-in" type="submit">Sign in</button><p id="sign-in-error" role="alert"></p>' +
  '<p class="hint">The token stays in this tab and is sent only in the Authorization header.</p></form>' +
  '<section id="inbox" hidden><p id="status" role="status" aria-live="polite"></p>' +
  '<p id="empty">Nothing is waiting for a decision.</p><ul id="requests"></ul></section>' +
  '<noscript>The approval inbox needs JavaScript.</noscript></main>' +
  '<script src="/approvals/assets/inbox.js"></script></body></html>';

const securityHeaders = {
  'content-security-policy': DOCS_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export function approvalsPageRoutes(app: Hono<any>): void {
  app.get('/approvals', (c) => c.html(PAGE, 200, { ...securityHeaders, 'cache-control': 'no-store' }));
  app.get('/approvals/assets/inbox.js', (c) =>
    c.body(INBOX_SCRIPT, 200, {
      ...securityHeaders,
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-cache',
    }),
  );
  app.get('/approvals/assets/inbox.css', (c) =>
    c.body(INBOX_STYLE, 200, {
      ...securityHeaders,
      'content-type': 'text/css; charset=utf-8',
      'cache-control': 'no-cache',
    }),
  );
}
