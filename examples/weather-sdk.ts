/**
 * The weather plugin from PicoClaw's plugin-tool-injection docs, written with the hookgate SDK.
 *
 *   npx tsx examples/weather-sdk.ts     # a PicoClaw stdio hook (hooks.processes.<name>.command)
 *
 * Its default export is the hook object, so a gateway `module` backend can load it as is.
 */
import { z } from 'zod';
import { defineHook } from '../src/sdk/index.js';
import { isMainModule, serveStdio } from '../src/sdk/stdio.js';

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

if (isMainModule(import.meta.url)) serveStdio(hook);
