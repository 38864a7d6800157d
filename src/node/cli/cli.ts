import { ConfigError } from '../../config/errors.js';
import { HookgateError } from '../../lib/errors.js';
import { type CommandIo, parseCommandArgs } from './commands/command.js';
import { commands } from './commands/index.js';

function overview(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'usage: hookgate <command> [options]      hookgate <command> --help for its options',
    '',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'global: --help (hookgate help <command>: its options), --version (-V, -v), --debug (errors with their stack)',
  ].join('\n');
}

const isUsageError = (err: unknown) =>
  err instanceof HookgateError && (err.code === 'USAGE' || err.code === 'BRIDGE_USAGE');

/**
 * Runs one command and resolves with its exit code (serve resolves only after a signal):
 * 0 done, 1 failed at run time (one line; the stack only with --debug), 2 called wrongly (one line).
 */
export async function main(argv: readonly string[], io: Partial<CommandIo> = {}): Promise<number> {
  const out: CommandIo = {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    env: io.env ?? process.env,
    cwd: io.cwd ?? process.cwd(),
  };
  // --debug is global: anywhere before a `--`.
  const end = argv.indexOf('--') === -1 ? argv.length : argv.indexOf('--');
  const debug = argv.slice(0, end).includes('--debug');
  const args = argv.filter((a, i) => !(i < end && a === '--debug'));
  const [name, ...rest] = args;

  if (name === undefined) {
    out.stderr.write(`${overview()}\n`);
    return 2;
  }
  if (name === 'help' && rest.length > 0) {
    // `hookgate help serve` is `hookgate serve --help`.
    const entry = commands.find((c) => c.name === rest[0]);
    if (!entry || rest.length > 1) {
      out.stderr.write(`hookgate help: no command "${rest.join(' ')}" (hookgate --help lists them)\n`);
      return 2;
    }
    out.stdout.write(`${(await entry.load()).help}\n`);
    return 0;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    out.stdout.write(`${overview()}\n`);
    return 0;
  }
  if (name === '--version' || name === '-V' || name === '-v') {
    // Loaded here only: it reads files (node:fs), which a per-event command does not need.
    const { ownVersion } = await import('../package-info.js');
    out.stdout.write(`${ownVersion()}\n`);
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    out.stderr.write(`hookgate: unknown command "${name}" (hookgate --help lists them)\n`);
    return 2;
  }
  // Only the command that runs is loaded (a per-event command must start small and fast).
  const command = await entry.load();
  const prefix = `hookgate ${command.name}`;
  try {
    const parsed = parseCommandArgs(command, rest);
    if (parsed.values.help) {
      out.stdout.write(`${command.help}\n`);
      return 0;
    }
    return await command.run(parsed, out);
  } catch (err) {
    if (isUsageError(err)) {
      out.stderr.write(`${prefix}: ${(err as Error).message} (${prefix} --help for usage)\n`);
      return 2;
    }
    if (err instanceof ConfigError) {
      // One line per problem: each names its path in the config.
      out.stderr.write(
        `${prefix}: config error:\n${err.issues.map((i) => `  ${i.path || '(root)'}: ${i.message}`).join('\n')}\n`,
      );
      return 1;
    }
    const message = err instanceof Error ? err.message : String(err);
    out.stderr.write(`${prefix}: error: ${message.split('\n')[0]}\n`);
    if (debug && err instanceof Error && err.stack) out.stderr.write(`${err.stack}\n`);
    return 1;
  }
}
