/**
 * Finds the conditional skips in a test file's source (skip-titles.test.ts checks that each names
 * its reason). A scan of the text, not a parse: the suites write these calls in few shapes, and the
 * scan steps over strings, templates and nested parentheses, which is all they put there.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The .test.ts files under `dir`. */
export function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return testFiles(path);
    return e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Index just past the string or template literal starting at `i` (a quote or backtick). */
function endOfLiteral(text: string, i: number): number {
  const quote = text[i];
  let j = i + 1;
  while (j < text.length && text[j] !== quote) {
    if (text[j] === '\\') j += 2;
    else if (quote === '`' && text.startsWith('${', j)) j = endOfBalanced(text, j + 1, '{', '}');
    else j++;
  }
  return j + 1;
}

/** Index just past the `close` matching the `open` at `i`, stepping over literals inside. */
function endOfBalanced(text: string, i: number, open: string, close: string): number {
  let depth = 0;
  let j = i;
  while (j < text.length) {
    const c = text[j];
    if (c === "'" || c === '"' || c === '`') {
      j = endOfLiteral(text, j);
      continue;
    }
    if (c === open) depth++;
    else if (c === close && --depth === 0) return j + 1;
    j++;
  }
  throw new Error(`no ${close} for the ${open} at ${i}`);
}

/** The title argument of the call whose `(` is at `i`: the literal's text, or what stands there. */
function titleAt(text: string, i: number): string {
  let j = i + 1;
  while (/\s/.test(text[j])) j++;
  if (/['"`]/.test(text[j])) return text.slice(j, endOfLiteral(text, j));
  return text.slice(j, text.indexOf(',', j));
}

export interface ConditionalSkip {
  where: string;
  title: string;
}

/** Every `x.skipIf(cond)(title`, `x.runIf(cond)(title` and `it|test|describe.skip(title` in `text`. */
export function conditionalSkips(text: string, file = 'file'): ConditionalSkip[] {
  const found: ConditionalSkip[] = [];
  const line = (at: number) => text.slice(0, at).split('\n').length;
  for (const m of text.matchAll(/\.(?:skipIf|runIf)\(/g)) {
    const open = m.index + m[0].length - 1;
    let call = endOfBalanced(text, open, '(', ')');
    while (/\s/.test(text[call])) call++;
    if (text[call] !== '(') continue;
    found.push({ where: `${file}:${line(m.index)}`, title: titleAt(text, call) });
  }
  for (const m of text.matchAll(/\b(?:it|test|describe)\.skip\(/g)) {
    found.push({ where: `${file}:${line(m.index)}`, title: titleAt(text, m.index + m[0].length - 1) });
  }
  return found;
}

/** Whether a title says why, when its test skips: `(skipped: …)` in it, or a note interpolated. */
export function namesItsReason(title: string): boolean {
  return /skipped:/i.test(title) || /\$\{\s*[\w.]*(?:note|why)\s*\}/i.test(title);
}
