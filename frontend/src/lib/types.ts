// The backend's JSON shapes, as backend/api, backend/sessions, backend/config,
// backend/mcp and backend/llm marshal them. Optional fields are the ones the
// Go side marks omitempty.

/** PermissionMode is how much the agent may do without asking. */
export type PermissionMode = 'plan' | 'default' | 'acceptEdits' | 'auto';

/** permissionModes lists the modes in order of increasing autonomy. */
export const permissionModes: readonly PermissionMode[] = ['plan', 'default', 'acceptEdits', 'auto'];

/** ErrorCode is what a failed call's error says about its cause. */
export type ErrorCode = 'invalid' | 'not_found' | 'busy' | 'internal' | 'unauthorized' | 'forbidden' | 'network';

/** SettingsNotice says the settings file could not be read and was set aside. */
export interface SettingsNotice {
  /** path is the settings file. */
  path: string;
  /** aside is where the unreadable file was kept. */
  aside: string;
  /** error says why it could not be read. */
  error: string;
}

/** AppState is State(): what the first screen needs. */
export interface AppState {
  version: string;
  dataDir: string;
  hasProvider: boolean;
  warnings: string[] | null;
  home: string;
  /** defaultWorkspace is the folder a new chat works in when none was chosen (made on first use). */
  defaultWorkspace?: string;
  /** settingsNotice is set until the user dismisses it (DismissSettingsNotice). */
  settingsNotice?: SettingsNotice;
}

/** UsageTotals sums a session's usage events. */
export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  costUsd?: number;
}

/** Usage is one model call's tokens and cost. */
export interface Usage {
  model?: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  costUsd?: number;
}

/** Session is one row of the session list. */
export interface Session {
  id: string;
  title: string;
  renamed: boolean;
  workspace: string;
  agent?: string;
  mode: PermissionMode;
  provider?: string;
  model?: string;
  createdAt: string;
  updatedAt: string;
  deletedAt?: string;
  lastSeq: number;
  messageCount: number;
  usage: UsageTotals;
  forkedFrom?: string;
  forkedAtSeq?: number;
  /** parentId and parentCallId link a subagent's session to the session (and its spawn_agent call) that started it. */
  parentId?: string;
  parentCallId?: string;
  inherited?: string[];
  background?: boolean;
  /** branch marks an edit-and-resend branch: another version of its parent's conversation. */
  branch?: boolean;
  /** running and pending come with ListSessions: what the engine is doing in the session now. */
  running?: boolean;
  pending?: string[];
  /** versions (root first) and open come with ListSessions for a conversation with branches: open is the version to show. */
  versions?: string[];
  open?: string;
}

/** BranchVersion is one version of an edited message: the session that shows it, and its seq there. */
export interface BranchVersion {
  session: string;
  seq: number;
}

/** BranchPoint is a user message that exists in several versions; index is the one shown. */
export interface BranchPoint {
  seq: number;
  index: number;
  versions: BranchVersion[];
}

/** ConversationView is the conversation a session with branches belongs to. */
export interface ConversationView {
  root: string;
  title: string;
  sessions: string[];
  points: BranchPoint[];
}

/** UIKind says what a history item shows. */
export type UIKind = 'user' | 'assistant' | 'tool' | 'approval' | 'error' | 'compaction' | 'capabilities' | 'loaded' | 'model' | 'hook';

/** ToolStatus is where a tool call stands. */
export type ToolStatus = 'pending' | 'awaiting_approval' | 'denied' | 'done' | 'error';

/** ToolCallRecord is a tool call as the model made it. */
export interface ToolCallRecord {
  id: string;
  name: string;
  arguments: string;
}

/** ToolCallView is a tool call with what became of it. */
export interface ToolCallView {
  callId: string;
  name: string;
  arguments: string;
  status: ToolStatus;
  decision?: string;
  decidedBy?: string;
  /** reason is given with the decision: the user's, or why a rule, the mode or the shell guard refused. */
  reason?: string;
  result?: string;
  isError?: boolean;
  truncated?: boolean;
  meta?: Record<string, unknown>;
  durationMs?: number;
  resultSeq?: number;
  /** hooks are the user's hooks that ran for the call, in order. */
  hooks?: HookRun[];
}

/**
 * HookRun is one run of a user hook (a hook.run event): which hook, at
 * which event, how it ended and what it decided.
 */
