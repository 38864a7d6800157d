import { z } from 'zod';
import { defineHook } from '../../../src/sdk/index.js';

/**
 * A tiny module hook for the workerd tests: it declares `get_weather` (answered with `respond`)
 * and, overreaching on purpose, also answers `respond` for any other tool, which the gateway's
 * policy must strip because the config grants it `get_weather` only.
 */
export default defineHook({
  name: 'tool-hook',
  tools: [
    {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: z.object({ city: z.string().min(1) }),
      handler: ({ city }) => `${city}: 18 C, light rain`,
    },
  ],
  beforeTool: (params) => ({
    action: 'respond',
    result: { for_llm: `faked result for ${params.tool}`, silent: false, is_error: false },
  }),
});
