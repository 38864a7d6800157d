// Taken as CommonJS: an ES import of node:util builds its whole namespace (lazy parts included),
// about 3 MB in every run of a per-event command, which all read their flags here.
const { parseArgs } = process.getBuiltinModule('node:util');

/**
 * One way to read command-line flags for every hookgate command: `node:util`'s parseArgs (no
 * dependency, ships with Node), with the checks its strict mode words differently across Node
 * versions done here, so every command says the same thing the same way:
 * unknown option, a value missing, a value given to a boolean, a flag given twice, a stray argument.
 * `--flag value` and `--flag=value` both work; `-h`/`--help` is added to every command.
 */
export type FlagSpec = { type: 'string'; short?: string } | { type: 'boolean'; short?: string };
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;
export type FlagValues<S extends FlagSpecs> = {
  [K in keyof S]?: S[K] extends { type: 'boolean' } ? boolean : string;
} & { help?: boolean };

export interface ParsedArgs<S extends FlagSpecs> {
  values: FlagValues<S>;
  positionals: string[];
}

export interface ParseOptions {
  /** How many positional arguments the command takes (default none). */
  maxPositionals?: number;
  /**
   * Flags refused with their own message before anything else is looked at, so the message can never
   * echo their value (a token on the command line, which every user of the machine can read).
   */
  refuse?: Readonly<Record<string, string>>;
  /** Throws the command's usage error. */
  fail: (message: string) => never;
}

export function parseFlags<S extends FlagSpecs>(
  argv: readonly string[],
  specs: S,
  opts: ParseOptions,
): ParsedArgs<S> {
  const { fail } = opts;
  const options = { ...specs, help: { type: 'boolean', short: 'h' } } as Record<string, FlagSpec>;
  // Not strict: strict mode throws on the first problem with Node's own wording; the tokens let us
  // check everything ourselves, refused flags first.
  const { values, positionals, tokens } = parseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const refuse = opts.refuse ?? {};
  for (const t of tokens) {
    if (t.kind === 'option' && Object.hasOwn(refuse, t.name)) fail(refuse[t.name]);
  }
  const seen = new Set<string>();
  let positionalCount = 0;
  for (const t of tokens) {
    if (t.kind === 'option-terminator') continue;
    if (t.kind === 'positional') {
      if (++positionalCount > (opts.maxPositionals ?? 0)) fail(`unexpected argument "${t.value}"`);
      continue;
    }
    const spec = Object.hasOwn(options, t.name) ? options[t.name] : undefined;
    if (!spec) return fail(`unknown option ${t.rawName}`);
    const flag = t.rawName.startsWith('--') ? t.rawName : `-${spec.short ?? t.name}`;
    if (spec.type === 'string') {
      // Non-strict parseArgs takes the next argument as the value even when it is another flag.
      if (t.value === undefined || (!t.inlineValue && t.value.startsWith('-'))) fail(`${flag} needs a value`);
    } else if (t.inlineValue) {
      fail(`${flag} takes no value`);
    }
    if (seen.has(t.name)) fail(`--${t.name} given twice`);
    seen.add(t.name);
  }
  return { values: values as FlagValues<S>, positionals };
}
