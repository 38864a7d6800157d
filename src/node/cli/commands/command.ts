import { HookgateError } from '../../../lib/errors.js';
import { type FlagSpecs, type FlagValues, parseFlags } from '../parse-args.js';

/** A mistake in how a command was called: one line on stderr, exit code 2. */
export class UsageError extends HookgateError<'USAGE'> {
  constructor(message: string) {
    super('USAGE', message);
    this.name = 'UsageError';
  }
}

export function usageError(message: string): never {
  throw new UsageError(message);
}

export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * One `hookgate <name>` command. `run` gets its flags already checked (unknown, missing values,
 * repeats: exit 2 before it runs) and resolves with the exit code; it throws UsageError for a
 * wrong combination of flags and anything else for a failure at run time.
 */
export interface Command<S extends FlagSpecs = FlagSpecs> {
  name: string;
  /** The whole `hookgate <name> --help` text, starting with `usage:`. */
  help: string;
  flags: S;
  maxPositionals?: number;
  refuse?: Readonly<Record<string, string>>;
  run(args: { values: FlagValues<S>; positionals: string[] }, io: CommandIo): Promise<number>;
}

/** Declares a command with its flag types inferred from `flags`. */
export function defineCommand<S extends FlagSpecs>(command: Command<S>): Command<S> {
  return command;
}

export function parseCommandArgs<S extends FlagSpecs>(command: Command<S>, argv: readonly string[]) {
  return parseFlags(argv, command.flags, {
    maxPositionals: command.maxPositionals,
    refuse: command.refuse,
    fail: usageError,
  });
}
