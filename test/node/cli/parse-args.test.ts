import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../../src/node/cli/parse-args.js';

const specs = {
  config: { type: 'string' },
  demo: { type: 'boolean' },
  port: { type: 'string', short: 'p' },
} as const;

function fail(message: string): never {
  throw new Error(message);
}

const parse = (argv: string[], opts: { maxPositionals?: number; refuse?: Record<string, string> } = {}) =>
  parseFlags(argv, specs, { fail, ...opts });

describe('parseFlags', () => {
  it('reads --flag value, --flag=value, short flags and booleans, and adds --help/-h', () => {
    expect(parse(['--config', 'a.yaml', '--demo', '-p', '9']).values).toEqual({
      config: 'a.yaml',
      demo: true,
      port: '9',
    });
    expect(parse(['--config=a.yaml']).values.config).toBe('a.yaml');
    expect(parse(['--config=']).values.config).toBe('');
    expect(parse(['-h']).values.help).toBe(true);
    expect(parse(['--help']).values.help).toBe(true);
  });

  it('says what is wrong in one line, the same way for every command', () => {
    const cases: Array<[string[], string]> = [
      [['--verbose'], 'unknown option --verbose'],
      [['-x'], 'unknown option -x'],
      [['--config'], '--config needs a value'],
      [['--config', '--demo'], '--config needs a value'],
      [['--demo=yes'], '--demo takes no value'],
      [['--config', 'a', '--config', 'b'], '--config given twice'],
      [['extra'], 'unexpected argument "extra"'],
    ];
    for (const [argv, message] of cases) expect(() => parse(argv), argv.join(' ')).toThrow(message);
  });

  it('takes positionals only when the command has them, and everything after -- as one', () => {
    expect(parse(['a'], { maxPositionals: 1 }).positionals).toEqual(['a']);
    expect(() => parse(['a', 'b'], { maxPositionals: 1 })).toThrow('unexpected argument "b"');
    expect(parse(['--', '--demo'], { maxPositionals: 1 })).toMatchObject({
      positionals: ['--demo'],
      values: {},
    });
  });

  it('refuses a secret-bearing flag first, without repeating its value', () => {
    const refuse = { token: '--token is not accepted' };
    for (const argv of [['--token', 's3cret'], ['--token=s3cret'], ['--bogus', '--token', 's3cret']]) {
      expect(() => parse(argv, { refuse })).toThrow(/^--token is not accepted$/);
    }
  });
});
