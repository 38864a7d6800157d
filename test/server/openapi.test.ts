import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { renderOpenApi } from '../../scripts/gen-openapi.js';
import { REPO } from '../helpers/gateway.js';

const FILE = join(REPO, 'openapi', 'openapi.json');

describe('openapi/openapi.json', () => {
  it('is what the route definitions generate (run `npm run openapi` after changing routes)', () => {
    expect(readFileSync(FILE, 'utf8')).toBe(renderOpenApi());
  });

  it('documents every public route', () => {
    const doc = JSON.parse(readFileSync(FILE, 'utf8'));
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/admin/reload',
      '/healthz',
      '/metrics',
      '/readyz',
      '/v1/tenants/{tenant}/approvals',
      '/v1/tenants/{tenant}/approvals/events',
      '/v1/tenants/{tenant}/approvals/{id}',
      '/v1/tenants/{tenant}/hooks/{hook}',
      '/v1/tenants/{tenant}/hooks/{hook}/claude-code',
      '/v1/tenants/{tenant}/hooks/{hook}/codex',
      '/v1/tenants/{tenant}/hooks/{hook}/copilot',
      '/v1/tenants/{tenant}/hooks/{hook}/gemini',
      '/v1/tenants/{tenant}/hooks/{hook}/hermes',
      '/v1/tenants/{tenant}/hooks/{hook}/mcp',
      '/v1/tenants/{tenant}/hooks/{hook}/openclaw',
      '/v1/tenants/{tenant}/hooks/{hook}/ws',
    ]);
    // GET and DELETE answer 405 (a stateless MCP server): not operations, said in POST's description.
    expect(Object.keys(doc.paths['/v1/tenants/{tenant}/hooks/{hook}/mcp'])).toEqual(['post']);
    expect(doc.paths['/v1/tenants/{tenant}/hooks/{hook}'].post.responses).toHaveProperty('401');
  });

  it('passes redocly lint', async () => {
    const bin = join(REPO, 'node_modules', '.bin', 'redocly');
    const { stdout, stderr } = await promisify(execFile)(bin, ['lint', FILE, '--format=stylish'], {
      cwd: REPO,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    expect(`${stdout}${stderr}`).toMatch(/valid/);
  }, 60_000);
});
