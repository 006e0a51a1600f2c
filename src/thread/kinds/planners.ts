/**
 * How each kind but a plain request is planned, in one module that
 * kinds/index.ts imports at a kind's first plan: a plain `@agent` request
 * (the Action's usual job) needs none of it before its first model request.
 * One module, not one per kind: each dynamic import is a file to load.
 */
export { fixCiPlanner } from "./fix-ci.js";
export { goPlanner } from "./go.js";
export { planFirst, planPlanner } from "./plan-task.js";
export { reviewPlanner } from "./review.js";
export { updateBranchPlanner } from "./update-branch.js";
