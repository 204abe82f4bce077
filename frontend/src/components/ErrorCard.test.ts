import { fireEvent, render, screen } from '@testing-library/svelte';
import { get } from 'svelte/store';
import { beforeEach, describe, expect, it } from 'vitest';

import { language, settingsOpen, settingsSection } from '../lib/stores/ui';
import ErrorCard from './ErrorCard.svelte';

beforeEach(() => {
  language.set('en');
  settingsOpen.set(false);
  settingsSection.set('providers');
});

describe('ErrorCard', () => {
  it('shows a skipped user tool with its exact problem and a way to Settings → Tools', async () => {
    const text =
      'Skipped grep (personal, /data/agents/default/tools/grep.tool.json): its name is taken by the core tool Grep\n' +
      'Error in mail (common, /data/common_tools/mail.py): SyntaxError: invalid syntax (line 3)';
    render(ErrorCard, { kind: 'tool_skipped', text });
    const card = screen.getByRole('alert');
    expect(card.textContent).toContain('A user tool was left out');
    expect(card.textContent).toContain('its name is taken by the core tool Grep');
    expect(card.textContent).toContain('SyntaxError: invalid syntax (line 3)');
    await fireEvent.click(screen.getByRole('button', { name: 'Open Settings → Tools' }));
    expect(get(settingsOpen)).toBe(true);
    expect(get(settingsSection)).toBe('tools');
  });

  it('falls back to a generic title for a kind it does not know', () => {
    render(ErrorCard, { kind: 'brand_new', text: 'boom' });
    expect(screen.getByRole('alert').textContent).toContain('boom');
    expect(screen.queryByRole('button')).toBeNull();
  });
});