export interface HookRun {
  event: string;
  /** callId and tool: the call a tool event's hook ran for. */
  callId?: string;
  tool?: string;
  /** detail is what a session event matched on (SessionStart's source...). */
  detail?: string;
  command: string;
  /** source is the settings file the hook is written in ("settings", ".claude/settings.json"). */
  source?: string;
  matcher?: string;
  durationMs: number;
  /** exitCode is -1 when the hook did not exit by itself. */
  exitCode: number;
  timedOut?: boolean;
  /** decision is "allow", "deny", "ask", "block" or "". */
  decision?: string;
  reason?: string;
  stop?: boolean;
  stopReason?: string;
  /** output is the first lines of what it printed. */
  output?: string;
  /** problem says what went wrong with the hook itself (reported, never obeyed). */
  problem?: string;
  /** message is its systemMessage, for the user. */
  message?: string;
  /** input is the arguments it replaced the call's with (JSON). */
  input?: string;
  /** context is what the model reads from it. */
  context?: string;
  /** prompt is the user's message a UserPromptSubmit hook refused. */
  prompt?: string;
}

/** ApprovalView is a question put to the user and, once given, the answer. */
export interface ApprovalView {
  callId: string;
  name: string;
  arguments: string;
  warnings?: string[];
  /** The rule(s) "allow always" saves, in Claude Code's notation (older sessions: a bare Bash prefix). */
  suggestion?: string;
  /** The shell guard could not check the command: asked in every mode, never covered by a rule. */
  held?: boolean;
  /** Why the call can only be allowed once (no rule can allow it); "allow always" is then not offered. */
  onceOnly?: string;
  /** kind is '' for a call's permission, 'skill_trust' for a project skill's trust, 'hooks_trust' for a folder's project hooks, 'elicitation' or 'sampling' for an MCP server's request. */
  kind?: string;
  /** question is what a skill_trust card asks (an elicitation's message); skill names the skill. */
  question?: string;
  skill?: string;
  /** server is the MCP server of an elicitation or sampling card; schema an elicitation's form, url the page it opens; maxTokens a sampling request's limit. */
  server?: string;
  schema?: ElicitationSchema;
  url?: string;
  maxTokens?: number;
  decision?: string;
  reason?: string;
  rule?: string;
  by?: string;
  answeredSeq?: number;
}

/** ElicitationSchema is the form an MCP server asks to be filled: a flat object of primitive fields. */
export interface ElicitationSchema {
  type: 'object';
  properties?: Record<string, ElicitationField>;
  required?: string[];
}

/** ElicitationField is one field of an elicitation form. */
export interface ElicitationField {
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  title?: string;
  description?: string;
  default?: unknown;
  enum?: string[];
  enumNames?: string[];
  oneOf?: { const: string; title?: string }[];
  format?: string;
  minimum?: number;
  maximum?: number;
  items?: { enum?: string[]; anyOf?: { const: string; title?: string }[] };
}

/** Compaction replaced the history before upToSeq with a summary. */
export interface Compaction {
  summary: string;
  upToSeq: number;
  tokensBefore: number;
  tokensAfter: number;
}

/** UIMessage is one item of a session's history. */
export interface UIMessage {
  seq: number;
  kind: UIKind;
  time: string;
  text?: string;
  /** attachments are a user message's files. */
  attachments?: Attachment[];
  /** provider and model: an answer's model, or what a model change switched to. */
  provider?: string;
  model?: string;
  stopReason?: string;
  partial?: boolean;
  toolCalls?: ToolCallRecord[];
  usage?: Usage;
  errorKind?: string;
  tool?: ToolCallView;
  approval?: ApprovalView;
  compaction?: Compaction;
  capabilities?: CapabilityChange;
  loaded?: CapabilityLoaded;
  /** hook is a hook run that belongs to no tool call (kind 'hook'). */
  hook?: HookRun;
}

/** CapabilityKind says what sort of capability a descriptor is. */
export type CapabilityKind = 'tool' | 'skill' | 'resource' | 'prompt' | 'channel';

/** capabilityKinds lists the kinds in the order the UI offers them. */
export const capabilityKinds: readonly CapabilityKind[] = ['tool', 'skill', 'resource', 'prompt', 'channel'];

