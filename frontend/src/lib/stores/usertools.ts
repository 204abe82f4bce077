// The user tools of one agent (Settings → Tools): its common and personal
// tools with their errors, its permissions, and its background tasks.
// usertools.report and usertools.task events reload what is shown.
import { get, writable } from 'svelte/store';
import * as api from '../api';
import type { ToolPermissions, ToolTask, UserToolListing } from '../types';
import { coalesce } from '../util';
import { toast, toastError } from './ui';

/** toolsAgent is the agent whose tools are shown. */
export const toolsAgent = writable('default');

/** userTools is the shown agent's listing; null until loaded. */
export const userTools = writable<UserToolListing | null>(null);

/** toolTasks are the shown agent's background tasks, newest first. */
export const toolTasks = writable<ToolTask[]>([]);

/** toolsBusy is set while a refresh runs. */
export const toolsBusy = writable(false);

/** loadUserTools fetches the listing and tasks of an agent (default: the shown one). */
export async function loadUserTools(agent = get(toolsAgent)): Promise<void> {
  toolsAgent.set(agent);
  const [listing, tasks] = await Promise.all([api.listUserTools(agent), api.listToolTasks(agent)]);
  userTools.set(listing);
  toolTasks.set(tasks);
}

/** refreshUserTools rescans every tool folder (the seed's refresh_tools, for the user). */
export async function refreshUserTools(): Promise<void> {
  toolsBusy.set(true);
  try {
    userTools.set(await api.refreshUserTools(get(toolsAgent)));
  } catch (err) {
    toastError(err);
  } finally {
    toolsBusy.set(false);
  }
}

/** shareUserTool copies a personal tool into the common tools; the message is shown. */
export async function shareUserTool(name: string, overwrite = false): Promise<boolean> {
  try {
    const res = await api.shareUserTool(get(toolsAgent), name, overwrite);
    toast(res.message);
    return true;
  } catch (err) {
    toastError(err);
    return false;
  }
}

/** savePermissions writes the shown agent's permissions.json. */
export async function savePermissions(p: ToolPermissions): Promise<void> {
  try {
    userTools.set(await api.saveToolPermissions(get(toolsAgent), p));
  } catch (err) {
    toastError(err);
  }
}

/** setGatedAllowed adds or removes one gated action from external_tools. */
export function setGatedAllowed(schema: string, allowed: boolean): Promise<void> {
  const l = get(userTools);
  if (!l) {
    return Promise.resolve();
  }
  const list = (l.permissions.external_tools ?? []).filter((s) => s !== schema);
  if (allowed) {
    list.push(schema);
  }
  return savePermissions({ ...l.permissions, external_tools: list });
}

/** setToolCreation turns tool_creation.personal or .shared on or off. */
export function setToolCreation(which: 'personal' | 'shared', on: boolean): Promise<void> {
  const l = get(userTools);
  if (!l) {
    return Promise.resolve();
  }
  return savePermissions({ ...l.permissions, tool_creation: { ...l.permissions.tool_creation, [which]: on } });
}

/** saveSecret stores a credential in the vault and reloads. Throws on error. */
export async function saveSecret(name: string, value: string): Promise<void> {
  await api.setToolSecret(name, value);
  await loadUserTools();
}

/** clearSecret removes a credential from the vault and reloads. Throws on error. */
export async function clearSecret(name: string): Promise<void> {
  await api.setToolSecret(name, '');
  await loadUserTools();
}

/** openFolder opens a tool folder in the file manager; returns the result for showing the path. */
export async function openFolder(which: 'personal' | 'common') {
  return api.openToolsFolder(get(toolsAgent), which);
}

const reloadSoon = coalesce(async () => {
  if (get(userTools)) {
    await loadUserTools().catch(() => undefined);
  }
}, 250);

/** onUserToolsEvent reloads the listing after a usertools.* event, when one is shown. */
export function onUserToolsEvent(): void {
  reloadSoon();
}
