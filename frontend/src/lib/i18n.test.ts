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

  it('picks the plural that fits the number', () => {
    expect(translate('en', 'provider.modelsFetched', { count: 1 })).toBe('1 model listed by the API');
    expect(translate('en', 'provider.modelsFetched', { count: 2 })).toBe('2 models listed by the API');
    expect(translate('en', 'provider.modelsFetched', { count: 0 })).toBe('0 models listed by the API');
    expect(translate('en', 'mcp.testOk', { tools: 1, resources: 3 })).toBe('Started fine: 1 tool, 3 resources.');
    expect(translate('en', 'header.tokens', { tokens: '1.2K' })).toBe('1.2K tokens');
    expect(translate('ja', 'provider.modelsFetched', { count: 1 })).toBe('API が返したモデル 1 個');
  });

  it('writes no count next to a plural noun that does not agree with it', () => {
    // A "{count} things" with a number in front and no {count|one|other}
    // reads "1 things" for one; every such string must use the plural form.
    for (const [key, value] of Object.entries(messages.en)) {
      const bare = /\{(count|lines|tools|resources|tokens|n)\} (models|lines|tools|resources|tokens|servers|items|sessions|files)\b/.exec(value);
      expect(bare, `${key}: ${value}`).toBeNull();
    }
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
    ...['pending', 'awaiting_approval', 'denied', 'done', 'error', 'interrupted', 'blocked'].map((k) => `tool.${k}`),
    ...['guard', 'rule', 'mode'].map((k) => `tool.blockedBy.${k}`),
  ])('%s exists', (key) => {
    expect(Object.keys(messages.en)).toContain(key);
  });
});
