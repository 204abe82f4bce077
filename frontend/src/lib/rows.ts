// What the chat shows for a session's history: approval items fold into
// their tool cards (the approval dock asks the question), each answer
// (everything the agent did for one user message) shows one usage line:
// the tokens and cost of all the model calls of that turn, under its last
// text, or on a line of its own when the turn wrote no text; and a change
// of the tools the model sees is a chip (the session's first set, its
// baseline, only on demand); a hook that ran for no tool call (a prompt,
// session or stop hook) is a quiet line of its own.
import type { ApprovalView, UIMessage, Usage } from './types';

/** Row is one item of the chat. */
export type Row =
  | { kind: 'user'; key: string; msg: UIMessage }
  | { kind: 'assistant'; key: string; msg: UIMessage; usage: Usage | null }
  | { kind: 'usage'; key: string; usage: Usage }
  | { kind: 'tool'; key: string; msg: UIMessage; approval?: ApprovalView }
  | { kind: 'error'; key: string; msg: UIMessage }
  | { kind: 'compaction'; key: string; msg: UIMessage }
  | { kind: 'capabilities'; key: string; msg: UIMessage }
  | { kind: 'loaded'; key: string; msg: UIMessage }
  | { kind: 'model'; key: string; msg: UIMessage }
  | { kind: 'hook'; key: string; msg: UIMessage };

/** addUsage sums two usages (either may be null). */
export function addUsage(a: Usage | null, b: Usage | undefined | null): Usage | null {
  if (!b || b.inputTokens + b.outputTokens === 0) {
    return a;
  }
  if (!a) {
    return { ...b };
  }
  return {
    model: b.model || a.model,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0) || undefined,
    cacheWriteTokens: (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0) || undefined,
    costUsd: (a.costUsd ?? 0) + (b.costUsd ?? 0) || undefined,
  };
}

/** buildRows turns a session's messages into chat rows. */
export function buildRows(messages: UIMessage[], running = false): Row[] {
  const rows: Row[] = [];
  const approvals = new Map<string, { seq: number; approval: ApprovalView }[]>();
  for (const m of messages) {
    if (m.kind === 'approval' && m.approval) {
      const list = approvals.get(m.approval.callId) ?? [];
      list.push({ seq: m.seq, approval: m.approval });
      approvals.set(m.approval.callId, list);
    }
  }
  // The turn being read: its usage so far and its last answer with text.
  let turnUsage: Usage | null = null;
  let lastAnswer = -1;
  const endTurn = () => {
    if (turnUsage) {
      const row = rows[lastAnswer];
      if (row?.kind === 'assistant') {
        rows[lastAnswer] = { ...row, usage: turnUsage };
      } else {
        rows.push({ kind: 'usage', key: `usage-${rows.length}`, usage: turnUsage });
      }
    }
    turnUsage = null;
    lastAnswer = -1;
  };
  for (const m of messages) {
    const key = `${m.kind}-${m.seq}`;
    switch (m.kind) {
      case 'user':
        endTurn();
        rows.push({ kind: 'user', key, msg: m });
        break;
      case 'assistant':
        turnUsage = addUsage(turnUsage, m.usage);
        if ((m.text ?? '').trim() !== '' || m.partial) {
          rows.push({ kind: 'assistant', key, msg: m, usage: null });
          lastAnswer = rows.length - 1;
        }
        break;
      case 'tool': {
        // Call IDs repeat across turns with some providers: take the
        // approval asked after this call's intent.
        const list = m.tool ? approvals.get(m.tool.callId) : undefined;
        const approval = list?.find((a) => a.seq > m.seq)?.approval;
        rows.push({ kind: 'tool', key, msg: m, approval });
        break;
      }
      case 'error':
        rows.push({ kind: 'error', key, msg: m });
        break;
      case 'compaction':
        rows.push({ kind: 'compaction', key, msg: m });
        break;
      case 'capabilities':
        if (m.capabilities && !m.capabilities.baseline) {
          rows.push({ kind: 'capabilities', key, msg: m });
        }
        break;
      case 'loaded':
        if (m.loaded) {
          rows.push({ kind: 'loaded', key, msg: m });
        }
        break;
      case 'model':
        rows.push({ kind: 'model', key, msg: m });
        break;
      case 'hook':
        if (m.hook) {
          rows.push({ kind: 'hook', key, msg: m });
        }
        break;
    }
  }
  if (!running) {
    endTurn(); // while running, the turn's figures are not complete yet
  }
  return rows;
}

/**
 * contextUsed is how much of the context the last model call filled: the
 * backend's figure, or (when that is 0 because the last answer was cut off
 * before any usage came) the last non-empty usage since the last compaction.
 */
export function contextUsed(view: { contextUsed: number; messages: UIMessage[] } | null): number {
  if (!view) {
    return 0;
  }
  if (view.contextUsed > 0) {
    return view.contextUsed;
  }
  for (let i = view.messages.length - 1; i >= 0; i--) {
    const m = view.messages[i];
    if (m.kind === 'compaction') {
      break;
    }
    const u = m.usage;
    if (u && u.inputTokens + u.outputTokens > 0) {
      return u.inputTokens + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0) + u.outputTokens;
    }
  }
  return 0;
}

/** baseline returns the session's first capability set (the item the chat does not show), if logged. */
export function baseline(messages: readonly UIMessage[]): UIMessage | undefined {
  return messages.find((m) => m.kind === 'capabilities' && m.capabilities?.baseline);
}
