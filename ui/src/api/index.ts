// The engine's commands for the stores in lib/ (components never import this: they go through
// the stores). One module per Rust `commands/<file>.rs`; each wraps the generated functions of
// `commands.ts` (never a command name of its own), so `npm run check` fails where a Rust command
// changed. `ipc.ts` holds the one `call()` underneath and the `IpcError` helpers.
export * from './app';
export * from './apps';
export * from './artifacts';
export * from './assistants';
export * from './attachments';
export * from './backups';
export * from './sync';
export * from './chat';
export * from './compare';
export * from './conversations';
export * from './projects';
export * from './export';
export * from './install';
export * from './interactions';
export * from './knowledge';
export * from './localServer';
export * from './mcpContent';
export * from './models';
export * from './providers';
export * from './runtimes';
export * from './servers';
export * from './serversRun';
export { ERROR_KINDS, isErrorKind, isIpcError, toIpcError } from './ipc';
export * from './desktop';
