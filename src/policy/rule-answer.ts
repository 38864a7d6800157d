/**
 * A gateway rule's verdict as the answer to the call, in PicoClaw's terms (each dialect translates
 * it, as it translates a hook's). Pure.
 *
 * - `deny`: before_tool `deny_tool`; approve_tool an explicit denial. The hook is never asked.
 * - `ask`: no verdict that skips approval. before_tool goes on to the host's approval (marked, so a
 *   host with an ask of its own asks); approve_tool gives no verdict where the host has a person to
 *   ask, and is denied where the approval is this call itself (PicoClaw): nobody is there to ask.
 * - `allow`: before_tool goes on without asking the hook (the host's own approval still applies);
 *   approve_tool approves — the caller passes that through the same `approve_tools` check as a
 *   hook's approval, so a rule is never a way around it.
 */
import type { RuleHit } from './rules.js';
import { hitReason } from './rules.js';
import { askAnswer, continueAnswer, denyApproval } from './answers.js';
import { Method } from '../protocol/methods.js';

export type RuleAnswer =
  | { answer: Record<string, unknown> }
  /** A person decides through the gateway's approvals: the caller parks the call (see personAnswer). */
  | { person: { reason: string } }
  /** An approval the caller must check against `approve_tools` before it leaves. */
  | { approval: { approved: true; reason: string } };

export function ruleAnswer(method: string, hit: RuleHit, hostApproves: boolean): RuleAnswer {
  const reason = hitReason(hit);
  switch (hit.action) {
    case 'deny':
      return method === Method.ApproveTool
        ? { answer: denyApproval(reason) }
        : { answer: { action: 'deny_tool', reason } };
    case 'ask':
      if (method !== Method.ApproveTool || hostApproves) return { answer: askAnswer(reason) };
      return { answer: denyApproval(`${reason}; this host's approval is this call, with no person to ask`) };
    case 'ask_human':
      return { person: { reason } };
    case 'allow':
      return method === Method.ApproveTool
        ? { approval: { approved: true, reason } }
        : { answer: continueAnswer() };
  }
}

/** What a person decided, held by the gateway (docs/approvals.md), as the answer to the call. */
export interface PersonDecision {
  decision: 'approved' | 'denied' | 'expired';
  reason?: string;
  approver?: string;
}

/**
 * The answer for a call a person decided: approved goes on (before_tool: no objection, the host's
 * own approval still applies; approve_tool: approved — a person, not a hook, is the approval);
 * denied is the host's deny with the person's reason. `expired` is not decided here: the caller
 * answers it by the hook's failure mode ("no one approved in time").
 */
export function personAnswer(method: string, d: PersonDecision): Record<string, unknown> {
  const who = d.approver ? ` by ${d.approver}` : '';
  const why = d.reason ? `: ${d.reason}` : '';
  if (d.decision === 'approved') {
    return method === Method.ApproveTool
      ? { approved: true, reason: `approved${who}${why}` }
      : continueAnswer();
  }
  const reason = `denied${who}${why}`;
  return method === Method.ApproveTool ? denyApproval(reason) : { action: 'deny_tool', reason };
}

/**
 * A hook's answer that asks for a person instead of deciding — `{"action": "ask_human", "reason"}`
 * on a tool call or its approval (an extension of PicoClaw's answers; the gateway takes it and the
 * host never sees it) — as the reason to show the approver, or undefined for any other answer.
 */
export function askHumanReason(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const answer = raw as Record<string, unknown>;
  if (answer.action !== 'ask_human') return undefined;
  return typeof answer.reason === 'string' && answer.reason !== ''
    ? answer.reason.slice(0, 1024)
    : 'the hook asks a person';
}
