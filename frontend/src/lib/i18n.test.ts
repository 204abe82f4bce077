import { describe, expect, it } from 'vitest';
import { detectLanguage, languages, messages, translate } from './i18n';

describe('i18n table', () => {
  it('has the same keys in every language', () => {
    const english = Object.keys(messages.en).sort();
    for (const lang of languages) {
      expect(Object.keys(messages[lang]).sort(), lang).toEqual(english);
    }
  });

  it('has no empty strings', () => {
    for (const lang of languages) {
      for (const [key, value] of Object.entries(messages[lang])) {
        expect(value.trim(), `${lang} ${key}`).not.toBe('');
      }
    }
  });

  it('uses the same placeholders in every language', () => {
    const placeholders = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
    for (const key of Object.keys(messages.en) as (keyof typeof messages.en)[]) {
      for (const lang of languages) {
        expect(placeholders(messages[lang][key]), `${lang} ${key}`).toEqual(
          placeholders(messages.en[key]),
        );
      }
    }
  });

  it('fills placeholders', () => {
    expect(translate('en', 'app.version', { version: '1.2.3' })).toBe('version 1.2.3');
    expect(translate('ja', 'app.version', { version: '1.2.3' })).toBe('バージョン 1.2.3');
  });
});

describe('detectLanguage', () => {
  it.each([
    [['ja-JP', 'en-US'], 'ja'],
    [['ja'], 'ja'],
    [['en-GB'], 'en'],
    [['fr-FR', 'ja'], 'ja'],
    [['fr-FR'], 'en'],
    [[], 'en'],
  ] as const)('%j → %s', (preferred, want) => {
    expect(detectLanguage(preferred)).toBe(want);
  });
});

describe('keys built at run time', () => {
  it.each([
    ...['provider', 'stream_cut', 'stalled', 'tool_clash', 'tool_skipped', 'tool', 'internal', 'config', 'other'].flatMap((k) => [`error.${k}`, `error.hint.${k}`]),
    ...['connected', 'starting', 'restarting', 'failed', 'disabled', 'disconnected', 'unknown'].map((k) => `mcp.status.${k}`),
    ...['user', 'rule', 'mode', 'cli', 'skill'].map((k) => `tool.allowedBy.${k}`),
    ...['ready', 'untrusted', 'denied', 'user-only', 'shadowed', 'invalid'].map((k) => `skills.status.${k}`),
    ...['user', 'project', 'builtin'].flatMap((k) => [`skills.source.${k}`, `commands.source.${k}`]),
    'commands.source.mcp',
    ...['pending', 'awaiting_approval', 'denied', 'done', 'error', 'interrupted'].map((k) => `tool.${k}`),
  ])('%s exists', (key) => {
    expect(Object.keys(messages.en)).toContain(key);
  });
});
