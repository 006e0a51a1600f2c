/**
 * The YAML library, imported when first needed instead of with the code
 * that uses it: it is a good part of what the Action would otherwise load
 * before its first model request, and most runs never read or write YAML.
 * `default` because the package is CommonJS: Node gives its exports both as
 * `default` and by name, the Action's bundle (esbuild) as `default` only.
 */
export type Yaml = typeof import("yaml");

export async function loadYaml(): Promise<Yaml> {
  return (await import("yaml")).default;
}
