import { HookgateError } from '../../lib/errors.js';
import type { ShimEvents } from '../command/shim-entries.js';
import { CODEX_HOOK_EVENTS, codexGroupToml, codexTrustHash, codexTrustToml } from './setup.js';
import {
  isTable,
  parseToml,
  type TomlDocument,
  TomlSyntaxError,
  type TomlTable,
  type TomlValue,
  tomlEqual,
} from './toml.js';

/** Why `setup codex --write` leaves a config.toml as it is. */
export class CodexMergeRefused extends HookgateError<'CODEX_CONFIG_REFUSED'> {
  constructor(message: string) {
    super('CODEX_CONFIG_REFUSED', message);
    this.name = 'CodexMergeRefused';
  }
}

/**
 * hookgate's hooks merged into the text of a Codex `config.toml` (`file`, its absolute path, which
 * the trust keys name). Everything else stays byte for byte: only hookgate's own groups (a group
 * whose one handler's command `isOurs`) and their trust entries are replaced in place, or appended
 * when missing, and a group of an event the hook no longer has is removed. Codex numbers the groups
 * of an event within a file and trusts `<file>:<event>:<group>:<handler>`, so an appended group
 * gets the next number and existing ones keep theirs (and their trust). Same hook, same file: the
 * same text, so a second run changes nothing. The result is read back and must hold exactly the old
 * data with those changes; anything else (TOML it cannot read, hooks written inline, hookgate's
 * handler sharing a group) is refused with {@link CodexMergeRefused}.
 */
