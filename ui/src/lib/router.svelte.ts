// Hash routing: `#/` chat, `#/c/<id>` a conversation, `#/settings/<tab>`.
export type SettingsTab = 'providers' | 'assistants' | 'servers' | 'knowledge' | 'local-server' | 'models' | 'general';
export const SETTINGS_TABS: readonly SettingsTab[] = ['providers', 'assistants', 'servers', 'knowledge', 'local-server', 'models', 'general'];

export type Route =
  | { name: 'chat' }
  | { name: 'conversation'; id: string }
  | { name: 'settings'; tab: SettingsTab };

function decode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

export function parseHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  if (parts[0] === 'c' && parts.length === 2) {
    const id = decode(parts[1]!);
    if (id) return { name: 'conversation', id };
  }
  if (parts[0] === 'settings' && parts.length <= 2) {
    const tab = parts[1] ?? 'providers';
    if ((SETTINGS_TABS as readonly string[]).includes(tab)) {
      return { name: 'settings', tab: tab as SettingsTab };
    }
  }
  return { name: 'chat' };
}

export const chatHref = '#/';
export function conversationHref(id: string): string {
  return `#/c/${encodeURIComponent(id)}`;
}
export function settingsHref(tab: SettingsTab = 'providers'): string {
  return `#/settings/${tab}`;
}

let hash = $state(typeof location === 'undefined' ? '' : location.hash);
const route = $derived(parseHash(hash));

if (typeof window !== 'undefined') {
  window.addEventListener('hashchange', () => {
    hash = location.hash;
  });
}

export function currentRoute(): Route {
  return route;
}

/** The id of the open conversation, if any. */
export function selectedConversationId(): string | null {
  return route.name === 'conversation' ? route.id : null;
}

/** Goes to `href` (a `#/…` hash); the route updates at once, not on the next `hashchange`. */
export function navigate(href: string): void {
  if (typeof location !== 'undefined' && location.hash !== href) location.hash = href;
  hash = href;
}
