/**
 * A problem the user fixes in the workflow file, its inputs or the
 * repository. Its message is shown as is (`input prompt: required ...`);
 * any other error is reported as unexpected.
 */
export class ActionFailure extends Error {
  override name = "ActionFailure";
}
