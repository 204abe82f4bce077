// The one module that talks to the TinyElf backend. In the desktop window the
// Go App is bound by Wails at window.go.main.App and events arrive as Wails
// runtime events; in a browser (`tinyelf serve`) the same calls go over HTTP
// (POST /api/call/NAME) and events over server-sent events (GET /api/events).
// Stores call these functions; components never touch the transport.
import type {
  Agent,
  AgentView,
  AppState,
  CapabilitiesArgs,
  CapabilityList,
  CapabilitySearchArgs,
  CapabilitySearchResult,
  Attachment,
  AttachmentData,
  BackendEvent,
  CommandList,
  ModelList,
  NotificationSettings,
  NotifyTestResult,
  Detected,
  ErrorCode,
  Exported,
  FolderListing,
  HubSearchResult,
  ImportReport,
  InstalledSkill,
  MCPServerConfig,
  MCPServerView,
  MCPTestReport,
  PermissionMode,
  PreferencesArgs,
  Preset,
  PromptCommand,
  Provider,
  Rule,
  SearchHit,
  Session,
  SessionView,
  SettingsView,
  SkillDetail,
  SkillList,
  SubagentRun,
  TestResult,
  SaveWebArgs,
  WebSearchTestResult,
  WebSettingsView,
  ToolPermissions,
  ToolTask,
  FolderOpened,
  UserToolListing,
  HookList,
  HooksConfig,
} from './types';
import { errorMessage } from './util';

/** WailsApp mirrors the exported methods of the Go App type in app.go. */
export interface WailsApp {
  Version(): Promise<string>;
  Call?(method: string, args: string): Promise<string>;
  PickFolder?(title: string, start: string): Promise<string>;
  SaveFile?(filename: string, content: string): Promise<string>;
  GuardClose?(): Promise<void>;
  ConfirmClose?(): Promise<void>;
  Ready?(): Promise<void>;
}

/** WailsRuntime is the part of the Wails JS runtime TinyElf uses. */
export interface WailsRuntime {
  EventsOn(name: string, cb: (data: unknown) => void): () => void;
  BrowserOpenURL?(url: string): void;
  WindowSetTitle?(title: string): void;
}

declare global {
  interface Window {
    go?: { main?: { App?: WailsApp } };
    runtime?: WailsRuntime;
  }
}

/** Transport names how this page reaches the backend. */
export type Transport = 'wails' | 'http';

/** transport reports whether the page runs inside the desktop window. */
export function transport(): Transport {
  return wailsApp() ? 'wails' : 'http';
}

function wailsApp(): WailsApp | undefined {
  return typeof window === 'undefined' ? undefined : window.go?.main?.App;
}

/** ApiError is a failed call: a code the UI can act on and a readable message. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
  }
}

export { errorMessage } from './util';

/** isBusy reports whether err says the session is still running a turn. */
export function isBusy(err: unknown): boolean {
  return err instanceof ApiError && err.code === 'busy';
}

/** parseWailsError turns a rejected Call's value into an ApiError. */
export function parseWailsError(err: unknown): ApiError {
  const text = err instanceof Error ? err.message : String(err);
  try {
    const body: unknown = JSON.parse(text);
    if (body && typeof body === 'object' && 'code' in body && 'message' in body) {
      return new ApiError(String(body.code) as ErrorCode, String(body.message));
    }
  } catch {
    // not JSON: fall through
  }
  return new ApiError('internal', text);
}

/**
 * call runs one backend method with JSON arguments and resolves to its
 * result; it rejects with an ApiError.
 */
