/**
 * The colour theme: main remembers the user's choice (Settings → Theme, `info.theme`); this module
 * puts it on <html data-theme> where theme.css's tokens read it. `system` removes the attribute so
 * the page follows `prefers-color-scheme`.
 *
 * The choice is also mirrored in localStorage, read before React's first render: the first frame
 * is already in the right theme instead of flashing light until `app:info` answers. Main stays the
 * source of truth (the mirror is overwritten by every `app:info`); in Electron, main also sets
 * `nativeTheme.themeSource`, so even a cleared mirror paints the right theme.
 */
// From plain.ts, not shared/api: this is in the first chunk, zod is not (issue 28).
import { THEME_PREFERENCES, type ThemePreference } from '../../shared/api/plain';

const MIRROR_KEY = 'paydesk.theme';

function isThemePreference(value: unknown): value is ThemePreference {
  return typeof value === 'string' && (THEME_PREFERENCES as readonly string[]).includes(value);
}

/** Whether the system asks for dark: what `system` resolves to. */
export function systemPrefersDark(): boolean {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function' && window.matchMedia('(prefers-color-scheme: dark)').matches;
}

/** The theme actually shown for a preference. */
export function resolveTheme(preference: ThemePreference): 'light' | 'dark' {
  if (preference === 'system') return systemPrefersDark() ? 'dark' : 'light';
  return preference;
}

function mirror(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // storage refused (privacy settings): the theme still follows app:info
  }
}

/** Applies a preference to the document and remembers it for the next start's first frame. */
export function applyTheme(preference: ThemePreference): void {
  const root = document.documentElement;
  if (preference === 'system') delete root.dataset.theme;
  else root.dataset.theme = preference;
  mirror()?.setItem(MIRROR_KEY, preference);
}

/** Before the first render: the theme main answered last time (or the system's). */
export function applyMirroredTheme(): void {
  const stored = mirror()?.getItem(MIRROR_KEY);
  applyTheme(isThemePreference(stored) ? stored : 'system');
}
