import { TOKEN_ENV } from '../../bridge/options.js';
import { postJson } from '../../node/post-json.js';
import { readInputCapped } from '../../node/cli/read-input.js';

/**
 * One Hermes shell-hook firing: Hermes's JSON from stdin → the gateway's hermes route → what Hermes
 * reads on stdout. Hermes waits for the process (its `timeout`, default 60 s), so everything here
 * runs under one deadline and every failure ends the process with a decision:
 *
 * - fail-open (default): nothing on stdout, exit 0: Hermes goes on as without the hook.
 * - fail-closed (Hermes `fail_closed: true`): exit 2 with the reason on stderr and, for
 *   pre_tool_call, `{"action":"block","message"}` on stdout. Hermes versions with `fail_closed`
 *   block on exit 2; older ones (0.19) ignore exit codes but read the block from stdout.
 */

export interface HermesHookOptions {
  /** The hook's hermes route. */
  url: string;
  /** Empty when the environment has none: a failure like any other. */
  token: string;
  failClosed: boolean;
  /** The whole firing (stdin, request, answer) must end within this. */
  timeoutMs: number;
  maxInputBytes: number;
  /**
   * The Hermes it runs under has no `modify` (0.19 and older read only `block` and drop anything
   * else): a granted rewrite then blocks the call instead of letting it run unchanged.
   */
  noModify?: boolean;
}

export interface HermesHookResult {
  code: 0 | 2;
  stdout: string;
  stderr: string;
}

/** The event name, when the input says one (only to shape a fail-closed answer). */
function eventOf(text: string): string | undefined {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === 'object' && v !== null && 'hook_event_name' in v) {
      const e = (v as { hook_event_name: unknown }).hook_event_name;
      return typeof e === 'string' ? e : undefined;
    }
  } catch {
    // not JSON: the gateway would refuse it too
  }
  return undefined;
}

function failure(opts: HermesHookOptions, why: string, event: string | undefined): HermesHookResult {
  const reason = `hookgate: gateway failed: ${why}`;
  if (!opts.failClosed) return { code: 0, stdout: '', stderr: `${reason} (failing open)\n` };
  // A block on stdout means something else to other events (pre_verify reads it as "keep going").
  const blocks = event === undefined || event === 'pre_tool_call';
  return {
    code: 2,
    stdout: blocks ? `${JSON.stringify({ action: 'block', message: reason })}\n` : '',
    stderr: `${reason}\n`,
  };
}

function withoutModify(answer: Record<string, unknown>): Record<string, unknown> {
  if (answer.action !== 'modify') return answer;
  return {
    action: 'block',
    message:
      'hookgate: the hook rewrote this call, and this Hermes cannot apply a rewrite (no modify); not run',
  };
}

/** Hermes's answer is a few hundred bytes; a gateway answering more than this is not answering. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

function errorText(status: number, text: string): string {
  // Only the gateway's own answer may decide: a redirect (to wherever) is a failure, never followed.
  if (status >= 300 && status < 400) return `HTTP ${status}: a redirect, not followed`;
  try {
    const body = JSON.parse(text.slice(0, 2000)) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') return `HTTP ${status}: ${body.error.message}`;
  } catch {
    // not the gateway's error body
  }
  return `HTTP ${status}`;
}

export async function runHermesHook(
  input: AsyncIterable<Buffer | string>,
  opts: HermesHookOptions,
): Promise<HermesHookResult> {
  const controller = new AbortController();
  const deadline = new Promise<never>((_, reject) => {
    const timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no answer within ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    // Never what keeps the process alive once the answer is in.
    timer.unref();
  });
  let event: string | undefined;
  try {
    return await Promise.race([
      deadline,
      (async () => {
        const text = await readInputCapped(input, opts.maxInputBytes);
        event = eventOf(text);
        if (opts.token === '' || /\s/.test(opts.token))
          return failure(opts, `${TOKEN_ENV} is not set (or not a single token)`, event);
        // node:http, not fetch: this runs once per event, and fetch's own start-up costs more than the rest.
        const res = await postJson(opts.url, text, {
          headers: { 'content-type': 'application/json', authorization: `Bearer ${opts.token}` },
          signal: controller.signal,
          maxAnswerBytes: MAX_ANSWER_BYTES,
        });
        if (res.status !== 200) return failure(opts, errorText(res.status, res.text), event);
        const answer: unknown = JSON.parse(res.text);
        if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
          return failure(opts, 'answer is not a JSON object', event);
        const shown = opts.noModify ? withoutModify(answer as Record<string, unknown>) : answer;
        // `{}` is no decision; printing nothing says the same to every Hermes version.
        const out = Object.keys(shown).length === 0 ? '' : `${JSON.stringify(shown)}\n`;
        return { code: 0 as const, stdout: out, stderr: '' };
      })(),
    ]);
  } catch (err) {
    const why =
      err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    return failure(opts, why, event);
  } finally {
    controller.abort();
  }
}
