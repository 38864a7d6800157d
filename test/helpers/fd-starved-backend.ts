/**
 * Runs one StdioBackend in a process of its own, then takes every free file descriptor (as many
 * idle connections would) and makes the hook crash, so its respawn fails with EMFILE. Prints one
 * JSON line per step on stdout; exits 0 only if it survived and the hook came back once fds were
 * free again. Run as: node --import tsx fd-starved-backend.ts <hook script>
 */
import { closeSync, openSync } from 'node:fs';
import { StdioBackend } from '../../src/backends/stdio.js';

const say = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);
let respawnFailed = false;
const log = (level: string) => (obj: object, msg?: string) => {
  if (msg === 'hook did not start' && (obj as { code?: string }).code === 'EMFILE') respawnFailed = true;
  say({ level, msg, ...obj });
};
const backend = new StdioBackend(
  {
    command: [process.execPath, process.argv[2]],
    env: {},
    inheritEnv: false,
    maxLineBytes: 1 << 20,
    backoffMs: 50,
    maxBackoffMs: 200,
  },
  {
    tenant: 't',
    hook: 'h',
    modes: ['tool'],
    log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
  },
);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (test: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (test()) return true;
  return test();
};

await backend.start();
say({ step: 'started', ready: backend.ready() });
const fds: number[] = [];
try {
  for (;;) fds.push(openSync('/dev/null', 'r'));
} catch (err) {
  say({ step: 'starved', fds: fds.length, code: (err as NodeJS.ErrnoException).code });
}
await backend.call('hook.before_tool', { tool: 'crash', arguments: {} }, 2000).catch(() => {});
// Until the respawn has failed for want of an fd (the deadline only bounds a run that never gets
// there; a loaded machine takes longer than an idle one, never this long).
await until(() => respawnFailed, 8000);
say({ step: 'while-starved', ready: backend.ready() });
for (const fd of fds.splice(0)) closeSync(fd);
const recovered = await until(() => backend.ready(), 8000);
say({ step: 'after', ready: recovered });
await backend.close();
process.exit(recovered ? 0 : 2);
