import { z } from 'zod';
import { defineHook } from '../../../src/sdk/index.js';

/**
 * An SDK hook for the MCP tests: it declares two tools and does not inject them in before_llm
 * (`injectTools: false`), so whatever tools/list shows for them came from the declaration.
 */
export default defineHook({
  name: 'declared',
  injectTools: false,
  tools: [
    {
      name: 'get_time',
      description: 'The time in a time zone',
      parameters: z.object({ zone: z.string().describe('IANA time zone') }),
      handler: ({ zone }) => `12:00 in ${zone}`,
    },
    {
      name: 'convert',
      description: 'Declared description (the config overrides it)',
      parameters: z.object({ amount: z.number() }),
      handler: ({ amount }) => `${amount * 2}`,
    },
  ],
});
