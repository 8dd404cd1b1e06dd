import { useEffect } from 'react';
import { useT } from './i18n';

/**
 * The tab's title for a page outside the signed-in app, whose shell names its own pages
 * (AppShell): the page's heading, then the brand ("Iniciar sesión · Eventmatch"), as the tab and the
 * history list show it; the brand alone again once the page goes. `null`: the page leaves the title
 * to whoever holds it.
 */
export function usePageTitle(page: string | null) {
  const brand = useT()('brand.name');
  useEffect(() => {
    if (page === null) return;
    document.title = `${page} · ${brand}`;
    return () => void (document.title = brand);
  }, [page, brand]);
}
