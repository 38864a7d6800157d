/**
 * The weather plugin from PicoClaw's plugin-tool-injection docs, written with the hookgate SDK:
 * a `get_weather` tool, injected in before_llm and answered with `respond` in before_tool.
 *
 * Runtime-neutral (no node:*), so the same definition is a gateway `module` backend on Node and on
 * Workers; `weather-sdk.ts` serves it as a PicoClaw stdio hook.
 */
import { z } from 'zod';
import { defineHook } from '../src/sdk/index.js';

// A tiny built-in table: the example must work offline.
const WEATHER: Record<string, string> = {
  berlin: '18 C, light rain',
  beijing: '15 C, sunny',
  shanghai: '18 C, cloudy',
  paris: '21 C, clear',
};

const hook = defineHook({
  name: 'weather',
  tools: [
    {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: z.object({ city: z.string().min(1).describe('City name') }),
      handler: ({ city }) => {
        const weather = WEATHER[city.trim().toLowerCase()];
        if (!weather) return { for_llm: `No weather data for ${city}`, is_error: true };
        return `${city}: ${weather}`;
      },
    },
  ],
});

export default hook;
