import { routes } from './openapi.js';

/**
 * The methods each documented path answers, for a 405 with `Allow` when a request uses another
 * one (RFC 9110 §15.5.6): a client that sent TRACE or PUT to a real route learns it used the wrong
 * method, not that the route does not exist. The routes are the OpenAPI route definitions, so the
 * header lists exactly what the document lists; the two open pages outside it are added here.
 */
const UNDOCUMENTED_GETS = ['/openapi.json', '/docs', '/approvals'];

interface PathMethods {
  pattern: RegExp;
  methods: Set<string>;
}

function collect(): PathMethods[] {
  const byPath = new Map<string, Set<string>>();
  const add = (path: string, method: string) => {
    const methods = byPath.get(path) ?? new Set<string>();
    byPath.set(path, methods);
    methods.add(method.toUpperCase());
  };
  for (const r of Object.values(routes)) add(r.path, r.method);
  for (const path of UNDOCUMENTED_GETS) add(path, 'get');
  // A path with fewer parameters first: /approvals/events is itself, not an {id} of /approvals/{id}.
  const params = (path: string) => path.split('{').length;
  return [...byPath]
    .sort(([a], [b]) => params(a) - params(b))
    .map(([path, methods]) => {
      // hono answers HEAD with its GET route.
      if (methods.has('GET')) methods.add('HEAD');
      const segments = path.split('/').map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : literal(s)));
      return { pattern: new RegExp(`^${segments.join('/')}$`), methods };
    });
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `path` → the `Allow` value of the documented route it names, or undefined for no such route. */
export function allowedMethods(): (path: string) => string | undefined {
  const paths = collect();
  return (path) => {
    const found = paths.find((p) => p.pattern.test(path));
    return found ? [...found.methods].join(', ') : undefined;
  };
}
