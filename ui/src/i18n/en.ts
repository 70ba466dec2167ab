// The source catalogue. Keys are stable identifiers; `{name}` marks a placeholder.
// zh-CN.ts must have exactly the same keys (the compiler enforces it).
const en = {
  'app.name': 'Switchboard',

  'sidebar.label': 'Sidebar',
  'sidebar.newChat': 'New chat',
  'sidebar.newChatHint': 'New chat ({shortcut})',
  'sidebar.conversations': 'Conversations',
  'sidebar.pinned': 'Pinned',
  'sidebar.today': 'Today',
  'sidebar.yesterday': 'Yesterday',
  'sidebar.previous7Days': 'Previous 7 days',
  'sidebar.older': 'Older',
  'sidebar.loading': 'Loading…',
  'sidebar.empty': 'No conversations yet.',
  'sidebar.loadMore': 'Load more',
  'sidebar.settings': 'Settings',

  'conversation.untitled': 'Untitled',
  'conversation.titleLabel': 'Conversation title',
  'conversation.rename': 'Rename “{title}”',
  'conversation.pin': 'Pin “{title}”',
  'conversation.delete': 'Delete “{title}”',
  'conversation.actionRename': 'Rename',
  'conversation.actionPin': 'Pin',
  'conversation.actionUnpin': 'Unpin',
  'conversation.actionDelete': 'Delete',

  'chat.newChat': 'New chat',
  'chat.onboardingTitle': 'Add a model provider to start chatting',
  'chat.onboardingBody':
    'Switchboard talks to chat models through providers such as Ollama, an OpenAI-compatible server, Anthropic, Gemini or DashScope. Open Settings → Providers and add one; your MCP servers can then lend their tools to the model.',
  'chat.onboardingAction': 'Set up a provider',

  'composer.label': 'Message',
  'composer.placeholder': 'Message Switchboard…',
  'composer.send': 'Send',
  'composer.keyHint': 'Enter to send, Shift+Enter for a new line',
  'composer.needsProvider': 'Add a model provider in Settings before sending messages.',

  'settings.title': 'Settings',
  'settings.sections': 'Settings sections',
  'settings.providers': 'Providers',
  'settings.servers': 'MCP Servers',
  'settings.general': 'General',
  'settings.providersSoonTitle': 'Model providers are coming soon',
  'settings.providersSoonBody':
    'This is where you will add Ollama, OpenAI-compatible, Anthropic, Gemini and DashScope providers and pick their models.',
  'settings.serversSoonTitle': 'MCP servers are coming soon',
  'settings.serversSoonBody':
    'This is where you will connect Model Context Protocol servers so that models can use their tools.',
  'settings.language': 'Language',
  'settings.theme': 'Theme',
  'settings.themeSystem': 'System',
  'settings.themeLight': 'Light',
  'settings.themeDark': 'Dark',
  'settings.appearance': 'Appearance',

  'about.title': 'About',
  'about.version': 'Version',
  'about.dataDir': 'Data directory',
  'about.logDir': 'Log directory',
  'about.database': 'Database',
  'about.schemaVersion': 'Schema version',
  'about.loading': 'Loading…',
  'about.unavailable': 'Not available',

  'error.dismiss': 'Dismiss',
  'error.not_found': 'Not found',
  'error.invalid_input': 'Invalid input',
  'error.corrupt_database': 'The database is damaged',
  'error.database_locked': 'The database is busy',
  'error.newer_schema': 'The database is from a newer version of Switchboard',
  'error.io': 'A file could not be read or written',
  'error.internal': 'Something went wrong',
} as const;

export default en;
