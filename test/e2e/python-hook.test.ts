import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paramsFrom } from '../policy/helpers.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { hostBeforeLlm, hostBeforeTool } from '../helpers/picoclaw-host.js';

const python = (() => {
  try {
    execFileSync('python3', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

const weather = (extra: Record<string, unknown>) => ({
  backend: { type: 'stdio', command: ['python3', 'examples/weather_hook.py'] },
  modes: ['llm', 'tool'],
  ...extra,
});

describe.skipIf(!python)(
  `the example Python stdio hook, unmodified behind the gateway (real sockets, real process)${python ? '' : ' (skipped: python3 is not on PATH)'}`,
  () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await startTestGateway({
        tenants: {
          acme: tenantDoc({
            weather: weather({ tools: ['get_weather'] }),
            ungranted: weather({ tools: [] }),
          }),
        },
      });
    });
    afterAll(() => gw?.close());

    it("injects get_weather into the LLM request, keeping the host's tools and the whole request", async () => {
      const params = paramsFrom('06-before-llm-tool-injection-reverted.jsonl', 'hook.before_llm');
      const body = await gw.call('weather', 'hook.before_llm', params);
      expect(body.result.action).toBe('modify');
      expect(body.result.request.tools.map((t: any) => t.function.name)).toEqual(['exec', 'get_weather']);
      expect(body.result.request.messages).toEqual(params.messages);
      expect(body.result.request.meta).toEqual(params.meta);
      expect(hostBeforeLlm(params, { result: body.result }).model).toBe('gpt-4o-mini');
    });

    it('answers get_weather itself with respond', async () => {
      const params = paramsFrom('10-before-tool-respond-plugin-tool.jsonl', 'hook.before_tool');
      const body = await gw.call('weather', 'hook.before_tool', params);
      expect(hostBeforeTool(params, { result: body.result })).toEqual({
        respond: { for_llm: 'Berlin: 18 C, light rain', is_error: false, for_user: '' },
      });
    });

    it('lets host tools run as usual', async () => {
      const params = paramsFrom('12-before-tool-modify-args.jsonl', 'hook.before_tool');
      const body = await gw.call('weather', 'hook.before_tool', params);
      expect(hostBeforeTool(params, { result: body.result })).toEqual({
        run: 'exec',
        args: { command: 'ls' },
      });
    });

    it('without the tool granted, neither injection nor respond gets through, and both are audited', async () => {
      const llm = await gw.call(
        'ungranted',
        'hook.before_llm',
        paramsFrom('06-before-llm-tool-injection-reverted.jsonl', 'hook.before_llm'),
      );
      expect(llm.result).toEqual({ action: 'continue' });
      const tool = await gw.call(
        'ungranted',
        'hook.before_tool',
        paramsFrom('10-before-tool-respond-plugin-tool.jsonl', 'hook.before_tool'),
      );
      expect(tool.result).toEqual({ action: 'continue' });
      const rules = gw.logs
        .audits()
        .filter((a) => a.hook === 'ungranted')
        .map((a) => a.rule);
      expect(rules).toEqual(expect.arrayContaining(['inject_tool_not_granted', 'respond_tool_not_granted']));
    });
  },
);
