import { answerClaudeCode } from '../hosts/claude-code/route.js';
import { answerCommandHost } from '../hosts/command/route.js';
import { COMMAND_HOSTS } from '../hosts/command/hosts.js';
import { answerHermes } from '../hosts/hermes/route.js';
import { answerOpenClaw } from '../hosts/openclaw/route.js';
import type { CallRoute } from './call-request.js';
import { answerNativeCall } from './native-call.js';

/**
 * Every route a hook call takes, by what follows `/v1/tenants/{tenant}/hooks/{hook}` in its path:
 * nothing for the native route (PicoClaw's protocol), a host's dialect for that host's. The app
 * mounts each of them; the Node adapter's direct route answers from the same table.
 */
export const CALL_ROUTES: ReadonlyMap<string, CallRoute> = new Map<string, CallRoute>([
  ['', answerNativeCall],
  ['claude-code', answerClaudeCode],
  ['openclaw', answerOpenClaw],
  ['hermes', answerHermes],
  // The hosts that run `hookgate hook` as their command hook (Codex, Copilot, Gemini CLI).
  ...COMMAND_HOSTS.map((host): [string, CallRoute] => [
    host.dialect,
    (call, gateway) => answerCommandHost(call, gateway, host),
  ]),
]);
