/**
 * Expands shell-style braces ("*.{ts,tsx}") into separate globs, because git
 * pathspecs do not support them. Nested braces are expanded recursively.
 */
export function expandBraces(glob: string): string[] {
  const open = glob.indexOf("{");
  if (open === -1) return [glob];
  let depth = 0;
  const commas: number[] = [];
  for (let i = open; i < glob.length; i++) {
    const c = glob[i];
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) {
      if (commas.length === 0) return [glob];
      const bounds = [open, ...commas, i];
      const head = glob.slice(0, open);
      const tail = glob.slice(i + 1);
      const results: string[] = [];
      for (let k = 0; k + 1 < bounds.length; k++) {
        const option = glob.slice((bounds[k] ?? 0) + 1, bounds[k + 1]);
        results.push(...expandBraces(head + option + tail));
      }
      return results;
    } else if (c === "," && depth === 1) commas.push(i);
  }
  return [glob];
}

/**
 * "*.ts, *.tsx" as "{*.ts,*.tsx}": models list globs with commas, which a
 * glob would take as part of one file name and match nothing.
 */
export function commaListToBraces(glob: string): string {
  if (!glob.includes(",") || glob.includes("{")) return glob.trim();
  const parts = glob
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  return parts.length > 1 ? `{${parts.join(",")}}` : (parts[0] ?? glob);
}
