import type { JobRecord, JobResult, RunningJob } from "../../queue/types.js";
import type { WorkerServices } from "../worker-services.js";
import type { JobInputs, JobKind, KindJob, KindRecord } from "./inputs.js";

/**
 * A kind of job, defined once: what a worker does with a record of it (its
 * inputs already read with the kind's schema, see inputs.ts), and how a job
 * of it out of attempts is reported. Adding a kind: its input schema in
 * requests/ and in inputs.ts, a file here with its definition, a line in
 * index.ts (the compiler asks for it).
 */
export interface JobKindDefinition<K extends JobKind> {
  kind: K;
  run(job: KindJob<K>, services: WorkerServices): Promise<JobResult>;
  /**
   * Where a job out of attempts is reported (its requester's thread); none:
   * the log says it, as for every kind.
   */
  giveUp?(record: KindRecord<K>, reason: string, services: WorkerServices): Promise<void>;
}

/**
 * A definition as the worker's handler calls it, for a record of any kind:
 * looked up by the record's kind, whose inputs the queue read with that
 * kind's schema.
 */
export interface AnyJobKind {
  kind: JobKind;
  run(job: RunningJob<JobInputs>, services: WorkerServices): Promise<JobResult>;
  giveUp?(record: JobRecord<JobInputs>, reason: string, services: WorkerServices): Promise<void>;
}
