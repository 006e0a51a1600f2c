import { plainStep } from "../github/markdown.js";
import type { Spinner } from "./render.js";

/**
 * Job steps ("Verifying: `npm test`") as progress lines, "Verifying: npm
 * test…", with the step on the status line (and its time so far) until
 * whatever comes next. The job writes steps as Markdown, for the App's
 * tracking comment; a terminal shows them plain.
 */
export function createStepReporter(out: {
  write(text: string): void;
  status: Spinner;
}): (step: string, note?: string) => void {
  return (step, note) => {
    const text = plainStep(step);
    out.status.stop();
    if (note) {
      // Said once, and kept on the status line while the step runs on. A
      // note is prose with several code spans (a step holds one command).
      const said = note.replace(/`([^`\n]*)`/g, "$1");
      out.write(`  ⚠ ${said}\n`);
      out.status.start(`${text} · ${said.split(". ")[0]}`);
      return;
    }
    out.write(`${text}…\n`);
    out.status.start(text);
  };
}
