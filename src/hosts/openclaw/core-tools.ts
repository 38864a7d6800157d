/**
 * The tool names OpenClaw keeps for itself, read from OpenClaw 2026.9.6: its core tool catalog
 * (`CORE_TOOL_DEFINITIONS`), the names its agent reserves (`AGENT_RESERVED_TOOL_NAMES`) and the
 * aliases its tool policy folds onto core names (`TOOL_NAME_ALIASES`). OpenClaw compares a plugin
 * tool's name with these after lowercasing and folding the aliases; on a match it logs `plugin tool
 * name conflict` and drops the plugin's tool, so the model's call runs OpenClaw's own tool. A hook
 * tool of such a name would therefore never run, and worse: the plugin leaves its own tools'
 * before_tool_call to the tool itself, so the core tool would run without asking the gateway.
 *
 * The plugin (integrations/openclaw/index.js) imports nothing and keeps a copy of this list; a
 * test holds the two together.
 */
export const OPENCLAW_CORE_TOOLS: readonly string[] = [
  // CORE_TOOL_DEFINITIONS
  'ls',
  'read',
  'write',
  'edit',
  'apply_patch',
  'exec',
  'process',
  'code_execution',
  'secrets',
  'web_search',
  'web_fetch',
  'x_search',
  'memory_search',
  'memory_get',
  'sessions',
  'sessions_list',
  'sessions_history',
  'sessions_search',
  'conversations_list',
  'conversations_send',
  'conversations_turn',
  'sessions_send',
  'sessions_spawn',
  'github_identity_status',
  'github_publish',
  'agents_wait',
  'sessions_yield',
  'subagents',
  'session_status',
  'suggest_task',
  'dismiss_task',
  'browser',
  'screen',
  'theme',
  'dashboard',
  'terminal',
  'portal',
  'canvas',
  'show_widget',
  'message',
  'heartbeat_respond',
  'automations',
  'gateway',
  'plugins',
  'openclaw',
  'nodes',
  'computer',
  'mobile_ui',
  'agents_list',
  'get_goal',
  'create_goal',
  'update_goal',
  'progress_card',
  'ask_user',
  'skill_workshop',
  'view_image',
  'image_generate',
  'music_generate',
  'video_generate',
  'tts',
  'pdf',
  // AGENT_RESERVED_TOOL_NAMES not in the catalog
  'bash',
  'find',
  'grep',
  // TOOL_NAME_ALIASES (bash → exec is above)
  'apply-patch',
  'cron',
];

const RESERVED = new Set(OPENCLAW_CORE_TOOLS);

/** True when OpenClaw would drop a plugin tool of this name for one of its own (any letter case). */
export function isOpenClawCoreTool(name: string): boolean {
  return RESERVED.has(name.trim().toLowerCase());
}
