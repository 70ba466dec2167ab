// MCP Apps shown in tool cards (src-tauri/src/commands/apps.rs).
import type { AppCall, AppCallOutcome, AppCsp } from '../bindings';
import * as commands from './commands';

/** Registers an App document for its frame; resolves to the token of `mcpapp://localhost/<token>`. */
export function openAppView(html: string, csp: AppCsp, server?: string): Promise<string> {
  return commands.openAppView({ html, csp, server: server ?? null });
}

/** Forgets an App document (its frame is gone). */
export function closeAppView(token: string): Promise<void> {
  return commands.closeAppView({ token });
}

/** Runs an App's `tools/call` on its own server (App rules and approval policy apply). */
export function appCallTool(call: AppCall): Promise<AppCallOutcome> {
  return commands.appCallTool({ call });
}