/** CapabilityState is a capability's standing in one visible set. */
export type CapabilityState = 'visible' | 'deferred' | 'hidden' | 'available';

/** capabilityStates lists the states in the order the UI offers them. */
export const capabilityStates: readonly CapabilityState[] = ['visible', 'deferred', 'hidden', 'available'];

/** Risk grades what a capability can do if misused. */
export type Risk = 'low' | 'medium' | 'high';

/** CapabilityItem is one capability whose standing changed (a capability.diff item). */
export interface CapabilityItem {
  id: string;
  name: string;
  kind: CapabilityKind | string;
  change: 'added' | 'removed' | 'changed';
  from?: CapabilityState | '';
  to?: CapabilityState | '';
  reason: string;
  hash?: string;
}

/** CapabilityChange is a capability.diff as the chat shows it (sessions.CapabilityChange). */
export interface CapabilityChange {
  /** baseline marks the session's first set, shown only on demand. */
  baseline?: boolean;
  /** rebuilt marks a set computed afresh when the session was reopened. */
  rebuilt?: boolean;
  added?: string[];
  removed?: string[];
  reasons?: string[];
  items: CapabilityItem[];
  visible: number;
  deferred: number;
  deferReason?: string;
}

/** CapabilityLoaded is a skill or resource loaded into the conversation. */
export interface CapabilityLoaded {
  id: string;
  kind: string;
  name: string;
  source?: string;
  callId?: string;
}

/** CapabilityView is one catalog entry with its state (api.CapabilityView). */
export interface CapabilityView {
  id: string;
  kind: CapabilityKind;
  name: string;
  title: string;
  summary: string;
  description?: string;
  source: string;
  server?: string;
  risk: Risk;
  readOnly: boolean;
  safe?: boolean;
  params?: string[];
  indexTokens: number;
  fullTokens: number;
  problem?: string;
  tier: number;
  keywords?: string[];
  state: CapabilityState;
  reason: string;
}

/** Shadowed is a capability left out because another source took its name. */
export interface Shadowed {
  id: string;
  name: string;
  source: string;
  by: string;
}

/** CapabilityList is ListCapabilities(): the catalog with the policy's verdicts. */
export interface CapabilityList {
  items: CapabilityView[];
  deferring: boolean;
  deferReason: string;
  toolTokens: number;
  indexTokens: number;
  shadowed?: Shadowed[];
  version: number;
}

/** CapabilitiesArgs selects what ListCapabilities shows. */
export interface CapabilitiesArgs {
  sessionId?: string;
  kind?: CapabilityKind | '';
  mode?: PermissionMode | '';
}

/** CapabilitySearchArgs is a ToolSearch from the UI. */
export interface CapabilitySearchArgs {
  query: string;
  kind?: CapabilityKind | '';
  limit?: number;
  regex?: boolean;
  mode?: PermissionMode | '';
  sessionId?: string;
}

/** CapabilityHit is one search hit, as the model reads it too. */
export interface CapabilityHit {
  id: string;
  name: string;
  kind: CapabilityKind;
  source: string;
  risk: Risk;
  summary: string;
  why: string;
  use: string;
  state: CapabilityState;
  tokens: number;
}

/** CapabilitySearchResult is SearchCapabilities(). */
export interface CapabilitySearchResult {
  query: string;
  items: CapabilityHit[] | null;
  note?: string;
}

/** DeferMode says when tools are deferred to the index. */
export type DeferMode = 'auto' | 'always' | 'never';

/** Discovery is the tool-deferral setting (config.Discovery); threshold is a share of the window. */
export interface Discovery {
  defer: DeferMode | '';
  threshold: number;
}

/** SessionView is GetSession(): a session with its history. */
export interface SessionView {
  session: Session;
  messages: UIMessage[];
  running: boolean;
  pending: string[] | null;
  contextWindow: number;
  contextUsed: number;
  /** toolTokens and indexTokens are what the last model call's tool definitions and index took. */
  toolTokens?: number;
  indexTokens?: number;
  toolsSent?: number;
  toolsDeferred?: number;
  /** conversation is set when the session is one version of a conversation with branches. */
  conversation?: ConversationView;
}

/** Exported is a session rendered for saving. */
export interface Exported {
  filename: string;
  mimeType: string;
  content: string;
}

