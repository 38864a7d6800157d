import { describe, expect, it } from 'vitest';
import { hostAnswerText } from '../../src/server/host-answer.js';
import { Method } from '../../src/protocol/methods.js';
import { compileTestConfig, tenantDoc } from '../helpers/gateway.js';

const mod = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const config = compileTestConfig({
  tenants: {
    acme: tenantDoc({
      closed: { ...mod, modes: ['tool', 'approve'], on_failure: 'closed' },
      open: { ...mod, modes: ['tool', 'approve'], on_failure: 'open' },
    }),
  },
});
const hook = (name: string) => config.tenants.get('acme')!.hooks.get(name)!;
/** A host shape that keeps the action and reason: what the host would be told. */
const toHost = (a: Record<string, unknown>) => ({ host: a.action ?? a.approved, why: a.reason });

describe('hostAnswerText', () => {
  it('serialises the host answer', () => {
    expect(hostAnswerText(hook('open'), Method.BeforeTool, () => ({ ok: 1 }), toHost)).toBe('{"ok":1}');
  });

  it('an answer that cannot be converted or serialised → the hook’s declared failure answer, in the host’s shape', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const tooDeep = () => {
      throw new RangeError('Maximum call stack size exceeded');
    };
    for (const bad of [() => cyclic, tooDeep]) {
      expect(JSON.parse(hostAnswerText(hook('closed'), Method.BeforeTool, bad, toHost))).toEqual({
        host: 'deny_tool',
        why: expect.stringContaining('answer could not be serialised'),
      });
      expect(JSON.parse(hostAnswerText(hook('open'), Method.BeforeTool, bad, toHost))).toEqual({
        host: 'continue',
      });
    }
  });

  it('for a host with approvals of its own, an open hook’s approval failure leaves the host to ask', () => {
    const bad = () => {
      throw new RangeError('too deep');
    };
    expect(JSON.parse(hostAnswerText(hook('open'), Method.ApproveTool, bad, toHost, true))).toEqual({
      host: 'continue',
    });
    expect(JSON.parse(hostAnswerText(hook('open'), Method.ApproveTool, bad, toHost, false))).toMatchObject({
      host: false,
    });
  });
});
