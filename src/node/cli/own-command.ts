import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * How to start this very hookgate from anywhere, for the commands `setup` and `init` print.
 * `npm install hookgate` in a project puts no `hookgate` on PATH (only node_modules/.bin), and a host
 * such as PicoClaw or Hermes runs its hook commands with its own PATH, so a bare `hookgate` would not
 * start. This Node and the CLI's own absolute path always do, without a shell or npx in between
 * (npx costs a second Node start-up per event: docs/performance.md).
 */
export function ownCommand(): string[] {
  return [process.execPath, ownExecutable()];
}

/**
 * The CLI's executable: bin.js beside this module in the package (dist/src/node/cli/), or the clone's
 * launcher (bin/hookgate.js, which runs the sources through tsx) when running from the sources.
 */
export function ownExecutable(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.js')
    ? join(dirname(here), 'bin.js')
    : join(dirname(here), '../../../bin/hookgate.js');
}

/**
 * The command line a person types in their shell: plain `hookgate` when the `hookgate` on their PATH
 * is this one (a global install), else this Node and path, quoted for a POSIX shell.
 */
export function ownShellCommand(env: NodeJS.ProcessEnv): string {
  const self = ownExecutable();
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'hookgate');
    try {
      if (existsSync(candidate) && realpathSync(candidate) === realpathSync(self)) return 'hookgate';
    } catch {
      // a dangling link or an unreadable directory: not ours
    }
  }
  return shellJoin(ownCommand());
}

/**
 * Joins argv into one command line that a POSIX shell and Python's `shlex.split` (how Hermes reads
 * its hook commands) split back into the same argv.
 */
export function shellJoin(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'"'"'`)}'`)).join(' ');
}

/**
 * A command given on the command line (`setup --command "…"`), split as a shell would split simple
 * words: by whitespace, with '…' and "…" quoting. Nothing is expanded.
 */
export function splitCommand(line: string): string[] {
  const argv: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else word = (word ?? '') + ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= '';
    } else if (/\s/.test(ch)) {
      if (word !== undefined) argv.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + ch;
    }
  }
  if (quote) throw new Error(`unclosed ${quote} in ${JSON.stringify(line)}`);
  if (word !== undefined) argv.push(word);
  return argv;
}
