import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';

const ALONE = Symbol('alone');

/**
 * Marks a route handler that runs alone: when the router matches it, the middleware matched with it
 * (the app's `*` request context) are left out, and the handler does their work itself. Hono calls
 * a lone handler directly; two or more it composes, which costs a call four async functions,
 * their closures and about 2 KB more (see docs/performance.md). For the routes every hook call takes.
 */
export function alone<H extends (...args: never[]) => unknown>(handler: H): H {
  Object.defineProperty(handler, ALONE, { value: true });
  return handler;
}

function isAlone(handler: unknown): boolean {
  return typeof handler === 'function' && (handler as unknown as Record<symbol, unknown>)[ALONE] === true;
}

/** What hono stores in its router per route: the handler first (hono-base's `[handler, route]`). */
type RouteData = readonly [unknown, ...unknown[]];

/**
 * Hono's default router (RegExpRouter, TrieRouter where it cannot), except that a match holding a
 * lone handler (see `alone`) comes back with that handler only.
 */
export class AloneRouter<T extends RouteData> implements Router<T> {
  /** Names the router in use once the first request chose it (e.g. "AloneRouter + SmartRouter + RegExpRouter"). */
  get name(): string {
    return `AloneRouter + ${this.#inner.name}`;
  }
  readonly #inner = new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] });

  add(method: string, path: string, handler: T): void {
    this.#inner.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    const result = this.#inner.match(method, path);
    const matched = result[0];
    if (matched.length < 2) return result;
    // Two or three entries on any route of this app: looked through per request rather than kept
    // per list (the TrieRouter makes a new list for every request, which a cache would keep).
    const lone = matched.find((entry) => isAlone(entry[0][0]));
    if (lone === undefined) return result;
    return (result.length === 1 ? [[lone]] : [[lone], result[1]]) as Result<T>;
  }
}
