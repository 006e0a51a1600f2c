// The DefinitelyTyped package describes version 8 and pulls in five more
// type packages; the one call patchwright makes is small enough to state here.
declare module "npm-registry-fetch" {
  interface RegistryFetch {
    json(uri: string, options?: Record<string, unknown>): Promise<unknown>;
  }
  const registryFetch: RegistryFetch;
  export default registryFetch;
}
