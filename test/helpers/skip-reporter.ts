/**
 * A reporter beside vitest's default one (all three configs): after the run it prints every
 * skipped test with why it was skipped, which the default reporter only shows for a file that
 * failed. The reason is the note of `ctx.skip(note)`, or the `(skipped: …)` a test or describe
 * title carries (the helpers' `redisNote`, `chromiumNote`, `sandboxNote`). A test skipped with
 * no reason is listed as such, so a skip without one shows up too; under a name filter (`-t`)
 * only the skips that give a reason are listed.
 */
import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node';

const REASON = /\s*\(skipped:\s*([^()]*(?:\([^()]*\)[^()]*)*)\)/i;
export const NO_REASON = 'no reason given';

/** The reason a skipped test's name (with its describe titles) gives, and the name without it. */
export function skipReason(fullName: string, note?: string): { name: string; reason: string } {
  const m = REASON.exec(fullName);
  const name = m ? fullName.replace(m[0], '') : fullName;
  return { name, reason: note || m?.[1]?.trim() || NO_REASON };
}

/** Lines for the skipped tests of `modules`, grouped by file and reason. */
export function skippedLines(
  modules: ReadonlyArray<{ relativeModuleId: string; tests: { fullName: string; note?: string }[] }>,
): string[] {
  const lines: string[] = [];
  for (const mod of modules) {
    const byReason = new Map<string, string[]>();
    for (const t of mod.tests) {
      const { name, reason } = skipReason(t.fullName, t.note);
      byReason.set(reason, [...(byReason.get(reason) ?? []), name]);
    }
    for (const [reason, names] of byReason) {
      lines.push(`↓ ${mod.relativeModuleId}: ${names.length} skipped: ${reason}`);
      for (const n of names) lines.push(`    ${n}`);
    }
  }
  return lines;
}

export default class SkipReporter implements Reporter {
  private filtered = false;

  onInit(vitest: Vitest): void {
    this.filtered = !!vitest.config.testNamePattern;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const modules = testModules
      .map((m) => ({
        relativeModuleId: m.relativeModuleId,
        tests: [...m.children.allTests('skipped')]
          .filter((t) => this.listed(t))
          .map((t) => ({
            fullName: t.fullName,
            note: noteOf(t),
          })),
      }))
      .filter((m) => m.tests.length > 0);
    const lines = skippedLines(modules);
    if (lines.length > 0) process.stdout.write(`\nSkipped tests, and why:\n${lines.join('\n')}\n`);
  }

  /**
   * A skip the code asked for (skip, skipIf, ctx.skip), not one a name filter made, nor a test
   * that never ran because its suite's beforeAll failed (that failure is reported as such).
   */
  private listed(t: TestCase): boolean {
    if (noteOf(t)) return true;
    if (t.options.mode !== 'skip') return false;
    return REASON.test(t.fullName) || !this.filtered;
  }
}

function noteOf(t: TestCase): string | undefined {
  const r = t.result();
  return r.state === 'skipped' ? r.note : undefined;
}
