// The one table of every string a user reads, in English and Japanese.
// Components never hard-code visible text: they call `t(key)` from stores.ts.

const en = {
  'app.name': 'TinyElf',
  'app.version': 'version {version}',
  'header.mode.label': 'Permission mode',
  'header.mode.plan': 'Plan (read only)',
  'header.mode.default': 'Ask before changes',
  'header.mode.acceptEdits': 'Accept edits',
  'header.mode.auto': 'Auto',
  'header.settings': 'Settings',
  'settings.title': 'Settings',
  'settings.placeholder': 'Models, MCP servers, skills and permissions will be set here.',
  'settings.close': 'Close',
  'sidebar.label': 'Sessions',
  'sidebar.newChat': 'New chat',
  'sidebar.empty': 'No sessions yet.',
  'chat.label': 'Chat',
  'chat.empty.title': 'What shall we work on?',
  'chat.empty.body': 'Pick a folder and a model, then ask TinyElf to read, edit, run and explain things for you.',
  'composer.label': 'Message',
  'composer.placeholder': 'Ask TinyElf…',
  'composer.send': 'Send',
  'composer.disabledNote': 'Connect a model in Settings to start.',
} as const;

/** MessageKey names one entry of the string table. */
export type MessageKey = keyof typeof en;

/** Language is a language the UI is translated into. */
export type Language = 'en' | 'ja';

const ja: Record<MessageKey, string> = {
  'app.name': 'TinyElf',
  'app.version': 'バージョン {version}',
  'header.mode.label': '権限モード',
  'header.mode.plan': 'プラン（読み取りのみ）',
  'header.mode.default': '変更前に確認',
  'header.mode.acceptEdits': '編集を自動承認',
  'header.mode.auto': '自動',
  'header.settings': '設定',
  'settings.title': '設定',
  'settings.placeholder': 'モデル、MCP サーバー、スキル、権限はここで設定します。',
  'settings.close': '閉じる',
  'sidebar.label': 'セッション',
  'sidebar.newChat': '新しいチャット',
  'sidebar.empty': 'セッションはまだありません。',
  'chat.label': 'チャット',
  'chat.empty.title': '何をしましょうか？',
  'chat.empty.body': 'フォルダとモデルを選んで、ファイルの読み書きやコマンドの実行、説明を TinyElf に頼んでください。',
  'composer.label': 'メッセージ',
  'composer.placeholder': 'TinyElf に頼む…',
  'composer.send': '送信',
  'composer.disabledNote': '始めるには設定でモデルを接続してください。',
};

/** messages holds the full table for every language. */
export const messages: Record<Language, Record<MessageKey, string>> = { en, ja };

/** languages lists the supported languages, the fallback first. */
export const languages: readonly Language[] = ['en', 'ja'];

/**
 * detectLanguage picks the first supported language from the user's preferences
 * (as navigator.languages gives them), falling back to English.
 */
export function detectLanguage(preferred: readonly string[]): Language {
  for (const tag of preferred) {
    const base = tag.toLowerCase().split('-')[0];
    if ((languages as readonly string[]).includes(base)) {
      return base as Language;
    }
  }
  return 'en';
}

/**
 * translate returns the string for key in lang, with each {name} replaced by
 * vars[name]. A key missing in lang falls back to English.
 */
export function translate(
  lang: Language,
  key: MessageKey,
  vars: Record<string, string | number> = {},
): string {
  const template = messages[lang][key] ?? messages.en[key];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in vars ? String(vars[name]) : whole,
  );
}
