import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { HookgateError } from '../../../lib/errors.js';
import { ownShellCommand, shellJoin } from '../own-command.js';
import { DEFAULT_CONFIG_FILE } from './config-file.js';
import { defineCommand } from './command.js';
import { newSecret } from './keygen.js';

const SECRET_FILE = 'hookgate.secret';
const HOOK_FILE = 'hooks/weather.mjs';
const CASES_FILE = 'rules-test.yaml';

/** `hookgate` is the command that starts this hookgate from the user's shell (see ownShellCommand). */
const config = (hookgate: string) => `# Written by \`hookgate init\`. Start it in this directory with
#   ${hookgate} serve
# and make a token with
#   ${hookgate} token --tenant local --hooks guard,weather
# Try the rules without a gateway:
#   ${hookgate} rules test --config ${DEFAULT_CONFIG_FILE} ${CASES_FILE}
# Every key: README "Config"; rules: docs/policy.md. Relative paths are relative to this file.
server:
  host: 127.0.0.1
  port: 8787
  # admin_token: env:HOOKGATE_ADMIN_TOKEN   # enables /metrics, /readyz details, POST /admin/reload
tenants:
  local:
    auth:
      keys:
        - { kid: k1, alg: HS256, secret: file:${SECRET_FILE} }   # or env:NAME; at least 32 bytes
    hooks:
      # No code and no process: the gateway answers from these rules before anything else. One rule
      # covers every host's shell tool (Claude Code's Bash, PicoClaw's exec, Codex, Hermes, …).
      guard:
        backend: { type: rules }
        modes: [tool]
        rules:
          - name: no-rm-rf
            kind: shell
            # rm with r and f in one flag group, in either order (-rf, -fr, -Rf, -vrf)
            when: 'call.command.matches("\\\\brm\\\\s+(-[a-zA-Z]*\\\\s+)*-[a-zA-Z]*([rR][a-zA-Z]*f|f[a-zA-Z]*[rR])")'
            action: deny
            reason: rm -rf is not allowed here
          - name: no-env-files
            kind: [file_read, file_write]
            when: 'call.paths.exists(p, p.endsWith(".env"))'
            action: deny
            reason: .env files hold secrets
          - name: ask-before-push
            kind: shell
            when: 'call.command.contains("git push")'
            action: ask
        # mode: shadow   # decide and audit "would deny", change nothing: try rules on live traffic
      weather:
        # A JS module in the gateway's process; a PicoClaw stdio hook would be
        #   backend: { type: stdio, command: [python3, my_hook.py] }   (sandboxed, see server.sandbox)
        backend: { type: module, module: ./${HOOK_FILE} }
        modes: [tool]
        tools: [get_weather]   # the only tool this hook may answer itself with "respond"
        on_failure: open
        timeout_ms: 4000
`;

const CASES = `# \`hookgate rules test --config ${DEFAULT_CONFIG_FILE} ${CASES_FILE}\`: each call, and what the rules must decide.
cases:
  - { name: rm -rf in Claude Code, tenant: local, hook: guard, host: claude-code, tool: Bash, args: { command: "rm -rf ~" }, expect: deny }
  - { name: rm -rf in PicoClaw, tenant: local, hook: guard, host: picoclaw, tool: exec, args: { command: "sudo rm -fr /" }, expect: deny }
  - { name: reading .env, tenant: local, hook: guard, host: claude-code, tool: Read, args: { file_path: /app/.env }, expect: deny }
  - { name: git push asks a person, tenant: local, hook: guard, host: claude-code, tool: Bash, args: { command: "git push" }, expect: ask }
  - { name: ls is fine, tenant: local, hook: guard, host: claude-code, tool: Bash, args: { command: "ls -la" }, expect: continue }
`;

const HOOK = `// A module hook: a plain object with one function per method (hookgate/sdk's defineHook builds
// the same from tool definitions). Answers get_weather itself; every other tool call continues.
const WEATHER = { berlin: '18 C, light rain', paris: '21 C, clear' };

export default {
  name: 'weather',
  beforeTool(params) {
    if (params.tool !== 'get_weather') return { action: 'continue' };
    const city = String(params.arguments?.city ?? '');
    const weather = WEATHER[city.trim().toLowerCase()];
    return {
      action: 'respond',
      result: weather
        ? { for_llm: \`\${city}: \${weather}\`, silent: false, is_error: false }
        : { for_llm: \`No weather data for \${city}\`, silent: false, is_error: true },
    };
  },
};
`;

export const init = defineCommand({
  name: 'init',
  help: `usage: hookgate init [--dir DIR]
  --dir DIR   where to write (default: the current directory)
Writes ${DEFAULT_CONFIG_FILE} (a hook made only of rules, and a module hook), ${SECRET_FILE} (an HS256
secret, mode 600), ${HOOK_FILE} and ${CASES_FILE} (cases for \`hookgate rules test\`); refuses if any exists.`,
  flags: { dir: { type: 'string' } },
  async run({ values }, io) {
    const dir = resolve(io.cwd, values.dir ?? '.');
    // After `npm install hookgate` in a project, no `hookgate` is on PATH: print what runs here.
    const hookgate = ownShellCommand(io.env);
    const files: Array<[string, string, number]> = [
      [DEFAULT_CONFIG_FILE, config(hookgate), 0o644],
      [SECRET_FILE, `${newSecret()}\n`, 0o600],
      [HOOK_FILE, HOOK, 0o644],
      [CASES_FILE, CASES, 0o644],
    ];
    // All or nothing: a half-written setup would be worse than none.
    const existing = files.map(([name]) => join(dir, name)).filter((p) => existsSync(p));
    if (existing.length > 0) {
      throw new HookgateError(
        'FILE_EXISTS',
        `not overwriting ${existing.map((p) => relative(io.cwd, p) || p).join(', ')}`,
      );
    }
    for (const [name, text, mode] of files) {
      const path = join(dir, name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text, { mode, flag: 'wx' });
    }
    const where = relative(io.cwd, dir);
    io.stdout.write(
      [
        `wrote ${files.map(([name]) => join(where, name)).join(', ')}`,
        'next:',
        ...(where ? [`  cd ${shellJoin([where])}`] : []),
        `  ${hookgate} serve`,
        `  ${hookgate} token --tenant local --hooks guard,weather`,
        `  ${hookgate} rules test --config ${DEFAULT_CONFIG_FILE} ${CASES_FILE}`,
        '',
      ].join('\n'),
    );
    return 0;
  },
});
