/**
 * A file as the model saw it. read_file shows every line without its CR and
 * models write "\n" whatever the file uses, so edits match on LF text; the
 * positions found there are mapped back to the text on disk, and each line
 * written keeps the ending the replaced line had. A file with CRs but no LF
 * at all (classic Mac OS) is shown split at its CRs, so each CR is an LF here.
 */
export interface LfView {
  /** The file with every CRLF turned into LF (every CR, for a CR-only file). */
  text: string;
  /** Indices in `text` of the LFs that were CRLF on disk, ascending. */
  crlfAt: number[];
  /** Every line break on disk is a lone CR: same length, so positions map one to one. */
  crOnly: boolean;
}

export function lfView(original: string): LfView {
  if (!original.includes("\n") && original.includes("\r")) {
    return { text: original.replace(/\r/g, "\n"), crlfAt: [], crOnly: true };
  }
  const crlfAt: number[] = [];
  const text = original.replace(/\r\n/g, (_crlf, offset: number) => {
    crlfAt.push(offset - crlfAt.length);
    return "\n";
  });
  return { text, crlfAt, crOnly: false };
}

/** How many CRLFs lie before `index` of the LF text. */
function crlfsBefore(view: LfView, index: number): number {
  let low = 0;
  let high = view.crlfAt.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((view.crlfAt[mid] ?? 0) < index) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The index on disk of `index` in the LF text. A position just before an LF
 * that was CRLF maps to before the CR, so a match ending at a line's end
 * leaves the CR with the line ending.
 */
export function toOriginalIndex(view: LfView, index: number): number {
  return index + crlfsBefore(view, index);
}

function wasCrlf(view: LfView, lfIndex: number): boolean {
  return view.crlfAt[crlfsBefore(view, lfIndex)] === lfIndex;
}

/**
 * `replacement` (LF text) with the line endings of the region [start, end)
 * of the LF text it replaces: its k-th line break takes the region's k-th
 * ending, and breaks beyond those take the region's last one (or, for a
 * region within one line, that line's own ending).
 */
export function withRegionEndings(
  view: LfView,
  start: number,
  end: number,
  replacement: string,
): string {
  if (view.crOnly) return replacement.replace(/\n/g, "\r");
  if (view.crlfAt.length === 0 || !replacement.includes("\n")) return replacement;
  const endings: boolean[] = [];
  for (
    let i = view.text.indexOf("\n", start);
    i !== -1 && i < end;
    i = view.text.indexOf("\n", i + 1)
  ) {
    endings.push(wasCrlf(view, i));
  }
  const fallback = endings.at(-1) ?? lineEnding(view, start, end);
  let k = 0;
  return replacement.replace(/\n/g, () => ((endings[k++] ?? fallback) ? "\r\n" : "\n"));
}

/** The ending of the line holding [start, end): its own, else the previous line's (last line). */
function lineEnding(view: LfView, start: number, end: number): boolean {
  const next = view.text.indexOf("\n", end);
  if (next !== -1) return wasCrlf(view, next);
  const previous = view.text.lastIndexOf("\n", start - 1);
  return previous !== -1 && wasCrlf(view, previous);
}
