// One running server as its details panel shows it: what it offers (tools, resources,
// prompts), its log, the approval policy the user set for each tool, and "try this tool"
// (`callTool`). The panel holds what it shows; this is its way to the engine.
export {
  callTool,
  serverLogs,
  serverPrompts,
  serverResources,
  serverTools,
  setToolPolicy,
  toolPolicies,
} from '../api';
