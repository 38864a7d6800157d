/**
 * PicoClaw's `HookMeta` as it sends it: PascalCase (the Go struct has no json tags) and every key
 * present. Host dialects and the MCP route build it here from the ids they have, so a hook sees the
 * same shape whichever host the call came from.
 */
export interface CallIds {
  /** Which host or route the call came from (`claude-code`, `openclaw`, `hermes`, `mcp`). */
  source: string;
  agentId?: string;
  turnId?: string;
  sessionKey?: string;
}

export function hookMeta(ids: CallIds, tracePath: string): Record<string, unknown> {
  return {
    AgentID: ids.agentId ?? '',
    TurnID: ids.turnId ?? '',
    ParentTurnID: '',
    SessionKey: ids.sessionKey ?? '',
    Iteration: 0,
    TracePath: tracePath,
    Source: ids.source,
  };
}

/**
 * A host's own event as a PicoClaw runtime event (`<source>.<event>`). Its kind is unknown to the
 * gateway's minimisation, so without conversation_access every string of the payload is withheld;
 * the ids travel in the scope.
 */
export function hostRuntimeEvent(
  event: string,
  ids: CallIds & { name?: string },
  payload: Record<string, unknown>,
  at: { requestId: string; now: string },
): Record<string, unknown> {
  return {
    id: at.requestId,
    kind: `${ids.source}.${event}`,
    time: at.now,
    source: { component: ids.source, name: ids.name ?? '' },
    scope: { session_key: ids.sessionKey ?? '', turn_id: ids.turnId ?? '' },
    correlation: {},
    payload,
  };
}
