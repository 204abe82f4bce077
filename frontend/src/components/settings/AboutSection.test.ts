import { render, screen } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appState, appVersion } from '../../lib/stores/app';
import { language } from '../../lib/stores/ui';
import type { AppState } from '../../lib/types';
import AboutSection from './AboutSection.svelte';

function state(over: Partial<AppState> = {}): AppState {
  return { version: '0.2.0', dataDir: '/home/me/.config/tinyelf', hasProvider: true, warnings: [], home: '/home/me', ...over };
}

beforeEach(() => {
  language.set('en');
});

afterEach(() => {
  appState.set(null);
  appVersion.set('');
});

describe('AboutSection', () => {
  it('shows the version and the data folder', () => {
    appState.set(state({ version: '0.1.0~dev.303.g7ff6024' }));
    appVersion.set('0.1.0~dev.303.g7ff6024');
    render(AboutSection);
    expect(screen.getByTestId('about-version').textContent?.trim()).toBe('0.1.0~dev.303.g7ff6024');
    expect(screen.getByTestId('about-data-dir').textContent).toBe('/home/me/.config/tinyelf');
    expect(screen.getByText(/uninstalling TinyElf leaves this folder/)).toBeTruthy();
  });

  it('says so for a development build', () => {
    appState.set(state({ version: '0.0.0-dev' }));
    appVersion.set('0.0.0-dev');
    render(AboutSection);
    expect(screen.getByTestId('about-version').textContent).toContain('A development build');
  });

  it('falls back to the start-up state before the version call answers', () => {
    appState.set(state({ version: '0.2.0' }));
    render(AboutSection);
    expect(screen.getByTestId('about-version').textContent?.trim()).toBe('0.2.0');
  });

  it('speaks Japanese', () => {
    language.set('ja');
    appState.set(state({ version: '0.0.0-dev' }));
    appVersion.set('0.0.0-dev');
    render(AboutSection);
    expect(screen.getByTestId('about-version').textContent).toContain('開発版');
  });
});
