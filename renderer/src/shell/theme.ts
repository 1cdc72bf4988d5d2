import { useEffect, useState } from 'react';

export type Theme = 'light' | 'dark';
const KEY = 'nexus.theme';
const DARK = '(prefers-color-scheme: dark)';

const systemTheme = (): Theme => (window.matchMedia?.(DARK).matches ? 'dark' : 'light');
const savedTheme = (): Theme | null => {
  const saved = localStorage.getItem(KEY);
  return saved === 'light' || saved === 'dark' ? saved : null;
};

/**
 * Light and dark themes: follows the system (prefers-color-scheme, also when it changes) until the
 * operator picks one with the toggle; the pick is kept in localStorage.
 */
export function useTheme(): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(() => savedTheme() ?? systemTheme());
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  useEffect(() => {
    const query = window.matchMedia?.(DARK);
    if (!query) return;
    const follow = (): void => {
      if (savedTheme() === null) setTheme(systemTheme());
    };
    query.addEventListener('change', follow);
    return () => query.removeEventListener('change', follow);
  }, []);
  return [
    theme,
    () =>
      setTheme((t) => {
        const next = t === 'dark' ? 'light' : 'dark';
        localStorage.setItem(KEY, next);
        return next;
      }),
  ];
}
