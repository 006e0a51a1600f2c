import { ToolError } from "./define-tool.js";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decodes a file as UTF-8 text, or refuses it: NUL bytes or invalid UTF-8
 * mean a binary file, which would reach the model as noise and could not be
 * edited back byte for byte. The BOM is kept so edits write it back.
 */
export function decodeTextFile(content: Buffer, relative: string): string {
  const binary = new ToolError(
    `${relative} looks like a binary file (NUL bytes or invalid UTF-8); it cannot be shown or edited as text. Use run_shell (e.g. \`file\`, \`xxd | head\`) to inspect it.`,
  );
  if (content.includes(0)) throw binary;
  try {
    return strictUtf8.decode(content);
  } catch {
    throw binary;
  }
}

/** True when the file's lines mostly end in CRLF, so edits should write CRLF too. */
export function usesCrlf(text: string): boolean {
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  if (crlf === 0) return false;
  const lf = text.match(/\n/g)?.length ?? 0;
  return crlf >= lf - crlf;
}

/** Rewrites every line ending (LF or CRLF) as CRLF. */
export function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}

export function toLf(text: string): string {
  return text.replace(/\r\n/g, "\n");
}
