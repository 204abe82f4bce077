import { fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('../lib/api', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../lib/api')>();
  return { ...actual, dismissSettingsNotice: vi.fn(async () => ({})) };
});

import * as api from '../lib/api';
import { appState } from '../lib/stores/app';
import { language } from '../lib/stores/ui';
import type { AppState } from '../lib/types';
import SettingsNoticeBanner from './SettingsNoticeBanner.svelte';

function state(over: Partial<AppState> = {}): AppState {
  return { version: '1', dataDir: '/data', hasProvider: false, warnings: [], home: '/home/me', ...over };
}

const notice = {
  path: '/data/settings.json',
  aside: '/data/settings.json.corrupt-20261201T100000Z',
  error: 'unexpected end of JSON input',
};

beforeEach(() => {
  language.set('en');
});

afterEach(() => {
  vi.clearAllMocks();
  appState.set(null);
});

describe('SettingsNoticeBanner', () => {
  it('shows nothing when the settings loaded cleanly', () => {
    appState.set(state());
    render(SettingsNoticeBanner);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('names the kept copy and the error, until dismissed', async () => {
    appState.set(state({ settingsNotice: notice }));
    render(SettingsNoticeBanner);
    const banner = screen.getByRole('alert');
    expect(banner.textContent).toContain('Your settings could not be read.');
    expect(banner.textContent).toContain(notice.aside);
    expect(banner.textContent).toContain(notice.error);
    await fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(api.dismissSettingsNotice).toHaveBeenCalledTimes(1);
  });

  it('stays dismissed when the backend cannot be told', async () => {
    vi.mocked(api.dismissSettingsNotice).mockRejectedValueOnce(new Error('offline'));
    appState.set(state({ settingsNotice: notice }));
    render(SettingsNoticeBanner);
    await fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    await vi.waitFor(() => expect(api.dismissSettingsNotice).toHaveBeenCalled());
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('speaks Japanese', () => {
    language.set('ja');
    appState.set(state({ settingsNotice: notice }));
    render(SettingsNoticeBanner);
    const banner = screen.getByRole('alert');
    expect(banner.textContent).toContain('設定を読み込めませんでした。');
    expect(banner.textContent).toContain(notice.aside);
    expect(screen.getByRole('button', { name: '閉じる' })).toBeTruthy();
  });
});
