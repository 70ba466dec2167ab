// Moving conversations in and out of the app: exporting them (Markdown, JSON, HTML) with
// progress (`exportConversations`), and importing a file after a dry run (`previewImport`,
// then `importConversations`). The dialogs hold what they show; this is their way to the engine.
export { exportConversations, importConversations, previewImport } from '../api';
