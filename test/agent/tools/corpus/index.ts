import type { CorpusCase } from "./case.js";
import { basicEdits } from "./edits-basic.js";
import { driftEdits } from "./edits-drift.js";
import { guardedEdits } from "./edits-guards.js";
import { fileAndSearchCases } from "./files-paths.js";
import { nearMissCases } from "./near-misses.js";
import { nextStepCases } from "./next-steps.js";
import { quoteAndIndentCases } from "./quotes-indent.js";
import { regexDialectCases } from "./regex-dialect.js";
import { staleCases } from "./stale-shell.js";

export const corpus: CorpusCase[] = [
  ...basicEdits,
  ...driftEdits,
  ...guardedEdits,
  ...nearMissCases,
  ...fileAndSearchCases,
  ...staleCases,
  ...quoteAndIndentCases,
  ...regexDialectCases,
  ...nextStepCases,
];
