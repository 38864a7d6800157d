import { existsSync } from 'node:fs';
import { loadConfigFile, resolvePath } from '../../config-loader.js';
import { formatReport, replayLog } from '../../replay.js';
import { defineCommand, usageError } from './command.js';

export const replay = defineCommand({
  name: 'replay',
  help: `usage: hookgate replay --log FILE --config FILE [--json]

Re-decides every call recorded in a decision log (server.decisions: one JSON record per line)
under another config: its modes, grants and rules, with the hook's recorded answer standing in for
the hook. Prints the decisions that change, counted per tenant/hook/rule and then one by one
(old -> new, with the rule or grant responsible); --json prints the same as one JSON object.

Re-decided: records of every route (picoclaw, claude-code, openclaw, hermes, codex, copilot,
gemini, mcp) that carry the call's params and the hook's answer (hooks with conversation_access,
or server.decisions.include_args). Each is decided with its host's traits, as its route did (a
host with an approval of its own, one that merges rewrites), and compared in PicoClaw's terms.
Calls refused before the hook was asked, rate-limited or failed calls, and records without params
are counted and listed as not re-decided, with why; a line that is not a v1 record is named as
unreadable. The config's secrets must resolve, as for check-config.

Exit 0 when nothing changes and every record was re-decided; 1 when a decision changes or a
record could not be read or re-decided; 2 when called wrongly.`,
  flags: { log: { type: 'string' }, config: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }, io) {
    if (!values.log) usageError('--log FILE is required');
    if (!values.config) usageError('--config FILE is required');
    const log = resolvePath(io.cwd, values.log);
    if (!existsSync(log)) usageError(`--log ${values.log}: no such file`);
    const { config } = loadConfigFile(resolvePath(io.cwd, values.config), io.env);
    const report = await replayLog(log, config);
    io.stdout.write(values.json ? `${JSON.stringify(report)}\n` : formatReport(report));
    const clean =
      report.changed.length === 0 && report.unreadable.length === 0 && report.notRedecided.length === 0;
    return clean ? 0 : 1;
  },
});
