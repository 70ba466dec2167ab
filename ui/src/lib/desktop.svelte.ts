// The app on the desktop: what it knows about itself (`appInfo`: name, version) and opening
// links outside the webview (`openExternal`: http(s) and mailto only, in the system browser or
// mail client). Components reach these through here, not through the api/ modules.
export { appInfo, openExternal, openKnowledgeFile } from '../api';
