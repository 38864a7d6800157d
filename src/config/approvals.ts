import { z } from 'zod';
import { parseWebhookSecret } from '../core/webhook-signature.js';
import type { ConfigIssue } from './errors.js';

/**
 * `tenants.<name>.approvals`: how a tenant's people hear that a call waits for them
 * (docs/approvals.md). The inbox itself needs no config; this adds the outgoing webhook.
 */
export const approvalsSchema = z
  .object({
    webhook: z
      .object({
        /** Where each new request is POSTed; a secret reference when the URL is itself a secret (Slack's are). */
        url: z.string().min(1),
        /** `whsec_…` (Standard Webhooks), as a secret reference; required for `standard`. */
        secret: z.string().min(1).optional(),
        /** `standard`: hookgate's JSON event; `slack`: a Slack incoming-webhook message. */
        format: z.enum(['standard', 'slack']).default('standard'),
        timeout_ms: z.number().int().positive().max(30_000).default(5_000),
      })
      .strict()
      .optional(),
    /** The inbox's public address (e.g. https://gateway.example/approvals), linked from webhook messages. */
    inbox_url: z.url({ protocol: /^https?$/ }).optional(),
  })
  .strict();

export type ApprovalsDocument = z.infer<typeof approvalsSchema>;

export interface ApprovalWebhookSettings {
  /** Resolved (may be a secret itself): never log it. */
  url: string;
  /** `whsec_…` secrets, resolved; empty only for a Slack webhook without one. */
  secrets: string[];
  format: 'standard' | 'slack';
  timeoutMs: number;
}

export interface ApprovalSettings {
  webhook?: ApprovalWebhookSettings;
  inboxUrl?: string;
}

type Resolve = (ref: string, path: string) => string | undefined;

/** A tenant's approval settings as the runtime uses them; undefined when absent or with issues. */
export function compileApprovals(
  doc: ApprovalsDocument | undefined,
  path: string,
  resolve: Resolve,
  issues: ConfigIssue[],
): ApprovalSettings | undefined {
  if (!doc) return undefined;
  const before = issues.length;
  let webhook: ApprovalWebhookSettings | undefined;
  if (doc.webhook) {
    const base = `${path}.webhook`;
    const url = resolve(doc.webhook.url, `${base}.url`);
    if (url !== undefined) checkUrl(url, `${base}.url`, issues);
    const secrets: string[] = [];
    if (doc.webhook.secret !== undefined) {
      const secret = resolve(doc.webhook.secret, `${base}.secret`);
      if (secret !== undefined) {
        try {
          parseWebhookSecret(secret);
          secrets.push(secret);
        } catch (err) {
          issues.push({ path: `${base}.secret`, message: (err as Error).message });
        }
      }
    } else if (doc.webhook.format === 'standard') {
      issues.push({ path: `${base}.secret`, message: 'is required for format standard (whsec_…)' });
    }
    if (url !== undefined) {
      webhook = { url, secrets, format: doc.webhook.format, timeoutMs: doc.webhook.timeout_ms };
    }
  }
  if (issues.length > before) return undefined;
  return { webhook, inboxUrl: doc.inbox_url };
}

/** Never quotes the URL: it may carry a secret. */
function checkUrl(url: string, path: string, issues: ConfigIssue[]): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    issues.push({ path, message: 'is not a URL' });
    return;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    issues.push({ path, message: 'must be an http:// or https:// URL' });
  }
}
