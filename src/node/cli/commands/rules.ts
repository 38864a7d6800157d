import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { loadConfigFile, resolvePath } from '../../config-loader.js';
import { fromZodIssues } from '../../../config/errors.js';
import { hostTraitsOf } from '../../../hosts/traits.js';
import { runRuleTestCase, ruleTestFileSchema } from '../../../policy/rule-test.js';
import { defineCommand, usageError } from './command.js';

/** The time every case's conditions see, so a case that reads `now` gives the same outcome each run. */
const CASE_TIME = Date.parse('2026-01-01T00:00:00Z');

export const rules = defineCommand({
  name: 'rules',
  help: `usage: hookgate rules test --config FILE CASES

Runs a config's gateway rules and grants against sample calls, without a gateway or a hook: the
way to develop a policy. CASES is YAML or JSON:

  cases:
    - name: no rm -rf in Claude Code
      tenant: acme
      hook: guard
      host: claude-code          # picoclaw (default), claude-code, openclaw, hermes, codex, copilot, gemini, mcp
      method: before_tool        # or approve_tool
      tool: Bash
      args: { command: "rm -rf /" }
      claims: { sub: alice }     # the token's claims, if a condition reads them
      answer: { approved: true } # the hook's answer, to test grant conditions on it
      expect: deny               # deny | ask | allow | continue

Prints one line per case, naming it, its outcome and the rule or grant that decided. Conditions
see the time 2026-01-01T00:00:00Z. The config's secrets must resolve, as for check-config.

Exit 0 when every case holds; 1 when one does not; 2 when called wrongly or CASES is not valid.`,
  flags: { config: { type: 'string' } },
  maxPositionals: 2,
  async run({ values, positionals }, io) {
    if (positionals[0] !== 'test') usageError('usage: hookgate rules test --config FILE CASES');
    if (!values.config) usageError('--config FILE is required');
    const casesPath = positionals[1];
    if (!casesPath) usageError('CASES (a YAML or JSON file of cases) is required');
    let text: string;
    try {
      text = readFileSync(resolvePath(io.cwd, casesPath), 'utf8');
    } catch (err) {
      usageError(`${casesPath}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (err) {
      usageError(`${casesPath}: not YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
    }
    const parsed = ruleTestFileSchema.safeParse(doc);
    if (!parsed.success) {
      const issues = fromZodIssues(parsed.error.issues).map((i) => `${i.path || '(root)'}: ${i.message}`);
      usageError(`${casesPath}: ${issues.join('; ')}`);
    }
    const { config } = loadConfigFile(resolvePath(io.cwd, values.config), io.env);
    let failed = 0;
    for (const c of parsed.data.cases) {
      const r = runRuleTestCase(config, c, CASE_TIME, hostTraitsOf);
      if (!r.ok) failed++;
      const head = r.ok ? 'ok  ' : 'FAIL';
      const outcome = r.ok ? r.got : `expected ${r.expected}, got ${r.got}`;
      io.stdout.write(`${head} ${r.name}: ${outcome} (${r.why})\n`);
    }
    const total = parsed.data.cases.length;
    io.stdout.write(`${total - failed} of ${total} cases hold\n`);
    return failed === 0 ? 0 : 1;
  },
});
