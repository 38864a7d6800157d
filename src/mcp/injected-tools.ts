import type { ToolDescription } from '../config/runtime.js';
import { toolDiscoveryParams } from './hook-params.js';
import type { HookCallOutcome, InjectedToolsSource } from './port.js';
import { describeDefinitions } from './tool-list.js';

export type InjectedTools =
  | { ok: true; tools: ReadonlyMap<string, ToolDescription> }
  | { ok: false; limited: Extract<HookCallOutcome, { limited: unknown }>['limited'] };

interface Entry {
  starts: number;
  pending: Promise<{ found: InjectedTools; keep: boolean }>;
}

/**
 * What each hook injects in before_llm, asked once per backend start with an empty conversation
 * and kept. A hook that failed to answer is asked again next time (a failure says nothing about
 * its tools), and so is one a limit refused; callers arriving while the question is out share it.
 * Keyed weakly by the backend, so a hook a reload replaced takes its entry with it.
 */
export class InjectedToolsCache {
  private readonly entries = new WeakMap<object, Entry>();

  async get(
    source: InjectedToolsSource,
    hookTools: ReadonlySet<string>,
    requestId: string,
  ): Promise<InjectedTools> {
    let entry = this.entries.get(source.key);
    if (!entry || entry.starts !== source.starts) {
      const created: Entry = { starts: source.starts, pending: ask(source, hookTools, requestId) };
      this.entries.set(source.key, created);
      created.pending.then(({ keep }) => {
        if (!keep && this.entries.get(source.key) === created) this.entries.delete(source.key);
      });
      entry = created;
    }
    return (await entry.pending).found;
  }
}

async function ask(
  source: InjectedToolsSource,
  hookTools: ReadonlySet<string>,
  requestId: string,
): Promise<{ found: InjectedTools; keep: boolean }> {
  const outcome = await source.ask(toolDiscoveryParams(requestId));
  if ('limited' in outcome) return { found: { ok: false, limited: outcome.limited }, keep: false };
  const request = outcome.answer.request as { tools?: unknown } | undefined;
  const tools = describeDefinitions(request?.tools as unknown[] | undefined, hookTools);
  // Answered by the failure mode: nothing was learnt about the hook's tools.
  return { found: { ok: true, tools }, keep: outcome.failure === undefined };
}
