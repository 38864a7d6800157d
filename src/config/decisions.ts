import { z } from 'zod';

/**
 * `server.decisions`: where the gateway writes one decision record per hook call
 * (docs/observability.md). Off by default: a record for every call is a volume an operator asks
 * for; refusals are audited in the log either way.
 */
export const decisionsSchema = z
  .object({
    /**
     * `stdout`, `file:PATH` (appended to; Node only), `otlp` (OTLP log records to server.tracing's
     * collector) or `off`. Workers write `stdout` to the console.
     */
    to: z
      .string()
      .regex(/^(stdout|off|otlp|file:.+)$/, { error: 'must be stdout, otlp, off or file:PATH' })
      .default('off'),
    /** The share of calls recorded, 0 to 1; refusals are audited in the log whatever it is. */
    sample: z.number().min(0).max(1).default(1),
    /**
     * Records carry each call's arguments and the hook's and the gateway's answers themselves, not
     * only their digests, for every hook; without it only for hooks with `conversation_access`.
     */
    include_args: z.boolean().default(false),
    /** Records held for the sink at most; more are dropped and counted, never waited for. */
    max_queued: z.number().int().positive().max(1_000_000).default(10_000),
  })
  .strict();

export type DecisionsDocument = z.infer<typeof decisionsSchema>;

/** Where records go, as the runtime opens it. */
export type DecisionsTarget =
  | { kind: 'off' }
  | { kind: 'stdout' }
  | { kind: 'otlp' }
  | { kind: 'file'; path: string };

export interface DecisionSettings {
  target: DecisionsTarget;
  sample: number;
  includeArgs: boolean;
  maxQueued: number;
}

export const DECISIONS_OFF: DecisionSettings = {
  target: { kind: 'off' },
  sample: 1,
  includeArgs: false,
  maxQueued: 10_000,
};

export function compileDecisions(doc: DecisionsDocument | undefined): DecisionSettings {
  if (!doc) return DECISIONS_OFF;
  const target: DecisionsTarget =
    doc.to === 'off'
      ? { kind: 'off' }
      : doc.to === 'stdout' || doc.to === 'otlp'
        ? { kind: doc.to }
        : { kind: 'file', path: doc.to.slice('file:'.length) };
  return { target, sample: doc.sample, includeArgs: doc.include_args, maxQueued: doc.max_queued };
}
