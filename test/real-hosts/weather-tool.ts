/**
 * The hook's own tool the real-host suites offer a model: `get_weather`, described in the hook's
 * config (`tool_definitions`), so a suite can check the host offered exactly this definition.
 */
export const WEATHER_DESCRIPTION = 'Current weather for a city (answered by the hookgate hook)';
export const WEATHER_PARAMETERS = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};

/** A hook doc's `tools` and `tool_definitions` for get_weather. */
export const weatherTool = {
  tools: ['get_weather'],
  tool_definitions: {
    get_weather: { description: WEATHER_DESCRIPTION, input_schema: WEATHER_PARAMETERS },
  },
};
