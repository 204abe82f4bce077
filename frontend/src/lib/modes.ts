// The permission modes' names and one-line explanations, as i18n keys,
// shared by the header's switch and the settings.
import type { MessageKey } from './i18n';
import type { PermissionMode } from './types';

/** modeLabel is each mode's short name. */
export const modeLabel: Record<PermissionMode, MessageKey> = {
  plan: 'mode.plan',
  default: 'mode.default',
  acceptEdits: 'mode.acceptEdits',
  auto: 'mode.auto',
};

/** modeHelp says in one line what each mode lets the agent do. */
export const modeHelp: Record<PermissionMode, MessageKey> = {
  plan: 'mode.planHelp',
  default: 'mode.defaultHelp',
  acceptEdits: 'mode.acceptEditsHelp',
  auto: 'mode.autoHelp',
};
