// Agent profiles (Settings → Agents) and the agent a new chat starts with.
import { get, writable } from 'svelte/store';
import * as api from '../api';
import type { Agent, AgentView } from '../types';
import { t, toast, toastError } from './ui';

/** agents are the agent profiles, the default one first. */
export const agents = writable<AgentView[]>([]);

/** draftAgent is the agent a new chat will run (its header's picker). */
export const draftAgent = writable<string>('default');

/** loadAgents fetches the profiles; a failure keeps the old list. */
export async function loadAgents(): Promise<void> {
  try {
    agents.set(await api.listAgents());
  } catch (err) {
    toastError(err);
  }
}

/** saveAgent saves a profile and returns true, or shows why not. */
export async function saveAgent(agent: Agent, rename?: string): Promise<string | null> {
  try {
    agents.set(await api.saveAgent(agent, rename));
    toast(get(t)('agents.saved', { name: agent.name }));
    return null;
  } catch (err) {
    return api.errorMessage(err);
  }
}

/** deleteAgent removes a profile; a new chat that had picked it goes back to the default. */
export async function deleteAgent(name: string): Promise<void> {
  try {
    agents.set(await api.deleteAgent(name));
    if (get(draftAgent) === name) {
      draftAgent.set('default');
    }
    toast(get(t)('agents.deleted', { name }));
  } catch (err) {
    toastError(err);
  }
}
