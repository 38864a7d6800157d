import { TOKEN_ENV } from '../../bridge/options.js';
import type { ShimHost, ShimOutput } from './shim.js';
import { postJson } from '../../node/post-json.js';
import { readInputCapped } from '../../node/cli/read-input.js';

/**
 * One command-hook firing of Codex, Copilot CLI or Gemini CLI: the host's JSON from stdin → the
 * gateway's route for that host → what the host reads on stdout, and the exit code it acts on.
 *
 * These hosts run the tool when their hook crashes, prints garbage or times out (Copilot blocks
 * only on a crash), so this command is the fail-closed party. Everything runs under one deadline,
 * below the host's own hook timeout, and only a 2xx answer whose body is a JSON object is a
 * decision; anything else (gateway down, slow, a redirect, another status, bad JSON, the token
 * refused or missing) is a failure:
 *
 * - fail-open (default): nothing on stdout, exit 0: the host goes on as without the hook.
 * - fail-closed (`--fail-closed`): the host's block, with a reason the model reads.
 *
 * The answer `{}` (no objection) prints nothing: Codex records a printed `allow` as a failed hook.
 */
export interface CommandHookOptions {
  /** The hook's route for this host. */
  url: string;
  /** Empty when the environment has none: a failure like any other. */
  token: string;
  failClosed: boolean;
  /** The whole firing (stdin, request, answer) must end within this. */
  timeoutMs: number;
  maxInputBytes: number;
}

/** An answer is a few hundred bytes; a gateway answering more than this is not answering. */
const MAX_ANSWER_BYTES = 1024 * 1024;

function errorText(status: number, text: string): string {
  // Only the gateway's own answer may decide: a redirect (to wherever) is never followed.
  if (status >= 300 && status < 400) return `HTTP ${status}: a redirect, not followed`;
  try {
    const body = JSON.parse(text.slice(0, 2000)) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') return `HTTP ${status}: ${body.error.message}`;
  } catch {
    // not the gateway's error body
  }
  return `HTTP ${status}`;
}

function failure(host: ShimHost, opts: CommandHookOptions, why: string, input: string): ShimOutput {
  if (!opts.failClosed)
    return { code: 0, stdout: '', stderr: `hookgate: gateway failed: ${why} (failing open)\n` };
  return host.blocked(
    `hookgate: the policy gateway could not be asked (${why}); blocked, fail-closed`,
    input,
  );
}

export async function runCommandHook(
  input: AsyncIterable<Buffer | string>,
  host: ShimHost,
  opts: CommandHookOptions,
): Promise<ShimOutput> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no answer within ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
  });
  let text = '';
  try {
    return await Promise.race([
      deadline,
      (async () => {
        text = await readInputCapped(input, opts.maxInputBytes);
        if (opts.token === '' || /\s/.test(opts.token))
          return failure(host, opts, `${TOKEN_ENV} is not set (or not a single token)`, text);
        // node:http, not fetch: this runs once per tool call, and fetch's start-up costs more than the rest.
        const res = await postJson(opts.url, text, {
          headers: { 'content-type': 'application/json', authorization: `Bearer ${opts.token}` },
          signal: controller.signal,
          maxAnswerBytes: MAX_ANSWER_BYTES,
        });
        if (res.status < 200 || res.status > 299)
          return failure(host, opts, errorText(res.status, res.text), text);
        let answer: unknown;
        try {
          answer = JSON.parse(res.text);
        } catch {
          return failure(host, opts, `HTTP ${res.status}: the answer is not JSON`, text);
        }
        if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
          return failure(host, opts, 'the answer is not a JSON object', text);
        // `{}` is no objection: printing nothing says it to every host.
        const out = Object.keys(answer).length === 0 ? '' : `${JSON.stringify(answer)}\n`;
        return { code: 0, stdout: out, stderr: '' };
      })(),
    ]);
  } catch (err) {
    const why =
      err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    return failure(host, opts, why, text);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