/** SearchHit is one full-text match; snippet is escaped HTML with <mark>. */
export interface SearchHit {
  sessionId: string;
  sessionTitle: string;
  seq: number;
  role: string;
  time: string;
  snippet: string;
}

/** Provider is one model connection as the settings store it. */
export interface Provider {
  name: string;
  kind: string;
  preset?: string;
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  contextWindow?: number;
}

/** ProviderView is a provider without its key. */
export interface ProviderView extends Provider {
  apiKeySet: boolean;
  apiKeyHint?: string;
  fromEnv?: boolean;
}

/** Rule allows or denies a tool without asking. */
export interface Rule {
  id: string;
  tool: string;
  pattern?: string;
  action: 'allow' | 'deny';
  createdAt: string;
}

/** MCPServerConfig is an MCP server's configuration. */
export interface MCPServerConfig {
  name: string;
  type?: 'stdio' | 'http' | 'sse' | '';
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  disabled?: boolean;
  timeoutSeconds?: number;
  oauth?: MCPOAuthConfig;
}

/** MCPOAuthConfig is an http/sse server's OAuth client settings (the secret arrives masked). */
export interface MCPOAuthConfig {
  clientId?: string;
  clientSecret?: string;
  authMethod?: string;
  scopes?: string[];
  grant?: 'authorization_code' | 'client_credentials' | '';
}

/** MCPAuthState is an http/sse server's OAuth sign-in as its card shows it (never a token). */
export interface MCPAuthState {
  signedIn: boolean;
  account?: string;
  expiresAt?: string;
  refreshable?: boolean;
  scopes?: string[];
  grant: string;
  issuer?: string;
  problem?: string;
  required?: boolean;
  reason?: string;
}

/** MCPStatus is where an MCP server is in its life. */
export type MCPStatus = 'disabled' | 'starting' | 'connected' | 'restarting' | 'failed' | 'disconnected';

/** MCPServerState is the live state of one MCP server. */
export interface MCPServerState {
  name: string;
  type: string;
  status: MCPStatus | '';
  detail?: string;
  error?: string;
  stderr?: string[];
  retryAt?: string;
  attempt?: number;
  protocolVersion?: string;
  serverName?: string;
  serverVersion?: string;
  tools?: string[];
  prompts?: number;
  resources?: number;
  since: string;
  auth?: MCPAuthState;
}

/** MCPServerView is a configured server with its live state and tools. */
export interface MCPServerView {
  config: MCPServerConfig;
  state: MCPServerState;
  tools: string[];
}

/** MCPChange is the payload of an mcp.state event. */
export interface MCPChange {
  server: string;
  state: MCPServerState;
  added?: string[];
  removed?: string[];
  reason: string;
}

/** ImportReport says what an MCP config import did. */
export interface ImportReport {
  format: string;
  imported: { name: string; type: string; warnings?: string[] }[];
  skipped: { name: string; reason: string }[];
}

/** MCPTestReport is what TestMCPServer found. */
export interface MCPTestReport {
  state: MCPServerState;
  tools: { name: string; description: string; readOnly: boolean }[] | null;
  prompts?: PromptCommand[];
  resources: number;
  duration: number;
}

/** PromptCommand is an MCP prompt offered as a slash command. */
export interface PromptCommand {
  name: string;
  server: string;
  prompt: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
}

/** SettingsView is GetSettings(): the settings without secrets. */
export interface SettingsView {
  providers: ProviderView[];
  defaultProvider: string;
  mode: PermissionMode;
  rules: Rule[];
  notifications: boolean;
  theme: Theme;
  language: '' | 'en' | 'ja';
  restrictToWorkspace: boolean;
  execTimeoutSeconds: number;
  lastWorkspace: string;
  mcpServers: MCPServerConfig[];
  agents: { name: string }[];
  discovery?: Discovery;
}

/** Agent is an agent profile (Settings → Agents). */
export interface Agent {
  name: string;
  description?: string;
  prompt?: string;
  allowedTools?: string[];
  permissionMode?: PermissionMode | '';
  compactAt?: number;
  maxIterations?: number;
  provider?: string;
  model?: string;
  backgroundProvider?: string;
  backgroundModel?: string;
  directMcpServers?: MCPServerConfig[];
}

/** AgentView is a profile as listed; the default one cannot be deleted or renamed. */
export interface AgentView extends Agent {
  default: boolean;
}

