/**
 * Hermes shell-hook stdin as Hermes writes it (`agent/shell_hooks.py` `_serialize_payload`: every
 * event has hook_event_name, tool_name, tool_input, session_id, cwd, extra), with the extra keys
 * its call sites pass. Fresh copies, so a test may change them.
 */
const PRE_TOOL_ = {
  hook_event_name: 'pre_tool_call',
  tool_name: 'terminal',
  tool_input: { command: 'ls' },
  session_id: 'sess-1',
  cwd: '/home/u/project',
  profile: 'default',
  extra: {
    task_id: 'task-1',
    tool_call_id: 'call-1',
    turn_id: 'turn-1',
    api_request_id: 'api-1',
    middleware_trace: [],
  },
};
const POST_TOOL_ = {
  hook_event_name: 'post_tool_call',
  tool_name: 'terminal',
  tool_input: { command: 'echo hello' },
  session_id: 'test-session',
  cwd: '/',
  extra: {
    task_id: 'test-task',
    tool_call_id: 'test-call',
    result: '{"output": "hello"}',
    duration_ms: 42,
    status: 'ok',
  },
};
const PRE_LLM_ = {
  hook_event_name: 'pre_llm_call',
  tool_name: null,
  tool_input: null,
  session_id: 'test-session',
  cwd: '/',
  extra: {
    task_id: 't',
    turn_id: 'turn-2',
    user_message: 'What is the weather?',
    conversation_history: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ],
    is_first_turn: false,
    model: 'gpt-4',
    platform: 'cli',
    sender_id: '',
  },
};

export const preTool = (): Record<string, any> => structuredClone(PRE_TOOL_);
export const postTool = (): Record<string, any> => structuredClone(POST_TOOL_);
export const preLlm = (): Record<string, any> => structuredClone(PRE_LLM_);

/** pre_tool_call stdin captured from Hermes 0.19.0 run headless (`hermes -z`), ids as they came. */
export const CAPTURED_PRE_TOOL_0_19 = {
  hook_event_name: 'pre_tool_call',
  tool_name: 'terminal',
  tool_input: { command: 'echo hookgate-probe' },
  session_id: '20261123_144500_8e45b2',
  cwd: '/home/u/project',
  extra: {
    task_id: 'b6fb1f6b-9260-44b3-8387-a437f4f1a5cc',
    tool_call_id: 'call_1',
    turn_id: '20261123_144500_8e45b2:b6fb1f6b-9260-44b3-8387-a437f4f1a5cc:a2eec539',
    api_request_id: '20261123_144500_8e45b2:b6fb1f6b-9260-44b3-8387-a437f4f1a5cc:a2eec539:api:1',
    middleware_trace: [],
    telemetry_schema_version: 'hermes.observer.v1',
  },
} as const;
