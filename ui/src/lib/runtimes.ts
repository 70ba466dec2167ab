// The runtimes Switchboard brings for servers, for Settings → General → Runtimes.
export { installRuntime, removeRuntime, runtimesOverview, setPackageSources } from '../api';
