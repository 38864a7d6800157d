import { PASS, type Shape, WITHHOLD } from './withhold.js';

/** The turn context (`TurnContext`): routing facts, plus the channel's raw metadata. */
export const CONTEXT: Shape = {
  inbound: {
    channel: PASS,
    account: PASS,
    chat_id: PASS,
    chat_type: PASS,
    topic_id: PASS,
    space_id: PASS,
    space_type: PASS,
    sender_id: PASS,
    message_id: PASS,
    mentioned: PASS,
    reply_to_message_id: PASS,
    reply_to_sender_id: PASS,
    reply_handles: PASS,
    // Free-form per channel; some quote the message replied to (WeCom's `quote_text`).
    raw: WITHHOLD,
  },
  // Config-derived routing (PascalCase, no json tags) and the session scope: ids only.
  route: PASS,
  scope: PASS,
};
