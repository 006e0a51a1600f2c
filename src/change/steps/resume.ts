import { errorMessage } from "../../error-message.js";
import { plural } from "../../github/markdown.js";
import { type ChangeStep, siteOf, withResult } from "../context.js";
import { resumeFromCheckpoint } from "../resume.js";

/** Picks up where an earlier, interrupted run of the job got to, when it saved a checkpoint. */
export const resume: ChangeStep = {
  stage: "workspace",
  async run(state, ctx) {
    if (!state.checkpoints) return state;
    try {
      const resumed = await resumeFromCheckpoint({
        ...state.checkpoints,
        base: siteOf(state).workspace.baseSha,
      });
      if (!resumed) return state;
      ctx.events.step(`Resuming from an earlier run's ${plural(resumed.commits.length, "commit")}`);
      return withResult(state, { resumed });
    } catch (error) {
      ctx.events.warning(
        `could not read the job's checkpoint, starting over: ${errorMessage(error)}`,
      );
      return state;
    }
  },
};
