// Puts the app's module-level state back to a fresh start between tests.
import { setLang } from '../i18n/index.svelte';
import { artifacts } from '../lib/artifacts.svelte';
import { assistants } from '../lib/assistants.svelte';
import { chat } from '../lib/chat.svelte';
import { emptyState } from '../lib/chatState';
import { conversations } from '../lib/conversations.svelte';
import { deletions } from '../lib/deletions.svelte';
import { clearErrors } from '../lib/errors.svelte';
import { resetInstall } from '../lib/install.svelte';
import { interactions } from '../lib/interactions.svelte';
import { models } from '../lib/models.svelte';
import { providers } from '../lib/providers.svelte';
import { readOnlyTools } from '../lib/readOnlyTools.svelte';
import { navigate } from '../lib/router.svelte';
import { compare } from '../lib/compare.svelte';
import { projects } from '../lib/projects.svelte';
import { forgetAppInfo } from '../lib/desktop.svelte';
import { servers } from '../lib/servers.svelte';
import { setTheme } from '../lib/theme.svelte';
import { clientSecrets } from './fakeServers';

export function resetAppState(): void {
  forgetAppInfo();
  // The chat on screen: a new App must not start from the last test's branch.
  chat.conversationId = null;
  chat.state = emptyState();
  chat.hasOlder = false;
  deletions.reset();
  artifacts.close();
  conversations.reset();
  servers.reset();
  interactions.reset();
  providers.reset();
  assistants.reset();
  projects.reset();
  compare.reset();
  readOnlyTools.reset();
  models.reset();
  resetInstall();
  clearErrors();
  navigate('#/');
  setLang('en');
  setTheme('system');
  localStorage.clear();
  clientSecrets.clear();
}
