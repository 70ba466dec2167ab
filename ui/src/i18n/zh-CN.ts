import type en from './en';

// Same keys as en.ts, no more and no fewer; placeholders must match too (a test checks that).
const zhCN: Record<keyof typeof en, string> = {
  'app.name': 'Switchboard',

  'sidebar.label': '侧边栏',
  'sidebar.newChat': '新对话',
  'sidebar.newChatHint': '新对话（{shortcut}）',
  'sidebar.conversations': '对话',
  'sidebar.pinned': '已置顶',
  'sidebar.today': '今天',
  'sidebar.yesterday': '昨天',
  'sidebar.previous7Days': '过去 7 天',
  'sidebar.older': '更早',
  'sidebar.loading': '加载中…',
  'sidebar.empty': '还没有对话。',
  'sidebar.loadMore': '加载更多',
  'sidebar.settings': '设置',

  'conversation.untitled': '未命名',
  'conversation.titleLabel': '对话标题',
  'conversation.rename': '重命名“{title}”',
  'conversation.pin': '置顶“{title}”',
  'conversation.delete': '删除“{title}”',
  'conversation.actionRename': '重命名',
  'conversation.actionPin': '置顶',
  'conversation.actionUnpin': '取消置顶',
  'conversation.actionDelete': '删除',

  'chat.newChat': '新对话',
  'chat.onboardingTitle': '添加模型服务商即可开始对话',
  'chat.onboardingBody':
    'Switchboard 通过模型服务商与聊天模型通信，例如 Ollama、OpenAI 兼容服务、Anthropic、Gemini 或 DashScope（通义）。请前往“设置 → 模型服务商”添加一个；之后你的 MCP 服务器就能把工具提供给模型使用。',
  'chat.onboardingAction': '配置模型服务商',

  'composer.label': '消息',
  'composer.placeholder': '给 Switchboard 发消息…',
  'composer.send': '发送',
  'composer.keyHint': 'Enter 发送，Shift+Enter 换行',
  'composer.needsProvider': '请先在设置中添加模型服务商，然后才能发送消息。',

  'settings.title': '设置',
  'settings.sections': '设置分区',
  'settings.providers': '模型服务商',
  'settings.servers': 'MCP 服务器',
  'settings.general': '通用',
  'settings.providersSoonTitle': '模型服务商功能即将推出',
  'settings.providersSoonBody':
    '你将可以在这里添加 Ollama、OpenAI 兼容服务、Anthropic、Gemini 和 DashScope 等服务商，并选择要使用的模型。',
  'settings.serversSoonTitle': 'MCP 服务器功能即将推出',
  'settings.serversSoonBody': '你将可以在这里连接 Model Context Protocol（MCP）服务器，让模型使用它们提供的工具。',
  'settings.language': '语言',
  'settings.theme': '主题',
  'settings.themeSystem': '跟随系统',
  'settings.themeLight': '浅色',
  'settings.themeDark': '深色',
  'settings.appearance': '外观',

  'about.title': '关于',
  'about.version': '版本',
  'about.dataDir': '数据目录',
  'about.logDir': '日志目录',
  'about.database': '数据库',
  'about.schemaVersion': '数据库结构版本',
  'about.loading': '加载中…',
  'about.unavailable': '不可用',

  'error.dismiss': '关闭',
  'error.not_found': '未找到',
  'error.invalid_input': '输入无效',
  'error.corrupt_database': '数据库已损坏',
  'error.database_locked': '数据库正忙',
  'error.newer_schema': '数据库来自更新版本的 Switchboard',
  'error.io': '无法读取或写入文件',
  'error.internal': '出现了问题',
};

export default zhCN;
