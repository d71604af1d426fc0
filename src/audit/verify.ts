import { configHash } from '../run-state/signed-state';
import { baseLink, nextLink, schemaHash } from '../trace/digest';
import type { AuditRecord } from './record';

/** What `audit verify` found: the chain recomputed from what is stored, and where it first disagrees. */
export interface VerifyReport {
  run_id: string;
  ok: boolean;
  steps: number;
  /** The chain's head recomputed from the stored config, tool schemas and steps. */
  recomputed_digest: string;
  stored_digest: string;
  /** The first stored part that does not match its recorded hash: `config`, `tool <name>`, `step <n>` or `trace_digest`. */
  first_mismatch?: { part: string; detail: string };
}

/**
 * Recomputes a stored run's hash chain (see traceChain) from the stored parts and compares it, part by
 * part, with the hashes stored beside them: a changed config, tool schema or step is named, the first one
 * first. With `expectedDigest` (the `trace_digest` the run's output carried, kept elsewhere), a record whose
 * hashes were all rewritten to match a change is caught too.
 */
export function verifyRecord(record: AuditRecord, expectedDigest?: string): VerifyReport {
  let mismatch = firstMismatch(record);
  let link = baseLink({ configHash: configHash(record.config), toolSchemaHashes: Object.fromEntries(record.tools.map((tool) => [tool.name, schemaHash(tool.schema)])) });
  if (!mismatch && link !== record.chain_base) mismatch = { part: 'chain_base', detail: 'the chain\'s first link does not match the config and tool schema hashes' };
  for (const { step, link: stored } of record.steps) {
    link = nextLink(link, step);
    if (!mismatch && link !== stored) mismatch = { part: `step ${step.step}`, detail: `step ${step.step} does not match its recorded link: it was changed after the run` };
  }
  if (!mismatch && link !== record.trace_digest) mismatch = { part: 'trace_digest', detail: 'the stored trace_digest is not the chain\'s head' };
  if (!mismatch && expectedDigest !== undefined && expectedDigest !== link) {
    mismatch = { part: 'trace_digest', detail: `the chain's head ${link} is not the trace_digest given (${expectedDigest}): the stored run is not the run that output it` };
  }
  return {
    run_id: record.run_id,
    ok: !mismatch,
    steps: record.steps.length,
    recomputed_digest: link,
    stored_digest: record.trace_digest,
    ...(mismatch ? { first_mismatch: mismatch } : {}),
  };
}

/** The config or a tool schema that no longer matches the hash stored with it. */
function firstMismatch(record: AuditRecord): VerifyReport['first_mismatch'] {
  if (configHash(record.config) !== record.config_hash) return { part: 'config', detail: 'the stored config does not match its recorded hash: it was changed after the run' };
  const tool = record.tools.find((candidate) => schemaHash(candidate.schema) !== candidate.schema_hash);
  return tool ? { part: `tool ${tool.name}`, detail: `the stored schema of tool ${tool.name} does not match its recorded hash` } : undefined;
}
