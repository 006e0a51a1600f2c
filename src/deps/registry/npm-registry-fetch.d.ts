// The DefinitelyTyped package describes version 8 and pulls in five more
// type packages; the two calls patchwright makes are small enough to state here.
declare module "npm-registry-fetch" {
  interface RegistryFetch {
    (
      uri: string,
      options?: Record<string, unknown>,
    ): Promise<{ buffer(): Promise<Buffer>; headers: { get(name: string): string | null } }>;
    json(uri: string, options?: Record<string, unknown>): Promise<unknown>;
  }
  const registryFetch: RegistryFetch;
  export default registryFetch;
}
