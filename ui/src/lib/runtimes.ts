// The runtimes Switchboard brings for servers, for Settings → General → Runtimes.
export { installRuntime, removeRuntime, runtimesOverview, setRuntimesIndex } from '../api';
