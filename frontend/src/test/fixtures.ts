// Builders of backend shapes for the unit tests.
import type { CapabilityList, CapabilityView, MCPServerView, Session, SessionView, SettingsView, UIMessage } from '../lib/types';

export function session(over: Partial<Session> = {}): Session {
  return {
    id: 's1',
    title: 'Fix the tests',
    renamed: false,
    workspace: '/home/me/project',
    mode: 'default',
    provider: 'local',
    model: 'test-model',
    createdAt: '2026-11-30T09:00:00Z',
    updatedAt: '2026-11-30T09:05:00Z',
    lastSeq: 10,
    messageCount: 2,
    usage: { inputTokens: 1200, outputTokens: 300 },
    ...over,
  };
}

export function sessionView(over: Partial<SessionView> = {}): SessionView {
  return {
    session: session(),
    messages: [],
    running: false,
    pending: [],
    contextWindow: 128000,
    contextUsed: 6400,
    ...over,
  };
}

export function userMsg(seq: number, text: string): UIMessage {
  return { seq, kind: 'user', time: '2026-11-30T09:00:00Z', text };
}

export function assistantMsg(seq: number, text: string, usage?: UIMessage['usage']): UIMessage {
  return { seq, kind: 'assistant', time: '2026-11-30T09:00:01Z', text, model: 'test-model', usage };
}

export function toolMsg(seq: number, tool: Partial<NonNullable<UIMessage['tool']>> = {}): UIMessage {
  return {
    seq,
    kind: 'tool',
    time: '2026-11-30T09:00:02Z',
    tool: { callId: 'call_1', name: 'Write', arguments: '{"path":"a.txt","content":"hi\\n"}', status: 'pending', ...tool },
  };
}

export function approvalMsg(seq: number, approval: Partial<NonNullable<UIMessage['approval']>> = {}): UIMessage {
  return {
    seq,
    kind: 'approval',
    time: '2026-11-30T09:00:03Z',
    approval: { callId: 'call_1', name: 'Write', arguments: '{"path":"a.txt","content":"hi\\n"}', ...approval },
  };
}

export function settingsView(over: Partial<SettingsView> = {}): SettingsView {
  return {
    providers: [{ name: 'local', kind: 'openai', preset: 'custom', baseUrl: 'http://127.0.0.1:9/v1', model: 'test-model', apiKeySet: false }],
    defaultProvider: 'local',
    mode: 'default',
    rules: [],
    notifications: true,
    theme: 'system',
    language: 'en',
    restrictToWorkspace: true,
    execTimeoutSeconds: 120,
    lastWorkspace: '/home/me/project',
    mcpServers: [],
    agents: [],
    ...over,
  };
}

export function mcpServer(over: Partial<MCPServerView> = {}): MCPServerView {
  return {
    config: { name: 'files', type: 'stdio', command: 'fake-mcp', args: ['--root', '/tmp'] },
    state: { name: 'files', type: 'stdio', status: 'connected', detail: 'connected over stdio', since: '2026-11-30T09:00:00Z' },
    tools: ['mcp__files__read', 'mcp__files__list'],
    ...over,
  };
}

export function capability(name: string, over: Partial<CapabilityView> = {}): CapabilityView {
  return {
    id: `local__${name}`,
    kind: 'tool',
    name,
    title: name,
    summary: `${name} does its job.`,
    source: 'builtin',
    risk: 'low',
    readOnly: true,
    indexTokens: 20,
    fullTokens: 200,
    tier: 2,
    state: 'visible',
    reason: 'always visible: a local read-only tool',
    ...over,
  };
}

export function mcpCapability(server: string, tool: string, over: Partial<CapabilityView> = {}): CapabilityView {
  const name = `mcp__${server}__${tool}`;
  return capability(name, {
    id: name,
    title: tool,
    source: `mcp:${server}`,
    server,
    risk: 'medium',
    readOnly: false,
    tier: 0,
    state: 'deferred',
    reason: 'deferred to the index: deferral is always on',
    ...over,
  });
}

export function capabilityList(items: CapabilityView[], over: Partial<CapabilityList> = {}): CapabilityList {
  return { items, deferring: true, deferReason: 'deferral is always on', toolTokens: 2100, indexTokens: 60, version: 3, ...over };
}

/** searchChange is the change a ToolSearch for "pull request" makes. */
export function searchChange(seq: number): UIMessage {
  return {
    seq,
    kind: 'capabilities',
    time: '2026-11-30T09:00:04Z',
    capabilities: {
      added: ['mcp__github__create_pull_request', 'mcp__github__list_pull_requests'],
      reasons: ['found by ToolSearch "pull request"'],
      items: [
        { id: 'mcp__github__create_pull_request', name: 'mcp__github__create_pull_request', kind: 'tool', change: 'changed', from: 'deferred', to: 'visible', reason: 'found by ToolSearch "pull request"' },
        { id: 'mcp__github__list_pull_requests', name: 'mcp__github__list_pull_requests', kind: 'tool', change: 'changed', from: 'deferred', to: 'visible', reason: 'found by ToolSearch "pull request"' },
      ],
      visible: 12,
      deferred: 150,
      deferReason: 'deferral is always on',
    },
  };
}

/** baselineChange is a session's first set. */
export function baselineChange(seq: number): UIMessage {
  return {
    seq,
    kind: 'capabilities',
    time: '2026-11-30T09:00:01Z',
    capabilities: {
      baseline: true,
      added: ['Read'],
      reasons: ['always visible: a local read-only tool', 'deferred to the index'],
      items: [
        { id: 'local__Read', name: 'Read', kind: 'tool', change: 'added', to: 'visible', reason: 'always visible: a local read-only tool' },
        { id: 'mcp__github__get_me', name: 'mcp__github__get_me', kind: 'tool', change: 'added', to: 'deferred', reason: 'deferred to the index' },
      ],
      visible: 1,
      deferred: 1,
    },
  };
}