export async function call<T>(method: string, args: object = {}): Promise<T> {
  const app = wailsApp();
  if (app?.Call) {
    let raw: string;
    try {
      raw = await app.Call(method, JSON.stringify(args));
    } catch (err) {
      throw parseWailsError(err);
    }
    return (raw === '' ? undefined : JSON.parse(raw)) as T;
  }
  let res: Response;
  try {
    res = await fetch(`/api/call/${method}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...authHeaders() },
      body: JSON.stringify(args),
      credentials: 'same-origin',
    });
  } catch (err) {
    throw new ApiError('network', errorMessage(err));
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new ApiError(res.ok ? 'internal' : httpCode(res.status), `${res.status} ${res.statusText}`);
  }
  if (!res.ok || !body || typeof body !== 'object') {
    const e = body && typeof body === 'object' && 'error' in body ? (body.error as { code?: string; message?: string }) : {};
    throw new ApiError((e.code as ErrorCode) ?? httpCode(res.status), e.message ?? `${res.status} ${res.statusText}`);
  }
  return (body as { result: T }).result;
}

function httpCode(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'invalid';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'busy';
  }
  return 'internal';
}

/** authToken is the token `tinyelf serve` printed in the page's URL, if any. */
function authToken(): string | null {
  return typeof window === 'undefined' ? null : new URLSearchParams(window.location.search).get('token');
}

/**
 * authHeaders carries the token that `tinyelf serve` prints in its URL
 * (?token=...) on every HTTP call; the cookie the page load set does too.
 */
function authHeaders(): Record<string, string> {
  const token = authToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** unknownVersion is what version() returns when the backend cannot say. */
export const unknownVersion = '';

/**
 * version returns the backend's version string, or unknownVersion when the
 * backend is unreachable; it never throws.
 */
export async function version(): Promise<string> {
  try {
    const app = wailsApp();
    if (app) {
      return await app.Version();
    }
    const res = await fetch('/api/version', { headers: authHeaders() });
    if (!res.ok) {
      return unknownVersion;
    }
    const body: unknown = await res.json();
    if (body && typeof body === 'object' && 'version' in body && typeof body.version === 'string') {
      return body.version;
    }
    return unknownVersion;
  } catch {
    return unknownVersion;
  }
}

/** EventHandlers receive the backend's events. */
export interface EventHandlers {
  onEvent(ev: BackendEvent): void;
  /** onReconnect runs when the stream came back after a break: reload what you show. */
  onReconnect?(): void;
  /** onConnection reports whether the event stream is up. */
  onConnection?(connected: boolean): void;
}

/** subscribe delivers backend events until the returned function is called. */
export function subscribe(h: EventHandlers): () => void {
  if (typeof window === 'undefined') {
    return () => {};
  }
  if (wailsApp()) {
    const rt = window.runtime;
    if (!rt?.EventsOn) {
      return () => {};
    }
    h.onConnection?.(true);
    const off = rt.EventsOn('tinyelf:event', (data) => {
      const ev = typeof data === 'string' ? (JSON.parse(data) as BackendEvent) : (data as BackendEvent);
      h.onEvent(ev);
    });
    return typeof off === 'function' ? off : () => {};
  }
  if (typeof EventSource === 'undefined') {
    return () => {};
  }
  const token = authToken();
  const src = new EventSource(token ? `/api/events?token=${encodeURIComponent(token)}` : '/api/events');
  let broken = false;
  src.onopen = () => {
    h.onConnection?.(true);
    if (broken) {
      broken = false;
      h.onReconnect?.();
    }
  };
  src.onerror = () => {
    broken = true;
    h.onConnection?.(false);
  };
  src.onmessage = (msg: MessageEvent<string>) => {
    try {
      h.onEvent(JSON.parse(msg.data) as BackendEvent);
    } catch {
      // a malformed event is dropped; the next reload repairs the view
    }
  };
  return () => src.close();
}

/** canPickFolderNatively reports whether a native folder dialog exists (the window). */
export function canPickFolderNatively(): boolean {
  return Boolean(wailsApp()?.PickFolder);
}

/** pickFolder shows the native folder dialog; "" when cancelled. */
export async function pickFolder(title: string, start: string): Promise<string> {
  const app = wailsApp();
  if (!app?.PickFolder) {
    throw new ApiError('invalid', 'no native folder dialog here');
  }
  try {
    return await app.PickFolder(title, start);
  } catch (err) {
    throw parseWailsError(err);
  }
}

/**
 * saveFile saves text under a file name: with the native save dialog in the
 * window (resolves to the path, "" when cancelled), as a download in a browser
 * (resolves to the file name).
 */
export async function saveFile(file: Exported): Promise<string> {
  const app = wailsApp();
  if (app?.SaveFile) {
    try {
      return await app.SaveFile(file.filename, file.content);
    } catch (err) {
      throw parseWailsError(err);
    }
  }
  const url = URL.createObjectURL(new Blob([file.content], { type: file.mimeType }));
  const a = document.createElement('a');
  a.href = url;
  a.download = file.filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return file.filename;
}

/** setWindowTitle names the window (the desktop's title bar) or the browser tab. */
export function setWindowTitle(title: string): void {
  if (typeof document !== 'undefined') {
    document.title = title;
  }
  const rt = typeof window === 'undefined' ? undefined : window.runtime;
  if (wailsApp() && rt?.WindowSetTitle) {
    rt.WindowSetTitle(title);
  }
}

/**
 * guardClose asks to be told before the window closes while tasks run; the
 * handler gets their titles and answers with confirmClose. In a browser,
 * the page's beforeunload asks instead (the browser's own question).
 */
export function guardClose(onRequest: (running: string[]) => void, running: () => boolean): () => void {
  if (typeof window === 'undefined') {
    return () => {};
  }
  const app = wailsApp();
  if (app) {
    const rt = window.runtime;
    const off = rt?.EventsOn?.('tinyelf:close-requested', (data) => onRequest(Array.isArray(data) ? data.map(String) : []));
    void app.GuardClose?.().catch(() => undefined);
    return typeof off === 'function' ? off : () => {};
  }
  const onUnload = (event: BeforeUnloadEvent) => {
    if (running()) {
      event.preventDefault();
      event.returnValue = '';
    }
  };
  window.addEventListener('beforeunload', onUnload);
  return () => window.removeEventListener('beforeunload', onUnload);
}

/** confirmClose closes the window although tasks run (the user said so). */
export async function confirmClose(): Promise<void> {
  await wailsApp()?.ConfirmClose?.();
}

/** windowReady tells the window that the page takes input (launch timing). */
export function windowReady(): void {
  void wailsApp()?.Ready?.()?.catch(() => undefined);
}

/** openExternal opens a link outside the app (the system browser, or a new tab). */
export function openExternal(url: string): void {
  const rt = typeof window === 'undefined' ? undefined : window.runtime;
  if (wailsApp() && rt?.BrowserOpenURL) {
    rt.BrowserOpenURL(url);
    return;
  }
  window.open(url, '_blank', 'noopener,noreferrer');
}

// Typed wrappers, one per backend method (backend/api/methods.go).

export const getState = () => call<AppState>('State');
export const dismissSettingsNotice = () => call<object>('DismissSettingsNotice');
export const listSessions = (limit = 500) => call<Session[]>('ListSessions', { limit });
export const getSession = (id: string) => call<SessionView>('GetSession', { id });
export const createSession = (
  workspace: string,
  mode?: PermissionMode,
  model?: { provider: string; model: string } | null,
  agent?: string,
) =>
  call<Session>('CreateSession', {
    workspace,
    mode,
    provider: model?.provider || undefined,
    model: model?.model || undefined,
    agent: agent || undefined,
  });
export const sendMessage = (sessionId: string, text: string, attachments?: Attachment[]) =>
  call<object>('SendMessage', { sessionId, text, attachments: attachments?.length ? attachments : undefined });
export const addAttachment = (args: { sessionId?: string; workspace?: string; name: string; mime?: string; data: string }) =>
  call<Attachment>('AddAttachment', args);
export const getAttachment = (id: string, mime?: string) => call<AttachmentData>('GetAttachment', { id, mime });
export const retryTurn = (sessionId: string) => call<object>('RetryTurn', { sessionId });
export const continueTurn = (sessionId: string) => call<object>('ContinueTurn', { sessionId });
export const regenerate = (sessionId: string) => call<Session>('Regenerate', { sessionId });
export const listModels = (args: { sessionId?: string; agent?: string; refresh?: boolean }) => call<ModelList>('ListModels', args);
export const setModel = (sessionId: string, provider: string, model: string) =>
  call<Session>('SetModel', { sessionId, provider, model });
export const recentFolders = () => call<string[]>('RecentFolders');
export const runningTasks = () => call<string[]>('RunningTasks');
export const getNotificationSettings = () => call<NotificationSettings>('GetNotificationSettings');
export const saveNotificationSettings = (s: NotificationSettings) => call<NotificationSettings>('SaveNotificationSettings', s);
export const testNotification = () => call<NotifyTestResult>('TestNotification');
/** expandCommand checks a slash command (and what it expands to) without sending it. */
export const expandCommand = (text: string) => call<{ text: string }>('ExpandCommand', { text });
export const cancel = (sessionId: string) => call<object>('Cancel', { sessionId });

/** Decision is an answer to an approval request. */
export type Decision = 'allow_once' | 'allow_always' | 'deny' | 'cancel';
export const approve = (sessionId: string, callId: string, decision: Decision, reason?: string, content?: Record<string, unknown>) =>
  call<object>('Approve', { sessionId, callId, decision, reason: reason || undefined, content });
export const setMode = (sessionId: string, mode: PermissionMode) => call<Session>('SetMode', { sessionId, mode });
export const renameSession = (id: string, title: string) => call<Session>('RenameSession', { id, title });
export const deleteSession = (id: string) => call<object>('DeleteSession', { id });
export const restoreSession = (id: string) => call<Session>('RestoreSession', { id });
export const forkSession = (id: string, atSeq: number) => call<Session>('ForkSession', { id, atSeq });
export const resendEdited = (sessionId: string, seq: number, text: string) =>
  call<Session>('ResendEdited', { sessionId, seq, text });
export const exportSession = (id: string, format: 'markdown' | 'json') =>
  call<Exported>('ExportSession', { id, format });
export const importSession = (content: string) => call<Session>('ImportSession', { content });
export const search = (query: string, limit = 30) => call<SearchHit[]>('Search', { query, limit });

export const getSettings = () => call<SettingsView>('GetSettings');
export const saveProvider = (args: { provider: Provider; clearKey?: boolean; rename?: string; makeDefault?: boolean }) =>
  call<SettingsView>('SaveProvider', args);
export const deleteProvider = (name: string) => call<SettingsView>('DeleteProvider', { name });
export const testProvider = (args: { name?: string; provider?: Provider }) => call<TestResult>('TestProvider', args);
export const presets = () => call<Preset[]>('Presets');
export const detectLocal = () => call<Detected[]>('DetectLocal');
export const updatePreferences = (args: PreferencesArgs) => call<SettingsView>('UpdatePreferences', args);
export const listRules = () => call<Rule[]>('ListRules');
export const addRule = (rule: { tool: string; pattern?: string; action: 'allow' | 'deny' }) => call<Rule>('AddRule', rule);
export const removeRule = (id: string) => call<object>('RemoveRule', { id });
export const setFocused = (focused: boolean) => call<object>('SetFocused', { focused });
export const listFolders = (path: string, showHidden = false, nearest = false) =>
  call<FolderListing>('ListFolders', { path, showHidden: showHidden || undefined, nearest: nearest || undefined });

export const listMCPServers = () => call<MCPServerView[]>('ListMCPServers');
export const saveMCPServer = (server: MCPServerConfig, rename?: string) =>
  call<MCPServerView[]>('SaveMCPServer', { server, rename: rename || undefined });
export const removeMCPServer = (name: string) => call<MCPServerView[]>('RemoveMCPServer', { name });
export const setMCPServerEnabled = (name: string, enabled: boolean) =>
  call<MCPServerView[]>('SetMCPServerEnabled', { name, enabled });
export const restartMCPServer = (name: string) => call<MCPServerView[]>('RestartMCPServer', { name });
/** signInMCPServer starts a server's OAuth sign-in and returns the address to open. */
export const signInMCPServer = (name: string) => call<{ url: string }>('SignInMCPServer', { name });
export const signOutMCPServer = (name: string) => call<MCPServerView[]>('SignOutMCPServer', { name });
export const importMCPConfig = (content: string) =>
  call<{ report: ImportReport; servers: MCPServerView[] }>('ImportMCPConfig', { content });
export const testMCPServer = (args: { name?: string; server?: MCPServerConfig }) =>
  call<MCPTestReport>('TestMCPServer', args);
export const listMCPPrompts = () => call<PromptCommand[]>('ListMCPPrompts');

export const listCommands = (args: { sessionId?: string; workspace?: string }) =>
  call<CommandList>('ListCommands', args);

/** SkillScope names the workspace whose skills a call concerns. */
export type SkillScope = { workspace?: string; sessionId?: string };
export const listSkills = (scope: SkillScope) => call<SkillList>('ListSkills', scope);
export const getSkill = (scope: SkillScope, name: string, location?: string) =>
  call<SkillDetail>('GetSkill', { ...scope, name, location: location || undefined });
export const setSkillTrust = (scope: SkillScope, name: string, trust: 'trusted' | 'denied' | 'untrusted') =>
  call<SkillList>('SetSkillTrust', { ...scope, name, trust });
export const searchSkillHub = (query: string, limit?: number) => call<HubSearchResult>('SearchSkillHub', { query, limit });
export const installSkill = (id: string) => call<InstalledSkill>('InstallSkill', { id });
export const removeSkill = (name: string) => call<object>('RemoveSkill', { name });
export const getSkillSettings = () => call<{ hubIndexes: string[] }>('GetSkillSettings');
export const saveSkillSettings = (hubIndexes: string[]) => call<{ hubIndexes: string[] }>('SaveSkillSettings', { hubIndexes });
export const openSkillFolder = (scope: SkillScope, name: string, location?: string) =>
  call<object>('OpenSkillFolder', { ...scope, name, location: location || undefined });

export const listHooks = (scope: SkillScope) => call<HookList>('ListHooks', scope);
export const saveHooks = (scope: SkillScope, hooks: HooksConfig) => call<HookList>('SaveHooks', { ...scope, hooks });
export const setHooksTrust = (scope: SkillScope, trust: 'trusted' | 'denied' | 'untrusted') =>
  call<HookList>('SetHooksTrust', { ...scope, trust });

export const getWebSettings = () => call<WebSettingsView>('GetWebSettings');
export const saveWebSettings = (args: SaveWebArgs) => call<WebSettingsView>('SaveWebSettings', args);
export const testWebSearch = (provider?: string) =>
  call<WebSearchTestResult>('TestWebSearch', { provider: provider || undefined });

export const listUserTools = (agent: string) => call<UserToolListing>('ListUserTools', { agent });
export const refreshUserTools = (agent: string) => call<UserToolListing>('RefreshUserTools', { agent });
export const shareUserTool = (agent: string, name: string, overwrite = false) =>
  call<{ message: string }>('ShareUserTool', { agent, name, overwrite });
export const saveToolPermissions = (agent: string, permissions: ToolPermissions) =>
  call<UserToolListing>('SaveToolPermissions', { agent, permissions });
export const setToolSecret = (name: string, value: string) => call<object>('SetToolSecret', { name, value });
export const listToolTasks = (agent: string) => call<ToolTask[]>('ListToolTasks', { agent });
export const openToolsFolder = (agent: string, which: 'personal' | 'common') =>
  call<FolderOpened>('OpenToolsFolder', { agent, which });

export const listCapabilities = (args: CapabilitiesArgs = {}) => call<CapabilityList>('ListCapabilities', compact(args));
export const searchCapabilities = (args: CapabilitySearchArgs) =>
  call<CapabilitySearchResult>('SearchCapabilities', compact(args));

/** compact drops empty optional arguments, so the backend sees its defaults. */
function compact<T extends object>(args: T): Partial<T> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined && v !== '' && v !== false)) as Partial<T>;
}

export const listAgents = () => call<AgentView[]>('ListAgents');
export const saveAgent = (agent: Agent, rename?: string) => call<AgentView[]>('SaveAgent', { agent, rename: rename || undefined });
export const deleteAgent = (name: string) => call<AgentView[]>('DeleteAgent', { name });
export const listSubagents = (sessionId: string) => call<SubagentRun[]>('ListSubagents', { sessionId });
