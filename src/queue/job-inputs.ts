import * as z from "../zod.js";
import type { JobInputSchemas, JobQueue, JobRecord, NewJob, StoredJobRecord } from "./types.js";

/**
 * Where the queue reads a job's inputs with its kind's schema: when a job
 * is submitted (what is stored is the parsed input) and when a stored
 * record is handed to a worker (records written by any earlier version
 * included). A kind the queue does not hold, or an input its schema
 * refuses, is a JobInputError: the submit is refused, or that one job fails
 * (logged through the queue's onError) while the worker goes on.
 */

export class JobInputError extends Error {
  override name = "JobInputError";
}

/** The job with its input as its kind's schema reads it. Throws JobInputError. */
export function parseNewJob(schemas: JobInputSchemas, job: NewJob): NewJob {
  const schema = schemaOf(schemas, job.kind);
  if (!schema) throw new JobInputError(notRun(job.kind));
  const parsed = z.safeParse(schema, job.input);
  if (!parsed.success) {
    throw new JobInputError(`a "${job.kind}" job's input ${issuesOf(parsed.error)}`);
  }
  return { ...job, input: parsed.data };
}

export type ReadRecord = { ok: true; record: JobRecord } | { ok: false; error: JobInputError };

/** The record with every input read with its kind's schema, or why it cannot be run. */
export function readRecord(schemas: JobInputSchemas, record: StoredJobRecord): ReadRecord {
  const unreadable = (why: string): ReadRecord => ({
    ok: false,
    error: new JobInputError(`job ${record.id}: ${why}`),
  });
  const schema = schemaOf(schemas, record.kind);
  if (!schema) return unreadable(notRun(record.kind));
  const inputs: unknown[] = [];
  for (const [index, input] of record.inputs.entries()) {
    const parsed = z.safeParse(schema, input);
    if (!parsed.success) {
      const which = record.inputs.length > 1 ? ` ${index + 1} of ${record.inputs.length}` : "";
      return unreadable(`its "${record.kind}" input${which} ${issuesOf(parsed.error)}`);
    }
    inputs.push(parsed.data);
  }
  return { ok: true, record: { ...record, inputs } };
}

/**
 * The queue typed for S's kinds: every job it stores was parsed with S's
 * schemas (parseNewJob) and every record it hands a worker read with them
 * (readRecord), which the types inside the queue, generic over kinds, cannot say.
 */
export function queueOf<S extends JobInputSchemas>(queue: JobQueue, _schemas: S): JobQueue<S> {
  return queue as unknown as JobQueue<S>;
}

function schemaOf(schemas: JobInputSchemas, kind: string): z.core.$ZodType | undefined {
  return Object.hasOwn(schemas, kind) ? schemas[kind] : undefined;
}

function notRun(kind: string): string {
  return `this version does not run "${kind}" jobs`;
}

/** The first few problems, each with the field it is in. */
function issuesOf(error: z.core.$ZodError): string {
  const issues = error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(the input)"}: ${issue.message}`);
  return `does not match its schema (${issues.join("; ")})`;
}
