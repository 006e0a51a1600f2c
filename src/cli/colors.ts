/** Terminal colours, off when the output is not a terminal or NO_COLOR is set. */
export interface Colors {
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  bold(text: string): string;
}

const code = (open: number, close: number) => (text: string) =>
  `\u001b[${open}m${text}\u001b[${close}m`;

export function createColors(enabled: boolean): Colors {
  if (!enabled) {
    const plain = (text: string) => text;
    return { dim: plain, red: plain, green: plain, yellow: plain, cyan: plain, bold: plain };
  }
  return {
    dim: code(2, 22),
    red: code(31, 39),
    green: code(32, 39),
    yellow: code(33, 39),
    cyan: code(36, 39),
    bold: code(1, 22),
  };
}
