import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestGateway } from '../helpers/gateway.js';

/**
 * What the real-host rules suites (test/real-hosts/<host>/rules.test.ts) share: the one rule,
 * written once for any shell tool (docs/policy.md, "Gateway rules"), a directory for the model to
 * ask to remove, and the gateway's audit lines for the rule.
 */
export const RM_RF_REASON = 'rm -rf is not allowed';
export const NO_RM_RF = {
  name: 'no-rm-rf',
  kind: 'shell',
  when: 'call.command.matches("rm\\\\s+-[a-z]*r[a-z]*f")',
  action: 'deny',
  reason: RM_RF_REASON,
};

export const marker = () => Math.random().toString(16).slice(2, 12);

export interface Victim {
  /** The directory the command removes. */
  dir: string;
  /** The file inside it: still there means the command did not run. */
  file: string;
  /** The tag the file and directory are named with. */
  tag: string;
  /** Whether the marker file is still there. */
  intact(): boolean;
  remove(): void;
}

/** A throwaway directory with a marker file inside, under `parent` (default: the system temp dir). */
export function victim(parent = tmpdir()): Victim {
  const tag = marker();
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, `hookgate-victim-${tag}-`));
  const file = join(dir, `marker-${tag}.txt`);
  writeFileSync(file, `hookgate ${tag}\n`);
  return {
    dir,
    file,
    tag,
    intact: () => existsSync(file),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The rule's denial as the gateway audits it: `rule "no-rm-rf" (tenants.<t>.rules.0) denies: …`. */
export const ruleDenial = (dialect: string, tenant = 'acme') => ({
  rule: 'gateway_rule',
  dialect,
  detail: `rule "no-rm-rf" (tenants.${tenant}.rules.0) denies: ${RM_RF_REASON}`,
});

/** The gateway_rule audit lines written since `before` (an index into `gw.logs.audits()`). */
export const ruleAudits = (gw: TestGateway, before: number) =>
  gw.logs
    .audits()
    .slice(before)
    .filter((a) => a.rule === 'gateway_rule');