/** SubagentState is where a subagent run stands. */
export type SubagentState = 'running' | 'waiting_approval' | 'done' | 'max_iterations' | 'error' | 'cancelled';

/** SubagentRun is one subagent: its session, where it stands and, once ended, its answer. */
export interface SubagentRun {
  runId: string;
  sessionId: string;
  parentId?: string;
  callId?: string;
  agent: string;
  model?: string;
  mode?: PermissionMode;
  background: boolean;
  state: SubagentState;
  iterations: number;
  progress?: string;
  text?: string;
  error?: string;
  inherited?: string[];
  notGiven?: string[];
  visible?: string[];
  capabilityDiffs?: number;
  usage?: { inputTokens: number; outputTokens: number; costUsd?: number };
}

/** Theme is the colour scheme preference. */
export type Theme = 'system' | 'light' | 'dark';

/** ModelInfo is one model a provider lists. */
export interface ModelInfo {
  id: string;
  contextWindow?: number;
}

/** TestResult is the outcome of a provider connection test. */
export interface TestResult {
  ok: boolean;
  message: string;
  models: ModelInfo[];
}

/** Preset is a known provider. */
export interface Preset {
  name: string;
  displayName: string;
  kind: string;
  baseUrl: string;
  needsKey: boolean;
  keyEnv?: string;
  local?: boolean;
  models?: string[];
}

/** Detected is a local model server that answered. */
export interface Detected {
  preset: string;
  baseUrl: string;
  models: ModelInfo[] | null;
}

/** PreferencesArgs changes preferences; absent fields stay as they are. */
export interface PreferencesArgs {
  notifications?: boolean;
  theme?: Theme;
  language?: '' | 'en' | 'ja';
  restrictToWorkspace?: boolean;
  execTimeoutSeconds?: number;
  mode?: PermissionMode;
  defaultProvider?: string;
  discovery?: Discovery;
}

/** FolderListing is a folder and its sub-folders. */
export interface FolderListing {
  path: string;
  parent?: string;
  folders: string[];
  /** hidden counts the hidden folders left out. */
  hidden?: number;
}

/** AttachmentKind says how an attached file reaches the model. */
export type AttachmentKind = 'image' | 'text' | 'file';

/** Attachment is a file sent with a message (backend sessions.Attachment). */
export interface Attachment {
  id: string;
  name: string;
  mime?: string;
  size: number;
  kind: AttachmentKind;
  textId?: string;
  /** path is where a file too large to send was saved in the workspace. */
  path?: string;
  textPath?: string;
  pages?: number;
}

/** AttachmentData is an attachment's content (GetAttachment). */
export interface AttachmentData {
  mime: string;
  /** data is base64. */
  data: string;
}

/** ModelRef names a model of a provider. */
export interface ModelRef {
  provider: string;
  model: string;
}

/** ModelChoice is one model the picker offers. */
export interface ModelChoice extends ModelRef {
  contextWindow?: number;
  images: boolean;
  recent?: boolean;
  default?: boolean;
}

/** ModelList is what the model picker shows (ListModels). */
export interface ModelList {
  models: ModelChoice[];
  current: ModelRef;
  problems?: Record<string, string>;
}

/** NotificationSettings are the choices of Settings → Notifications. */
export interface NotificationSettings {
  enabled: boolean;
  turnFinished: boolean;
  approvalWaiting: boolean;
  backgroundDone: boolean;
  mcpFailed: boolean;
  sound: boolean;
  onlyUnfocused: boolean;
}

/** NotifyTestResult says whether the test notification went out. */
export interface NotifyTestResult {
  ok: boolean;
  message: string;
}

/** BackendEvent is one engine event as the window or SSE delivers it. */
export interface BackendEvent {
  sessionId: string;
  /** parentId and rootId are set on a subagent's events: who spawned it, and the top-level session above. */
  parentId?: string;
  rootId?: string;
  seq?: number;
  type: string;
  time: string;
  data: unknown;
}

/** WebProviderView is a search provider in Settings → Web (never its key). */
export interface WebProviderView {
  name: 'tavily' | 'brave' | 'jina' | 'searxng' | 'duckduckgo';
  needsKey: boolean;
  needsUrl: boolean;
  keyEnv?: string;
  keySet: boolean;
  keyHint?: string;
  keyFromEnv?: boolean;
  url: string;
  urlFromEnv?: boolean;
  disabled: boolean;
  ready: boolean;
}

