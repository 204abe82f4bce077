import { fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { session, settingsView } from './test/fixtures';

vi.mock('./lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./lib/api')>();
  return {
    ...actual,
    getState: vi.fn(),
    getSettings: vi.fn(),
    listSessions: vi.fn(async () => []),
    listMCPServers: vi.fn(async () => []),
    listMCPPrompts: vi.fn(async () => []),
    presets: vi.fn(async () => [
      { name: 'openai', displayName: 'OpenAI', kind: 'openai', baseUrl: 'https://api.openai.com/v1', needsKey: true, models: ['gpt-5'] },
      { name: 'ollama', displayName: 'Ollama (local)', kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', needsKey: false, local: true },
    ]),
    detectLocal: vi.fn(async () => []),
    saveProvider: vi.fn(),
    setFocused: vi.fn(async () => ({})),
    updatePreferences: vi.fn(),
    listAgents: vi.fn(async () => []),
    listSubagents: vi.fn(async () => []),
    subscribe: vi.fn(() => () => {}),
  };
});

import App from './App.svelte';
import * as api from './lib/api';
import { appState, phase } from './lib/stores/app';
import { activeId, view } from './lib/stores/chat';
import { sessions } from './lib/stores/sessions';
import { helpOpen, language, settingsOpen } from './lib/stores/ui';

function state(hasProvider: boolean) {
  return { version: '9.9.9', dataDir: '/data', hasProvider, warnings: null, home: '/home/me' };
}

beforeEach(() => {
  language.set('en');
  settingsOpen.set(false);
  helpOpen.set(false);
  phase.set('loading');
  appState.set(null);
  activeId.set(null);
  view.set(null);
  sessions.set([]);
  vi.mocked(api.getState).mockResolvedValue(state(true));
  vi.mocked(api.getSettings).mockResolvedValue(settingsView());
});

afterEach(() => {
  vi.clearAllMocks();
  window.history.replaceState(null, '', '/');
});

describe('App', () => {
  it('shows the first-run setup when no provider is configured, and offers a detected Ollama first', async () => {
    vi.mocked(api.getState).mockResolvedValue(state(false));
    vi.mocked(api.getSettings).mockResolvedValue(settingsView({ providers: [] }));
    vi.mocked(api.detectLocal).mockResolvedValue([
      { preset: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', models: [{ id: 'qwen3' }, { id: 'llama3.1' }] },
    ]);
    vi.mocked(api.saveProvider).mockResolvedValue(settingsView());
    render(App);
    expect(await screen.findByRole('heading', { name: 'Welcome to TinyElf' })).toBeTruthy();
    const use = await screen.findByRole('button', { name: 'Use Ollama (local)' });
    expect(screen.getByText('Ollama (local) is running on this computer')).toBeTruthy();
    await fireEvent.click(use);
    await vi.waitFor(() =>
      expect(api.saveProvider).toHaveBeenCalledWith({
        provider: { name: 'ollama', kind: 'openai', preset: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen3' },
        makeDefault: true,
      }),
    );
    expect(await screen.findByRole('navigation', { name: 'Sessions' })).toBeTruthy();
  });

  it('tells above the first-run setup that the settings file was set aside', async () => {
    vi.mocked(api.getState).mockResolvedValue({
      ...state(false),
      settingsNotice: { path: '/data/settings.json', aside: '/data/settings.json.corrupt-1', error: 'bad JSON' },
    });
    vi.mocked(api.getSettings).mockResolvedValue(settingsView({ providers: [] }));
    render(App);
    expect(await screen.findByRole('heading', { name: 'Welcome to TinyElf' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toContain('/data/settings.json.corrupt-1');
  });

  it('shows the chat shell with its landmarks and labelled controls', async () => {
    render(App);
    expect(await screen.findByRole('navigation', { name: 'Sessions' })).toBeTruthy();
    expect(screen.getByRole('main', { name: 'Chat' })).toBeTruthy();
    expect(screen.getByRole('form', { name: 'Message' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'New chat' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Settings' })).toBeTruthy();
    expect(screen.getByRole('radiogroup', { name: 'Permission mode' })).toBeTruthy();
    expect(screen.getAllByRole('radio')).toHaveLength(4);
    expect(screen.getByRole('searchbox', { name: 'Search sessions' })).toBeTruthy();
    expect(screen.getByText('version 9.9.9')).toBeTruthy();
    for (const el of document.querySelectorAll('button, input, select, textarea')) {
      const name = el.getAttribute('aria-label') || el.textContent?.trim() || (el as HTMLInputElement).labels?.[0]?.textContent;
      expect(name, el.outerHTML).toBeTruthy();
    }
  });

  it('keeps the composer disabled until a model is connected', async () => {
    vi.mocked(api.getSettings).mockResolvedValue(settingsView({ providers: [] }));
    render(App);
    const input = (await screen.findByRole('textbox', { name: 'Message' })) as HTMLTextAreaElement;
    expect(input.disabled).toBe(true);
    expect(input.getAttribute('aria-describedby')).toBe('composer-note');
    expect(screen.getByText('Connect a model in Settings to start.')).toBeTruthy();
  });

  it('groups the sessions by day', async () => {
    const today = new Date().toISOString();
    const yesterday = new Date(Date.now() - 86_400_000).toISOString();
    vi.mocked(api.listSessions).mockResolvedValue([
      session({ id: 'a', title: 'Today work', updatedAt: today }),
      session({ id: 'b', title: 'Older work', updatedAt: yesterday }),
    ]);
    render(App);
    expect(await screen.findByRole('heading', { name: 'Today' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Yesterday' })).toBeTruthy();
    expect(screen.getByRole('button', { name: /^Today work/ })).toBeTruthy();
  });

  it('speaks Japanese when the settings say so', async () => {
    vi.mocked(api.getSettings).mockResolvedValue(settingsView({ language: 'ja' }));
    render(App);
    expect(await screen.findByRole('navigation', { name: 'セッション' })).toBeTruthy();
    expect(screen.getByRole('button', { name: '新しいチャット' })).toBeTruthy();
    expect(document.documentElement.lang).toBe('ja');
  });

  it('opens settings with Ctrl+, and the shortcuts with Ctrl+/; Esc closes them', async () => {
    render(App);
    await screen.findByRole('navigation', { name: 'Sessions' });
    await fireEvent.keyDown(window, { key: ',', ctrlKey: true });
    const dialog = await screen.findByRole('dialog', { name: 'Settings' });
    for (const tab of ['Providers', 'Permissions', 'MCP servers', 'Appearance & language', 'Notifications', 'Skills', 'Agents', 'Capabilities']) {
      expect(screen.getByRole('tab', { name: new RegExp(`^${tab}`) })).toBeTruthy();
    }
    await fireEvent.keyDown(dialog, { key: 'Escape' });
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    await fireEvent.keyDown(window, { key: '/', ctrlKey: true });
    expect(await screen.findByRole('dialog', { name: 'Keyboard shortcuts' })).toBeTruthy();
    expect(screen.getByText('Search sessions')).toBeTruthy();
  });

  it('applies the theme preference to the document', async () => {
    vi.mocked(api.getSettings).mockResolvedValue(settingsView({ theme: 'dark' }));
    render(App);
    await screen.findByRole('navigation', { name: 'Sessions' });
    expect(document.documentElement.dataset.theme).toBe('dark');
  });
});
