import { createTwoFilesPatch } from "diff";

/**
 * A file change as unified-diff lines (two lines of context, no git header
 * noise), for whoever shows what the agent changed: the CLI's log and the
 * job pages. Undefined for a binary file.
 */
export function filePatchLines(
  path: string,
  before: Buffer | null,
  after: Buffer | null,
): string[] | undefined {
  if (isBinary(before) || isBinary(after)) return undefined;
  return createTwoFilesPatch(
    before ? `a/${path}` : "/dev/null",
    after ? `b/${path}` : "/dev/null",
    before?.toString("utf8") ?? "",
    after?.toString("utf8") ?? "",
    undefined,
    undefined,
    { context: 2 },
  )
    .split("\n")
    .filter(
      (line) => line !== "" && !line.startsWith("===") && line !== "\\ No newline at end of file",
    );
}

/** git's test: a NUL byte in the first 8000. */
function isBinary(content: Buffer | null): boolean {
  return content?.subarray(0, 8000).includes(0) === true;
}