/** WebSettingsView is Settings → Web; providers are in search order. */
export interface WebSettingsView {
  allowLocal: boolean;
  allowLocalFromEnv: boolean;
  nativeSearch: boolean;
  providers: WebProviderView[];
}

/** WebProviderEdit changes one provider; an empty apiKey keeps the saved one. */
export interface WebProviderEdit {
  apiKey?: string;
  clearKey?: boolean;
  url?: string;
  disabled?: boolean;
}

/** SaveWebArgs changes Settings → Web; absent fields stay as they are. */
export interface SaveWebArgs {
  allowLocal?: boolean;
  nativeSearch?: boolean;
  order?: string[];
  providers?: Record<string, WebProviderEdit>;
}

/** SearchAttempt is one thing a web search tried. */
export interface SearchAttempt {
  stage: string;
  provider: string;
  outcome: 'ineligible' | 'failed' | 'empty' | 'success';
  reason?: string;
  results?: number;
  durationMs?: number;
}

/** SearchResult is one web search hit. */
export interface SearchResult {
  title: string;
  url: string;
  snippet?: string;
  date?: string;
}

/** WebSearchTestResult is the outcome of Settings → Web's Test button. */
export interface WebSearchTestResult {
  ok: boolean;
  message: string;
  attempts: SearchAttempt[];
  results: SearchResult[];
}

/** UserToolProblem is a user tool that was skipped or failed to load. */
export interface UserToolProblem {
  tool: string;
  origin: 'common' | 'personal';
  path: string;
  message: string;
}

/** UserToolAction is one action ({tool}_{action}) of a user tool. */
export interface UserToolAction {
  schema: string;
  action: string;
  description: string;
  parameters: unknown;
  readOnly: boolean;
  asks: boolean;
  gated: boolean;
  allowed: boolean;
  background: boolean;
  expectedSeconds: number;
}

/**
 * UserToolCredential says where a credential a tool declares, or its code asks for by name
 * (get_credential), is found ('' when nowhere); never its value. env is its variable ('' for a
 * Settings credential only); credential and key name the Settings credential it is looked up as.
 */
export interface UserToolCredential {
  env: string;
  credential?: string;
  key?: string;
  code?: boolean;
  from: '' | 'agent' | 'settings' | 'vault' | 'shared_file' | 'environment';
  problems?: string[];
}

/** UserTool is one common or personal tool as Settings → Tools shows it. */
export interface UserTool {
  name: string;
  kind: 'python' | 'executable';
  origin: 'common' | 'personal';
  path: string;
  dir: string;
  description?: string;
  overrides?: boolean;
  hasCli: boolean;
  actions: UserToolAction[];
  credentials: UserToolCredential[];
  errors: string[];
  warnings: string[];
}

/** ToolPermissions is an agent's permissions.json. */
export interface ToolPermissions {
  version: number;
  tool_creation: { personal?: boolean; shared?: boolean };
  external_tools?: string[];
}

/** UserToolListing is an agent's user tools with its folders and permissions. */
export interface UserToolListing {
  agent: string;
  commonDir: string;
  personalDir: string;
  agentDir: string;
  scannedAt: string;
  tools: UserTool[];
  skipped: UserToolProblem[];
  problems: UserToolProblem[];
  permissions: ToolPermissions;
  permissionsError?: string;
  vaultNames: string[];
  vaultError?: string;
}

/** ToolTask is a background call of a user tool. */
export interface ToolTask {
  id: string;
  agent: string;
  tool: string;
  action: string;
  schema: string;
  state: 'running' | 'done' | 'failed' | 'interrupted';
  result?: string;
  isError?: boolean;
  created: string;
  finished?: string;
}

/** FolderOpened says which folder was meant and whether the desktop opened it. */
export interface FolderOpened {
  path: string;
  opened: boolean;
  error?: string;
}

/** SkillSource is where a skill comes from. */
export type SkillSource = 'user' | 'project' | 'builtin';

/** SkillStatus is a listed skill's state. */
export type SkillStatus = 'ready' | 'untrusted' | 'denied' | 'user-only' | 'shadowed' | 'invalid';

/** HubRecord is what SkillHub wrote when it installed a skill. */
export interface HubRecord {
  id: string;
  name: string;
  version?: string;
  url: string;
  index?: string;
  installedAt: string;
}

