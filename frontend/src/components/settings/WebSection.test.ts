import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebProviderView, WebSettingsView } from '../../lib/types';

function provider(name: WebProviderView['name'], over: Partial<WebProviderView> = {}): WebProviderView {
  const needsKey = name === 'tavily' || name === 'brave' || name === 'jina';
  return {
    name,
    needsKey,
    needsUrl: name === 'searxng',
    keyEnv: needsKey ? `${name.toUpperCase()}_API_KEY` : undefined,
    keySet: false,
    url: '',
    disabled: false,
    ready: name === 'duckduckgo',
    ...over,
  };
}

function view(over: Partial<WebSettingsView> = {}): WebSettingsView {
  return {
    allowLocal: false,
    allowLocalFromEnv: false,
    nativeSearch: true,
    providers: [
      provider('tavily', { keySet: true, keyHint: '…5678', ready: true }),
      provider('brave'),
      provider('jina'),
      provider('searxng'),
      provider('duckduckgo'),
    ],
    ...over,
  };
}

vi.mock('../../lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/api')>();
  return {
    ...actual,
    getWebSettings: vi.fn(async () => view()),
    saveWebSettings: vi.fn(async () => view()),
    testWebSearch: vi.fn(async () => ({
      ok: true,
      message: 'tavily found 1 results.',
      attempts: [{ stage: 'service', provider: 'tavily', outcome: 'success', results: 1 }],
      results: [{ title: 'Example', url: 'https://example.org/' }],
    })),
  };
});

import * as api from '../../lib/api';
import { language } from '../../lib/stores/ui';
import { webSettings } from '../../lib/stores/web';
import WebSection from './WebSection.svelte';

beforeEach(() => {
  language.set('en');
  webSettings.set(null);
});
afterEach(() => vi.clearAllMocks());

describe('WebSection', () => {
  it('lists the providers in order with their state, never a key', async () => {
    render(WebSection);
    await screen.findByText('Tavily');
    const names = Array.from(document.querySelectorAll('.card .name')).map((n) => n.textContent);
    expect(names).toEqual(['Tavily', 'Brave Search', 'Jina', 'SearXNG', 'DuckDuckGo']);
    expect((screen.getByLabelText('API key', { selector: '#web-key-tavily' }) as HTMLInputElement).placeholder).toBe(
      'Saved key (…5678); type to replace it',
    );
    expect((screen.getByLabelText('API key', { selector: '#web-key-brave' }) as HTMLInputElement).placeholder).toBe(
      'Paste a key, or set BRAVE_API_KEY',
    );
    expect(screen.getAllByText('Needs a key').length).toBe(2);
    expect(screen.getByText('Needs a URL')).toBeTruthy();
  });

  it('saves the allow-local switch, a new key and the order', async () => {
    render(WebSection);
    await screen.findByText('Tavily');
    await fireEvent.click(document.querySelector('input[aria-describedby="web-local-help"]') as HTMLInputElement);
    expect(api.saveWebSettings).toHaveBeenCalledWith({ allowLocal: true });

    const key = screen.getByLabelText('API key', { selector: '#web-key-brave' });
    await fireEvent.input(key, { target: { value: ' BSA-new-key ' } });
    const braveCard = document.querySelector('[data-provider="brave"]') as HTMLElement;
    await fireEvent.click(Array.from(braveCard.querySelectorAll('button')).find((b) => b.textContent === 'Save')!);
    expect(api.saveWebSettings).toHaveBeenCalledWith({ providers: { brave: { apiKey: 'BSA-new-key' } } });

    await fireEvent.click(screen.getByLabelText('Move Brave Search up'));
    expect(api.saveWebSettings).toHaveBeenCalledWith({ order: ['brave', 'tavily', 'jina', 'searxng', 'duckduckgo'] });

    await fireEvent.click(screen.getByLabelText('Use DuckDuckGo'));
    expect(api.saveWebSettings).toHaveBeenCalledWith({ providers: { duckduckgo: { disabled: true } } });
  }, 20_000);

  it('tests a provider and shows what it found', async () => {
    render(WebSection);
    await screen.findByText('Tavily');
    const card = document.querySelector('[data-provider="tavily"]') as HTMLElement;
    await fireEvent.click(Array.from(card.querySelectorAll('button')).find((b) => b.textContent?.includes('Test'))!);
    expect(api.testWebSearch).toHaveBeenCalledWith('tavily');
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('tavily found 1 results.'));
    expect(screen.getByText('Example')).toBeTruthy();
  });

  it('says when the environment allows local addresses', async () => {
    vi.mocked(api.getWebSettings).mockResolvedValueOnce(view({ allowLocalFromEnv: true }));
    render(WebSection);
    expect(await screen.findByText(/TINYELF_WEB_ALLOW_LOCAL=1 is set/)).toBeTruthy();
  });
});
