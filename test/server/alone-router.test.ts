import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { AloneRouter, alone } from '../../src/server/alone-router.js';

/** An app with a `*` middleware that records what it saw, one lone route and one ordinary one. */
function app(extraRoutes: (app: Hono) => void = () => {}) {
  const seen: string[] = [];
  const router = new AloneRouter<any>();
  const app = new Hono({ router });
  app.use('*', async (c, next) => {
    seen.push(c.req.path);
    await next();
    c.header('x-middleware', 'ran');
  });
  app.post(
    '/calls/:id',
    alone((c) => c.text(`lone ${c.req.param('id')}`)),
  );
  app.get('/calls/:id', (c) => c.text(`ordinary ${c.req.param('id')}`));
  extraRoutes(app);
  return { app, seen, router };
}

describe('AloneRouter', () => {
  it('runs a lone handler without the middleware matched with it; every other route keeps them', async () => {
    const { app: a, seen, router } = app();
    const lone = await a.request('/calls/7', { method: 'POST' });
    expect(router.name).toMatch(/RegExpRouter$/);
    expect([lone.status, await lone.text(), lone.headers.get('x-middleware')]).toEqual([200, 'lone 7', null]);
    const ordinary = await a.request('/calls/8');
    expect([ordinary.status, await ordinary.text(), ordinary.headers.get('x-middleware')]).toEqual([
      200,
      'ordinary 8',
      'ran',
    ]);
    const missing = await a.request('/nowhere');
    expect([missing.status, missing.headers.get('x-middleware')]).toEqual([404, 'ran']);
    expect(seen).toEqual(['/calls/8', '/nowhere']);
  });

  it('answers the same on every request of a route, with each request’s own params', async () => {
    const { app: a, seen } = app();
    for (const id of ['1', '2', '3']) {
      expect(await (await a.request(`/calls/${id}`, { method: 'POST' })).text()).toBe(`lone ${id}`);
      expect(await (await a.request(`/calls/${id}`)).text()).toBe(`ordinary ${id}`);
    }
    expect(seen).toEqual(['/calls/1', '/calls/2', '/calls/3']);
  });

  it('does the same where hono falls back from its RegExpRouter to the TrieRouter', async () => {
    // Two patterns for one path the RegExpRouter cannot tell apart: hono routes with the TrieRouter.
    const {
      app: a,
      seen,
      router,
    } = app((a) => {
      a.get('/x/:a{a|b}', (c) => c.text('ab'));
      a.get('/x/:a{a.*}', (c) => c.text('a*'));
    });
    expect(await (await a.request('/calls/9', { method: 'POST' })).text()).toBe('lone 9');
    expect(await (await a.request('/calls/9')).text()).toBe('ordinary 9');
    expect(seen).toEqual(['/calls/9']);
    expect(router.name).toMatch(/TrieRouter$/);
  });

  it('leaves a handler unmarked unless given to alone, and marks it without changing what it does', () => {
    const handler = () => 1;
    expect(alone(handler)).toBe(handler);
    expect(handler()).toBe(1);
    expect(Object.keys(handler)).toEqual([]);
  });
});
