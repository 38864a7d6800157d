import type { ApprovalSettings, ApprovalWebhookSettings } from '../config/approvals.js';
import {
  createSigner,
  newWebhookId,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  type WebhookSigner,
} from '../core/webhook-signature.js';
import type { Logger } from '../server/logger.js';
import type { ApprovalRequest } from './types.js';

export const APPROVAL_REQUESTED = 'approval.requested';

/** How much of the shown arguments a Slack message carries (a message is for a glance). */
const SLACK_ARGS_CHARS = 600;

export interface ApprovalWebhookDeps {
  log?: Logger;
  fetch?: typeof fetch;
}

/** One signer per settings object: the HMAC keys are imported once per config, not per request. */
const signers = new WeakMap<ApprovalWebhookSettings, WebhookSigner>();

/**
 * Tells the tenant's webhook that a call waits for a person. Signed as the http backend's calls
 * are (Standard Webhooks); redirects refused (a redirect could carry the request elsewhere), bounded
 * by the webhook's timeout. A failure is logged, never thrown: the request stays in the inbox.
 */
export async function sendApprovalWebhook(
  settings: ApprovalSettings | undefined,
  request: ApprovalRequest,
  deps: ApprovalWebhookDeps = {},
): Promise<void> {
  const webhook = settings?.webhook;
  if (!webhook) return;
  const where = { tenant: request.binding.tenant, approval: request.id, format: webhook.format };
  try {
    const body = approvalWebhookBody(webhook.format, request, settings.inboxUrl);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (webhook.secrets.length > 0) {
      const signer = signers.get(webhook) ?? createSigner(webhook.secrets);
      signers.set(webhook, signer);
      const id = newWebhookId();
      const timestamp = Math.floor(Date.now() / 1000);
      headers[WEBHOOK_ID_HEADER] = id;
      headers[WEBHOOK_TIMESTAMP_HEADER] = String(timestamp);
      headers[WEBHOOK_SIGNATURE_HEADER] = await signer.sign(id, timestamp, body);
    }
    const res = await (deps.fetch ?? fetch)(webhook.url, {
      method: 'POST',
      headers,
      body,
      redirect: 'error',
      signal: AbortSignal.timeout(webhook.timeoutMs),
    });
    // The body is not needed; reading it frees the connection.
    await res.body?.cancel();
    if (!res.ok) deps.log?.warn({ ...where, status: res.status }, 'approval webhook answered with an error');
    else deps.log?.debug({ ...where, status: res.status }, 'approval webhook sent');
  } catch (err) {
    // The URL is never logged: it may be a secret (Slack's are).
    const why = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    deps.log?.warn({ ...where, err: why }, 'approval webhook failed');
  }
}

/** The webhook's body: hookgate's event (standard) or a Slack incoming-webhook message. */
export function approvalWebhookBody(
  format: 'standard' | 'slack',
  request: ApprovalRequest,
  inboxUrl?: string,
): string {
  const b = request.binding;
  if (format === 'slack') {
    const lines = [
      `*Approval needed* (${slack(b.tenant)}): \`${slack(b.tool)}\` from ${slack(b.host)} via hook ${slack(b.hook)}`,
    ];
    if (request.display.reason) lines.push(`Why: ${slack(request.display.reason)}`);
    if (request.display.args !== undefined) {
      const text = JSON.stringify(request.display.args, null, 2) ?? '';
      const shown = text.length > SLACK_ARGS_CHARS ? `${text.slice(0, SLACK_ARGS_CHARS)}…` : text;
      lines.push(`\`\`\`${slack(shown)}\`\`\``);
    }
    lines.push(`Expires ${new Date(b.expiresAt).toISOString()}`);
    if (inboxUrl) lines.push(`<${inboxUrl}|Open the approval inbox>`);
    return JSON.stringify({ text: lines.join('\n') });
  }
  return JSON.stringify({
    type: APPROVAL_REQUESTED,
    timestamp: new Date(request.createdAt).toISOString(),
    data: {
      id: request.id,
      tenant: b.tenant,
      hook: b.hook,
      host: b.host,
      tool: b.tool,
      args_digest: b.argsDigest,
      config_revision: b.configRevision,
      created_at: request.createdAt,
      expires_at: b.expiresAt,
      ...(request.display.reason ? { reason: request.display.reason } : {}),
      ...(request.display.args !== undefined ? { args: request.display.args } : {}),
      ...(inboxUrl ? { inbox_url: inboxUrl } : {}),
    },
  });
}

/** Slack's mrkdwn: these three are control characters, escaped as HTML entities. */
function slack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
