import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuthError } from '../../src/auth/errors.js';
import { QueueDeadlineError } from '../../src/backends/stdin-queue.js';
import { BackendError } from '../../src/backends/types.js';
import { BridgeUsageError } from '../../src/bridge/options.js';
import { UpstreamError } from '../../src/bridge/upstream.js';
import { ConfigError } from '../../src/config/errors.js';
import { PeerError } from '../../src/core/peer.js';
import { WebhookSecretError } from '../../src/core/webhook-signature.js';
import { HookgateError } from '../../src/lib/errors.js';
import { UsageError } from '../../src/node/cli/commands/command.js';
import { RedisReplyError } from '../../src/node/redis/redis-client.js';
import { CodexMergeRefused } from '../../src/hosts/codex/config-merge.js';
import { TomlSyntaxError } from '../../src/hosts/codex/toml.js';
import { BadAnswer } from '../../src/policy/enforce-tool.js';

const SRC = new URL('../../src', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('HookgateError', () => {
  it('is the base of every error hookgate raises, each with its stable code and name', () => {
    const cases: Array<[Error, string, string]> = [
      [new ConfigError([{ path: 'a', message: 'b' }]), 'CONFIG_INVALID', 'ConfigError'],
      [new AuthError('TOKEN_EXPIRED', 'x'), 'TOKEN_EXPIRED', 'AuthError'],
      [new BackendError('BACKEND_TIMEOUT', 'x'), 'BACKEND_TIMEOUT', 'BackendError'],
      [new PeerError('PEER_CLOSED', 'x'), 'PEER_CLOSED', 'PeerError'],
      [new UpstreamError('UPSTREAM_UNAVAILABLE', 'x'), 'UPSTREAM_UNAVAILABLE', 'UpstreamError'],
      [new BridgeUsageError('x'), 'BRIDGE_USAGE', 'BridgeUsageError'],
      [new WebhookSecretError('x'), 'WEBHOOK_SECRET_INVALID', 'WebhookSecretError'],
      [new QueueDeadlineError('x'), 'QUEUE_DEADLINE', 'QueueDeadlineError'],
      [new RedisReplyError('ERR x'), 'REDIS_ERROR_REPLY', 'RedisReplyError'],
      [new BadAnswer('x'), 'BAD_ANSWER', 'BadAnswer'],
      [new UsageError('x'), 'USAGE', 'UsageError'],
      [new CodexMergeRefused('x'), 'CODEX_CONFIG_REFUSED', 'CodexMergeRefused'],
      [new TomlSyntaxError('x', 1), 'TOML_SYNTAX', 'TomlSyntaxError'],
    ];
    for (const [err, code, name] of cases) {
      expect(err).toBeInstanceOf(HookgateError);
      expect((err as HookgateError).code).toBe(code);
      expect(err.name).toBe(name);
    }
  });

  it('no error class in src extends Error directly (the list above stays complete)', () => {
    const direct = sources(SRC).flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/class (\w+) extends Error\b/g)].map((m) => `${m[1]} in ${f}`),
    );
    expect(direct).toEqual([]);
  });
});
