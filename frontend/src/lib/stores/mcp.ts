// The user's MCP servers with their live states, and the prompts they offer
// as slash commands. mcp.state events patch a server's state at once and a
// full reload follows.
import { writable } from 'svelte/store';
import * as api from '../api';
import type { ImportReport, MCPChange, MCPServerConfig, MCPServerView, PromptCommand } from '../types';
import { coalesce } from '../util';
import { toastError } from './ui';

/** mcpServers are the configured servers, in settings order. */
export const mcpServers = writable<MCPServerView[]>([]);

/** mcpLoaded turns true after the first successful load. */
export const mcpLoaded = writable(false);

/** prompts are the MCP prompts usable as slash commands. */
export const prompts = writable<PromptCommand[]>([]);

/** loadMCP fetches the servers and their states. */
export async function loadMCP(): Promise<void> {
  mcpServers.set(await api.listMCPServers());
  mcpLoaded.set(true);
}

/** loadPrompts fetches the slash commands; failures leave the old list. */
export async function loadPrompts(): Promise<void> {
  try {
    prompts.set(await api.listMCPPrompts());
  } catch {
    // completion is a convenience; the composer works without it
  }
}

const reloadSoon = coalesce(async () => {
  await loadMCP();
  await loadPrompts();
}, 250);

/** applyMCPChange patches one server's state from an mcp.state event. */
export function applyMCPChange(change: MCPChange): void {
  mcpServers.update((list) =>
    list.map((s) =>
      s.config.name === change.server ? { ...s, state: change.state, tools: change.state.tools ?? [] } : s,
    ),
  );
  reloadSoon();
}

async function run(op: () => Promise<MCPServerView[]>): Promise<boolean> {
  try {
    mcpServers.set(await op());
    reloadSoon();
    return true;
  } catch (err) {
    toastError(err);
    return false;
  }
}

/** saveServer adds or updates a server (rename: its former name). Throws on error. */
export async function saveServer(server: MCPServerConfig, rename?: string): Promise<void> {
  mcpServers.set(await api.saveMCPServer(server, rename));
  reloadSoon();
}

/** removeServer deletes a server. */
export const removeServer = (name: string) => run(() => api.removeMCPServer(name));

/** setServerEnabled turns a server on or off. */
export const setServerEnabled = (name: string, enabled: boolean) => run(() => api.setMCPServerEnabled(name, enabled));

/** restartServer retries a failed server. */
export const restartServer = (name: string) => run(() => api.restartMCPServer(name));

/**
 * signIn starts a server's OAuth sign-in and opens its page in the system
 * browser (the desktop) or a new tab (tinyelf serve); the card follows the
 * sign-in through mcp.state events. It returns the address, '' on failure.
 */
export async function signIn(name: string): Promise<string> {
  try {
    const { url } = await api.signInMCPServer(name);
    api.openExternal(url);
    return url;
  } catch (err) {
    toastError(err);
    return '';
  }
}

/** signOut forgets a server's sign-in. */
export const signOut = (name: string) => run(() => api.signOutMCPServer(name));

/** importConfig adds the servers of a Claude Desktop style JSON. Throws on error. */
export async function importConfig(content: string): Promise<ImportReport> {
  const res = await api.importMCPConfig(content);
  mcpServers.set(res.servers);
  reloadSoon();
  return res.report;
}

/** testServer starts a stored or unsaved server once and reports what it offers. */
export const testServer = (args: { name?: string; server?: MCPServerConfig }) => api.testMCPServer(args);

/** shortToolName drops the mcp__server__ prefix for display. */
export function shortToolName(name: string, server: string): string {
  const prefix = `mcp__${server}__`;
  if (name.startsWith(prefix)) {
    return name.slice(prefix.length);
  }
  const parts = name.split('__');
  return parts.length >= 3 ? parts.slice(2).join('__') : name;
}
