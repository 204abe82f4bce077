// The user's hooks as Settings → Hooks edits them: Claude Code's nested
// shape (event → matcher groups → hooks) flattened into rows, and the
// edits that turn back into that shape without disturbing the rest of what
// the user wrote.
import type { HookCommand, HookEvent, HookRun, HooksConfig } from './types';

/** HookEntry is one hook of a config, where it sits in it. */
export interface HookEntry {
  event: HookEvent;
  /** group and index locate the hook in config[event][group].hooks. */
  group: number;
  index: number;
  matcher: string;
  type: string;
  command: string;
  timeout?: number;
}

/** HookDraft is what the form edits. */
export interface HookDraft {
  event: HookEvent;
  matcher: string;
  command: string;
  timeout?: number;
}

/** hookEvents lists the events in lifecycle order. */
export const hookEvents: readonly HookEvent[] = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'Notification',
  'Stop',
  'SubagentStop',
  'PreCompact',
  'SessionEnd',
];

/** flattenHooks lists a config's hooks, event by event in lifecycle order. */
export function flattenHooks(config: HooksConfig | undefined): HookEntry[] {
  const out: HookEntry[] = [];
  for (const event of hookEvents) {
    (config?.[event] ?? []).forEach((g, group) => {
      (g.hooks ?? []).forEach((h, index) => {
        out.push({ event, group, index, matcher: g.matcher ?? '', type: h.type, command: h.command ?? '', timeout: h.timeout });
      });
    });
  }
  return out;
}

function clone(config: HooksConfig): HooksConfig {
  return JSON.parse(JSON.stringify(config ?? {})) as HooksConfig;
}

function command(d: HookDraft): HookCommand {
  const h: HookCommand = { type: 'command', command: d.command.trim() };
  if (d.timeout !== undefined && Number.isFinite(d.timeout) && d.timeout > 0) {
    h.timeout = d.timeout;
  }
  return h;
}

/**
 * withHook adds a hook: to the event's group with the same matcher when
 * there is one, else as a new group at the end.
 */
export function withHook(config: HooksConfig, d: HookDraft): HooksConfig {
  const next = clone(config);
  const groups = (next[d.event] ??= []);
  const matcher = d.matcher.trim();
  const same = groups.find((g) => (g.matcher ?? '') === matcher);
  if (same) {
    same.hooks.push(command(d));
  } else {
    groups.push(matcher ? { matcher, hooks: [command(d)] } : { hooks: [command(d)] });
  }
  return next;
}

/** withoutHook removes one hook, and its group when that was the last. */
export function withoutHook(config: HooksConfig, e: Pick<HookEntry, 'event' | 'group' | 'index'>): HooksConfig {
  const next = clone(config);
  const groups = next[e.event];
  const g = groups?.[e.group];
  if (!groups || !g) {
    return next;
  }
  g.hooks.splice(e.index, 1);
  if (g.hooks.length === 0) {
    groups.splice(e.group, 1);
  }
  if (groups.length === 0) {
    delete next[e.event];
  }
  return next;
}

/**
 * withEdit replaces one hook with d. A hook alone in its group keeps its
 * place (the group takes the new matcher); one that shares its group with
 * others moves to a group of its own when its event or matcher changes.
 */
export function withEdit(config: HooksConfig, e: HookEntry, d: HookDraft): HooksConfig {
  const g = config[e.event]?.[e.group];
  if (!g) {
    return withHook(config, d);
  }
  const matcher = d.matcher.trim();
  if (d.event === e.event && (matcher === (g.matcher ?? '') || g.hooks.length === 1)) {
    const next = clone(config);
    const ng = next[e.event]![e.group];
    ng.hooks[e.index] = { ...ng.hooks[e.index], ...command(d) };
    if (d.timeout === undefined || !(d.timeout > 0)) {
      delete ng.hooks[e.index].timeout;
    }
    if (matcher) {
      ng.matcher = matcher;
    } else {
      delete ng.matcher;
    }
    return next;
  }
  return withHook(withoutHook(config, e), d);
}

/** HookOutcome is what a hook run's quiet line says it did. */
export type HookOutcome =
  | 'ran'
  | 'allowed'
  | 'denied'
  | 'asked'
  | 'refused'
  | 'goOn'
  | 'feedback'
  | 'stopped'
  | 'timedOut'
  | 'failed';

/** hookOutcome sums up a hook run for its line in the chat. */
export function hookOutcome(run: HookRun): HookOutcome {
  if (run.timedOut) {
    return 'timedOut';
  }
  if (run.problem && !run.decision) {
    return 'failed';
  }
  switch (run.decision) {
    case 'allow':
      return 'allowed';
    case 'deny':
      return 'denied';
    case 'ask':
      return 'asked';
    case 'block':
      if (run.event === 'UserPromptSubmit') {
        return 'refused';
      }
      if (run.event === 'Stop' || run.event === 'SubagentStop') {
        return run.context ? 'goOn' : 'failed';
      }
      return 'feedback';
  }
  if (run.stop) {
    return 'stopped';
  }
  return 'ran';
}

/** shortCommand is a hook's command for a one-line label. */
export function shortCommand(command: string, max = 60): string {
  const one = command.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