export async function mergeCodexConfig(
  old: string,
  file: string,
  events: ShimEvents,
  isOurs: (command: string) => boolean,
): Promise<string> {
  let doc: TomlDocument;
  try {
    doc = parseToml(old);
  } catch (err) {
    if (err instanceof TomlSyntaxError) throw new CodexMergeRefused(`it is not valid TOML (${err.message})`);
    throw err;
  }
  const expected = cloneTable(doc.data);
  const hooks = tableAt(doc.data, 'hooks', 'hooks');
  const state = hooks && tableAt(hooks, 'state', 'hooks.state');
  const edits: { start: number; end: number; text: string }[] = [];
  const appendGroups: string[] = [];
  const appendTrust: string[] = [];
  const headerOf = (t: TomlTable) => doc.headers.find((h) => h.table === t);
  /** From a header to the next one that is not inside it (its own sub-tables are). */
  const blockOf = (t: TomlTable) => {
    const at = doc.headers.findIndex((h) => h.table === t);
    const h = doc.headers[at]!;
    const next = doc.headers
      .slice(at + 1)
      .find((o) => !(o.path.length > h.path.length && h.path.every((p, k) => o.path[k] === p)));
    return { start: h.start, end: next?.start ?? old.length };
  };
  const expectedHooks = () => subTable(expected, 'hooks');

  for (const [field, event, eventKey] of CODEX_HOOK_EVENTS) {
    const entry = events[field];
    const groups = hooks?.[event];
    if (groups !== undefined && !Array.isArray(groups))
      throw new CodexMergeRefused(`hooks.${event} is not an array of hook groups`);
    const list = (groups ?? []) as TomlValue[];
    if (list.some((g) => !isTable(g) || !headerOf(g)))
      throw new CodexMergeRefused(
        `hooks.${event} is written as an inline array; hookgate adds [[hooks.${event}]] tables, so merge by hand`,
      );
    const ours = list.flatMap((g, k) => (handlersOf(g as TomlTable).some(isOurs) ? [k] : []));
    if (ours.length > 1)
      throw new CodexMergeRefused(
        `hooks.${event} has this hook's command in ${ours.length} groups: keep one`,
      );
    const index = ours[0];
    if (index !== undefined && handlersOf(list[index] as TomlTable).length !== 1)
      throw new CodexMergeRefused(
        `hooks.${event} group ${index} has other handlers beside this hook's: move them to a group of their own`,
      );
    const trustKey = (k: number) => `${file}:${eventKey}:${k}:0`;
    if (!entry) {
      if (index === undefined) continue;
      // The hook no longer has this event (its modes changed): its group goes, with its trust.
      if (index !== list.length - 1)
        throw new CodexMergeRefused(
          `hooks.${event} group ${index} runs this hook, which no longer asks for ${event}, and other groups follow it (removing it would renumber their trust entries): remove it and its trust entry by hand`,
        );
      edits.push({ ...blockOf(list[index] as TomlTable), text: '' });
      const eh = expectedHooks();
      (eh[event] as TomlValue[]).pop();
      if ((eh[event] as TomlValue[]).length === 0) delete eh[event];
      const st = state?.[trustKey(index)];
      if (st !== undefined) {
        if (!isTable(st) || !headerOf(st))
          throw new CodexMergeRefused(
            `hooks.state.${JSON.stringify(trustKey(index))} is not a table of its own`,
          );
        edits.push({ ...blockOf(st), text: '' });
        delete subTable(eh, 'state')[trustKey(index)];
      }
      continue;
    }
    const text = codexGroupToml(event, entry);
    const data = groupData(entry.command, entry.hostTimeoutS);
    const eh = expectedHooks();
    const at = index ?? list.length;
    if (index === undefined) {
      appendGroups.push(text);
      if (!Array.isArray(eh[event])) eh[event] = [];
      (eh[event] as TomlValue[]).push(data);
    } else {
      const block = blockOf(list[index] as TomlTable);
      // Blank and comment lines closing the block stay (they lead into what follows).
      const tail = /(?:\n(?:[ \t]*(?:#[^\n]*)?\r?\n)*)$/.exec(old.slice(block.start, block.end))?.[0] ?? '';
      edits.push({ ...block, text: text.slice(0, -1) + (tail === '' ? '\n' : tail) });
      (eh[event] as TomlValue[])[index] = data;
    }
    const hash = await codexTrustHash(eventKey, '*', entry);
    const st = state?.[trustKey(at)];
    if (st === undefined) {
      appendTrust.push(codexTrustToml(trustKey(at), hash));
      subTable(eh, 'state')[trustKey(at)] = Object.assign(Object.create(null) as TomlTable, {
        trusted_hash: hash,
      });
      continue;
    }
    if (!isTable(st))
      throw new CodexMergeRefused(`hooks.state.${JSON.stringify(trustKey(at))} is not a table`);
    const line = doc.entries.find((e) => e.table === st && e.key === 'trusted_hash');
    const header = headerOf(st);
    if (line) edits.push({ start: line.valueStart, end: line.valueEnd, text: JSON.stringify(hash) });
    else if (header) {
      const eol = old.indexOf('\n', header.start);
      const after = eol < 0 ? old.length : eol + 1;
      edits.push({
        start: after,
        end: after,
        text: `${eol < 0 ? '\n' : ''}trusted_hash = ${JSON.stringify(hash)}\n`,
      });
    } else
      throw new CodexMergeRefused(
        `hooks.state.${JSON.stringify(trustKey(at))} is written inline without a trusted_hash: merge by hand`,
      );
    (subTable(eh, 'state')[trustKey(at)] as TomlTable).trusted_hash = hash;
  }

  // Tables that only existed through what was removed are gone from the data too.
  const eh = subTable(expected, 'hooks');
  const es = eh.state;
  if (isTable(es) && Object.keys(es).length === 0 && !(state && headerOf(state))) delete eh.state;
  if (Object.keys(eh).length === 0 && !(hooks && headerOf(hooks))) delete expected.hooks;

  let text = old;
  for (const e of edits.sort((a, b) => b.start - a.start))
    text = text.slice(0, e.start) + e.text + text.slice(e.end);
  const added = [...appendGroups, ...appendTrust];
  if (added.length > 0) {
    if (text !== '' && !text.endsWith('\n')) text += '\n';
    text += `${text === '' ? '' : '\n'}${added.join('\n')}`;
  }
  let back: TomlDocument;
  try {
    back = parseToml(text);
  } catch (err) {
    throw new CodexMergeRefused(
      `the merged file would not be valid TOML (${(err as Error).message}): merge by hand`,
    );
  }
  if (!tomlEqual(back.data, expected))
    throw new CodexMergeRefused(
      'the merged file would not hold exactly the old settings plus these hooks (an unusual layout of the hooks tables): merge by hand',
    );
  return text;
}

function tableAt(t: TomlTable, key: string, name: string): TomlTable | undefined {
  const v = t[key];
  if (v === undefined) return undefined;
  if (!isTable(v)) throw new CodexMergeRefused(`${name} is not a table`);
  return v;
}

/** `t[key]`, made a table when missing (the expected data only). */
function subTable(t: TomlTable, key: string): TomlTable {
  if (!isTable(t[key])) t[key] = Object.create(null) as TomlTable;
  return t[key] as TomlTable;
}

function handlersOf(group: TomlTable): string[] {
  const handlers = group.hooks;
  if (!Array.isArray(handlers)) return [];
  return handlers.map((h) => (isTable(h) && typeof h.command === 'string' ? h.command : ''));
}

function groupData(command: string, timeout: number): TomlTable {
  const handler = Object.assign(Object.create(null) as TomlTable, {
    type: 'command',
    command,
    timeout: BigInt(timeout),
  });
  return Object.assign(Object.create(null) as TomlTable, { matcher: '*', hooks: [handler] });
}

function cloneTable(t: TomlTable): TomlTable {
  const out = Object.create(null) as TomlTable;
  for (const [k, v] of Object.entries(t)) out[k] = cloneValue(v);
  return out;
}
function cloneValue(v: TomlValue): TomlValue {
  if (Array.isArray(v)) return v.map(cloneValue);
  return isTable(v) ? cloneTable(v) : v;
}
