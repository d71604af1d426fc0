// A new audit row: the run's output, its chain's links and replies beside the steps, sealed by the record chain.
import type { AgentResult } from '../trace/types';
import type { AuditOrigin, AuditRecord, AuditTool, ForkedFrom } from './record';
import type { ParentRun } from './parent-run';
import { sealRecord } from './record-chain';

/** The stored shape of a run's output, with its chain's links and replies beside the steps, sealed by the record chain. */
export function auditRecord(parts: {
	runId: string;
	createdAt: Date;
	origin?: AuditOrigin;
	sessionId?: string;
	result: AgentResult;
	config: Record<string, unknown>;
	configHash: string;
	tools: AuditTool[];
	links: string[];
	replies: ReadonlyMap<number, string>;
	forkedFrom?: ForkedFrom;
	/** A sub-agent's run: the parent's run and call it ran under (issue #52). */
	parentRun?: ParentRun;
}): AuditRecord {
	const { result, links } = parts;
	return sealRecord({
		run_id: parts.runId,
		created_at: parts.createdAt,
		...(parts.origin ?? {}),
		...(parts.sessionId !== undefined ? { session_id: parts.sessionId } : {}),
		model: result.model,
		provider: result.provider,
		config: parts.config,
		config_hash: parts.configHash,
		tools: parts.tools,
		chain_base: links[0],
		steps: result.trace.map((step, index) => ({
			step,
			link: links[index + 1],
			...(parts.replies.has(step.step) ? { reply: parts.replies.get(step.step) } : {}),
		})),
		messages: result.messages,
		finish_reason: result.finish_reason,
		...(result.stop_detail !== undefined ? { stop_detail: result.stop_detail } : {}),
		final_answer: result.final_answer,
		...('final_output' in result ? { final_output: result.final_output } : {}),
		usage: result.usage,
		cost: result.cost_details ?? null,
		...(parts.forkedFrom ? { forked_from: forkedFromOf(parts.forkedFrom) } : {}),
		...(result.plan ? { plan: result.plan } : {}),
		...(parts.parentRun ? { parent_run: parentRunOf(parts.parentRun) } : {}),
		metrics: result.metrics,
		elapsed_ms: result.elapsed_ms,
		trace_digest: result.trace_digest,
	});
}

/** The origin as stored: run and step, and the unverified mark when the fork was of a run that did not verify. */
function forkedFromOf(origin: ForkedFrom): ForkedFrom {
	const { run_id, step } = origin;
	return origin.verified === false
		? { run_id, step, verified: false, mismatch: String(origin.mismatch) }
		: { run_id, step };
}

/** The link as stored: run, step and, in a batch, the call's number (nothing else the options may carry). */
function parentRunOf({ run_id, step, call }: ParentRun): ParentRun {
	return { run_id, step, ...(call !== undefined ? { call } : {}) };
}
