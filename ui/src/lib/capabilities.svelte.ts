// What this client offers MCP servers: the folders advertised as roots (`listRoots`,
// `setRoots`) and the provider and model that answer their sampling requests (`samplingModel`,
// `setSamplingModel`). The settings views hold what they show; this is their way to the engine.
export { listRoots, samplingModel, setRoots, setSamplingModel } from '../api';
