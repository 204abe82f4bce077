import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { capability, capabilityList, mcpCapability, settingsView } from '../../test/fixtures';

vi.mock('../../lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/api')>();
  return {
    ...actual,
    listCapabilities: vi.fn(),
    searchCapabilities: vi.fn(),
    updatePreferences: vi.fn(),
  };
});

import * as api from '../../lib/api';
import { catalog, clearSearch } from '../../lib/stores/capabilities';
import { activeId } from '../../lib/stores/chat';
import { settings } from '../../lib/stores/settings';
import { language } from '../../lib/stores/ui';
import CapabilitiesSection from './CapabilitiesSection.svelte';

const items = [
  capability('Read'),
  capability('Write', { state: 'hidden', reason: 'plan mode hides tools that change things', readOnly: false, risk: 'medium' }),
  mcpCapability('github', 'create_pull_request'),
  mcpCapability('github', 'delete_repository', { risk: 'high' }),
  capability('approvals', { id: 'channel__approvals', kind: 'channel', source: 'surface', state: 'available', reason: 'an ability of this window', fullTokens: 0 }),
];

beforeEach(() => {
  language.set('en');
  catalog.set(null);
  clearSearch();
  activeId.set(null);
  settings.set(settingsView({ discovery: { defer: 'auto', threshold: 0.1 } }));
  vi.mocked(api.listCapabilities).mockResolvedValue(capabilityList(items));
});
afterEach(() => vi.clearAllMocks());

describe('CapabilitiesSection', () => {
  it('says whether tools are deferred and why, and lists the catalog by source with reasons', async () => {
    render(CapabilitiesSection);
    expect(await screen.findByText('Deferral is on')).toBeTruthy();
    expect(screen.getByText('deferral is always on')).toBeTruthy();
    expect(screen.getByText(/1 tool sent with their definitions \(about 2,100 tokens\)/)).toBeTruthy();
    expect(screen.getByText(/2 in the index \(about 60 tokens\)/)).toBeTruthy();
    const groups = Array.from(document.querySelectorAll('section.group')).map((g) => g.getAttribute('data-source'));
    expect(groups).toEqual(['builtin', 'mcp:github', 'surface']);
    const github = document.querySelector('section.group[data-source="mcp:github"]') as HTMLElement;
    expect(within(github).getByText('create_pull_request')).toBeTruthy();
    expect(within(github).getByText('High risk')).toBeTruthy();
    const write = document.querySelector('[data-id="local__Write"]') as HTMLElement;
    expect(within(write).getByText('Hidden')).toBeTruthy();
    expect(within(write).getAllByText('plan mode hides tools that change things').length).toBeGreaterThan(0);
    expect(api.listCapabilities).toHaveBeenCalledWith({ sessionId: '', mode: '' });
  });

  it('filters by kind and state', async () => {
    render(CapabilitiesSection);
    await screen.findByText('Deferral is on');
    await fireEvent.change(screen.getByLabelText('State'), { target: { value: 'deferred' } });
    expect(screen.getByText('2 of 5')).toBeTruthy();
    expect(document.querySelectorAll('details.row').length).toBe(2);
    await fireEvent.change(screen.getByLabelText('State'), { target: { value: '' } });
    await fireEvent.change(screen.getByLabelText('Kind'), { target: { value: 'channel' } });
    expect(Array.from(document.querySelectorAll('details.row')).map((r) => r.getAttribute('data-id'))).toEqual(['channel__approvals']);
  });

  it('asks for the open session and another mode', async () => {
    activeId.set('s1');
    render(CapabilitiesSection);
    await screen.findByText('Deferral is on');
    expect(api.listCapabilities).toHaveBeenLastCalledWith({ sessionId: 's1', mode: '' });
    await fireEvent.click(screen.getByLabelText('A new session'));
    await fireEvent.change(screen.getByLabelText('Mode'), { target: { value: 'plan' } });
    await waitFor(() => expect(api.listCapabilities).toHaveBeenLastCalledWith({ sessionId: '', mode: 'plan' }));
  });

  it('runs the model\'s search and shows why each hit matched', async () => {
    vi.mocked(api.searchCapabilities).mockResolvedValue({
      query: 'pull request',
      items: [
        { id: 'mcp__github__create_pull_request', name: 'mcp__github__create_pull_request', kind: 'tool', source: 'mcp:github', risk: 'medium',
          summary: 'Create a new pull request.', why: 'name: pull, request', use: 'loaded for your next step: call mcp__github__create_pull_request', state: 'deferred', tokens: 300 },
      ],
    });
    render(CapabilitiesSection);
    await screen.findByText('Deferral is on');
    const box = screen.getByLabelText('Search like the model', { selector: 'input' });
    await fireEvent.input(box, { target: { value: 'pull request' } });
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(await screen.findByText('1 found for “pull request”')).toBeTruthy();
    const hit = document.querySelector('.hit') as HTMLElement;
    expect(within(hit).getByText('create_pull_request')).toBeTruthy();
    expect(hit.textContent).toContain('matched name: pull, request');
    expect(api.searchCapabilities).toHaveBeenCalledWith(expect.objectContaining({ query: 'pull request', regex: false, limit: 10 }));
    // Esc clears the box, and does not close the dialog around it.
    const esc = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true });
    box.dispatchEvent(esc);
    expect(esc.defaultPrevented).toBe(true);
    await waitFor(() => expect(document.querySelector('.hit')).toBeNull());
  });

  it('saves the deferral setting as a share of the window, and refuses a bad threshold', async () => {
    vi.mocked(api.updatePreferences).mockResolvedValue(settingsView({ discovery: { defer: 'auto', threshold: 0.2 } }));
    render(CapabilitiesSection);
    await screen.findByText('Deferral is on');
    const save = screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    const threshold = screen.getByLabelText('Threshold') as HTMLInputElement;
    expect(threshold.value).toBe('10');
    await fireEvent.input(threshold, { target: { value: '0' } });
    expect(screen.getByRole('alert').textContent).toContain('from 1 to 100');
    expect(save.disabled).toBe(true);
    await fireEvent.input(threshold, { target: { value: '20' } });
    expect(save.disabled).toBe(false);
    await fireEvent.click(save);
    await waitFor(() => expect(api.updatePreferences).toHaveBeenCalledWith({ discovery: { defer: 'auto', threshold: 0.2 } }));
    await fireEvent.click(screen.getByLabelText(/^Never/));
    expect(threshold.disabled).toBe(true);
  });

  it('shows a load failure with a retry', async () => {
    vi.mocked(api.listCapabilities).mockRejectedValueOnce(new api.ApiError('internal', 'engine gone'));
    render(CapabilitiesSection);
    expect((await screen.findByRole('alert')).textContent).toContain('engine gone');
    await fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Deferral is on')).toBeTruthy();
  });
});