/** SkillInfo is one skill as Settings → Skills lists it. */
export interface SkillInfo {
  name: string;
  description?: string;
  source: SkillSource;
  status: SkillStatus;
  trust?: 'trusted' | 'untrusted' | 'denied';
  reason?: string;
  /** dir is the skill's folder; '' for one built into TinyElf. */
  dir: string;
  location?: string;
  warnings?: string[];
  userInvocable?: boolean;
  argumentHint?: string;
  allowedTools?: string;
  installed?: HubRecord;
}

/** SkillRoot is a folder skills are looked for in. */
export interface SkillRoot {
  source: SkillSource;
  dir: string;
}

/** SkillList is ListSkills(): every skill of a workspace. */
export interface SkillList {
  workspace?: string;
  skills: SkillInfo[];
  roots: SkillRoot[];
  userDir: string;
  hubIndexes: string[];
  warning?: string;
}

/** SkillDetail is GetSkill(): a skill with its SKILL.md and files. */
export interface SkillDetail extends SkillInfo {
  content: string;
  files: string[];
  filesTruncated?: boolean;
}

/** HubEntry is one skill a SkillHub index offers. */
export interface HubEntry {
  id: string;
  name: string;
  description?: string;
  version?: string;
  url: string;
  sha256?: string;
  index: string;
}

/** HubSearchResult is SearchSkillHub(). */
export interface HubSearchResult {
  entries: HubEntry[];
  problems?: string[];
  /** installed maps a skill name to the SkillHub id installed under it. */
  installed: Record<string, string>;
}

/** InstalledSkill is InstallSkill(). */
export interface InstalledSkill {
  name: string;
  dir: string;
  id: string;
  version?: string;
  replaced?: boolean;
  warnings?: string[];
}

/** CommandInfo is one slash command of the composer's "/" menu. */
export interface CommandInfo {
  name: string;
  description?: string;
  argumentHint?: string;
  kind: 'skill' | 'markdown' | 'mcp';
  source: SkillSource | 'mcp';
  arguments?: { name: string; description?: string; required?: boolean }[];
  allowedTools?: string;
  server?: string;
}

/** CommandList is ListCommands(). */
export interface CommandList {
  commands: CommandInfo[];
  invalid?: SkillInfo[];
}

/** HookEvent names a hook point, as Claude Code spells it. */
export type HookEvent =
  | 'SessionStart'
  | 'UserPromptSubmit'
  | 'PreToolUse'
  | 'PermissionRequest'
  | 'PostToolUse'
  | 'PostToolUseFailure'
  | 'Notification'
  | 'Stop'
  | 'SubagentStop'
  | 'PreCompact'
  | 'SessionEnd';

/** HookCommand is one hook of a matcher group (Claude Code's shape). */
export interface HookCommand {
  type: string;
  command?: string;
  /** timeout is in seconds (unset: 60). */
  timeout?: number;
}

/** HookGroup is one matcher with the hooks it runs. */
export interface HookGroup {
  matcher?: string;
  hooks: HookCommand[];
}

/** HooksConfig is a settings file's "hooks" section: event → matcher groups. */
export type HooksConfig = Partial<Record<HookEvent, HookGroup[]>>;

/** HookProblem is something in a hooks section TinyElf cannot run. */
export interface HookProblem {
  where: string;
  message: string;
}

/** HookEventInfo describes an event for the form. */
export interface HookEventInfo {
  name: HookEvent;
  /** matchField is what its matcher is tested against; none: the matcher is ignored. */
  matchField?: string;
  matcherValues?: string[];
}

/** ProjectHookFile is one project settings file's hooks. */
export interface ProjectHookFile {
  path: string;
  config: HooksConfig;
  problems?: HookProblem[];
  error?: string;
}

/** ProjectHooks is a folder's project hooks and their trust. */
export interface ProjectHooks {
  workspace: string;
  files: ProjectHookFile[];
  hash?: string;
  trust: 'trusted' | 'denied' | 'untrusted';
  paths: string[];
}

/** HookList is Settings → Hooks. */
export interface HookList {
  events: HookEventInfo[];
  hooks: HooksConfig;
  problems: HookProblem[];
  settingsPath: string;
  project?: ProjectHooks;
  warning?: string;
}
