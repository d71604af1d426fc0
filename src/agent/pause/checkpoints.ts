// Durable runs (issue #30): a run with a run key checkpoints every completed step, and a run started again with the key goes on after the last one.
import { createHash, createHmac, hkdfSync, randomUUID } from 'node:crypto';
import type { ChatMessage } from '../../core/messages';
import { AgentCoreError } from '../../core/agent-core-error';
import type { CheckpointStore } from '../../run-state/checkpoint-store';
import {
	openRunState,
	RunStateError,
	signRunState,
	stateSecretProblem,
	USED_STATE_MEMORY_DAYS,
} from '../../run-state/signed-state';
import type { Redactor } from '../../trace/redact';
import type { AgentResult, FinishReason } from '../../trace/types';
import { canonicalJson } from '../../validation/canonical-json';
import type { AgentConfig } from '../../settings/config';
import {
	openProgress,
	signProgress,
	stateConfigHash,
	type Resumed,
	type RunProgress,
} from './paused-run';
import type { RunAgentOptions } from '../base/run-options';

/** A run key cannot be used as it is given, or its checkpoint cannot be used; `field` is `runKey` (or `stateSecret`). */
export class CheckpointError extends AgentCoreError {
	override readonly name = 'CheckpointError';
	constructor(
		message: string,
		fix: string,
		field: 'runKey' | 'stateSecret' | 'checkpoints' = 'runKey',
		fixInMessage = false,
	) {
		super(message, { field, fix, fixInMessage });
	}
}

/** Longest run key accepted: far above an execution id with its item, or an idempotency key from a request. */
export const MAX_RUN_KEY_LENGTH = 1024;

/**
 * Ends after which a retry goes on from the last completed step instead of getting the same result: what
 * stopped the run lay outside it (the model's endpoint, the clock, a cancel, the shared budget), so trying
 * again may get further. Every other end is the run's own outcome, kept and returned to a retry as it was.
 */
const CONTINUED_AFTER: ReadonlySet<FinishReason> = new Set([
	'llm_error',
	'timeout',
	'cancelled',
	'budget_unavailable',
	'budget_exhausted',
]);

const NEW_KEY_FIX =
	'Give this run a new run key, or retry it with the configuration and input it started with.';

/**
 * What a checkpoint says beside the run's progress or result: whose it is, and the request it answers (the
 * new user message, hashed). Not the history before it: a retry may find a conversation store that has the
 * run's own turn by then, and the run goes on with the conversation it checkpointed anyway.
 */
interface CheckpointStamp {
	run_key: string;
	input_hash: string;
}

/**
 * One durable run: its run key claimed in the store for this attempt, what the key held (a finished
 * result, or progress to go on from), and the writes as the run goes on. Every record is a run state,
 * signed and sealed with the state secret exactly as a paused run's (see paused-run.ts), so a checkpoint
 * holds no secret in clear and nobody can change it unnoticed.
 */
export class DurableRun {
	private constructor(
		private readonly store: CheckpointStore,
		private readonly stamp: CheckpointStamp,
		private readonly attempt: string,
		private readonly secret: string,
		private readonly config: AgentConfig,
		/** What the run key held: the result of a run that already finished, or where to go on from. */
		readonly found: { finished?: AgentResult; resumed?: Resumed },
	) {}

	/**
	 * The durable run of `options.runKey` (undefined without one): its key claimed, so that an earlier
	 * attempt still running stops at its next write, and what the key held checked (signature, seal,
	 * config, request); a key another run holds is left to it. CheckpointError when it does not check out; the store's error when it fails.
	 */
	static async open(
		options: RunAgentOptions,
		config: AgentConfig,
		request: ChatMessage,
	): Promise<DurableRun | undefined> {
		const { runKey, checkpoints: store, stateSecret: secret } = options;
		if (runKey === undefined) return undefined;
		if (typeof runKey !== 'string' || runKey.trim() === '' || runKey.length > MAX_RUN_KEY_LENGTH) {
			throw new CheckpointError(
				`runKey must be text of 1 to ${MAX_RUN_KEY_LENGTH} characters, not ${JSON.stringify(runKey)?.slice(0, 80)}`,
				'Give the run key as text: an execution id and item, or an idempotency key from the request.',
			);
		}
		if (!store)
			throw new CheckpointError(
				'runKey needs a checkpoint store: pass checkpoints (RedisCheckpoints across processes and n8n workers, MemoryCheckpoints in one process)',
				'Pass checkpoints with runKey.',
				'checkpoints',
			);
		const keyProblem = stateSecretProblem(secret);
		if (keyProblem) {
			const problem = keyProblem
				.replace(/^pausing for approval needs/, 'they need')
				.replace('alter the paused run', 'alter a checkpoint');
			throw new CheckpointError(
				`a durable run's checkpoints are sealed and signed like a paused run's state: ${problem}`,
				'Set a state secret of at least 16 characters.',
				'stateSecret',
				true,
			);
		}
		const stamp: CheckpointStamp = {
			run_key: runKey,
			input_hash: createHash('sha256').update(canonicalJson(request)).digest('hex'),
		};
		const attempt = randomUUID();
		const { taken, record } = await store.claim(
			runKey,
			attempt,
			fingerprint(stamp, secret!, config),
		);
		// Another run's key is not taken over: its record says why (another config, request or secret).
		const found = record === undefined ? {} : openCheckpoint(record, stamp, secret!, config);
		if (!taken)
			throw new CheckpointError(
				`run key "${runKey}" is held by another run (another configuration, request or state secret) that has not recorded a step yet`,
				NEW_KEY_FIX,
			);
		return new DurableRun(store, stamp, attempt, secret!, config, found);
	}

	/** Records a completed step: a run started again with the key goes on after it. */
	async saveStep(progress: RunProgress, redactor: Redactor): Promise<void> {
		await this.write(this.seal(progress, redactor));
	}

	/**
	 * Seals the progress with the call about to run, now (before the loop breaker and the counters take the
	 * call in), and returns the write to make once the call is sure to run: a run started again then knows
	 * that this call started, and that its end was never recorded.
	 */
	beforeCall(progress: RunProgress, redactor: Redactor): () => Promise<void> {
		const record = this.seal(progress, redactor);
		return () => this.write(record);
	}

	/**
	 * Keeps a finished run's result for a retry, unless it ended on something outside the run (CONTINUED_AFTER): its
	 * last step then stays the place to go on from.
	 */
	async finish(result: AgentResult): Promise<void> {
		if (CONTINUED_AFTER.has(result.finish_reason)) return;
		const state = signRunState(
			{ checkpoint: { ...this.stamp, finished: true }, result },
			this.secret,
			stateConfigHash(this.config),
		);
		await this.write(JSON.stringify(state));
	}

	/**
	 * The key a call's target can deduplicate it by: the same for this call of this step of this run (the
	 * args as the model asked for them) whenever it is sent, other for any other call. An HMAC under a key
	 * derived from the state secret, so nobody can tell the run key or the args from it.
	 */
	idempotencyKey(step: number, tool: string, args: Record<string, unknown>): string {
		const hex = createHmac('sha256', derivedKey(this.secret, 'idempotency key'))
			.update(canonicalJson([this.stamp.run_key, step, tool, args]))
			.digest('hex');
		return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
	}

	private seal(progress: RunProgress, redactor: Redactor): string {
		return JSON.stringify(
			signProgress(progress, redactor, this.secret, this.config, { checkpoint: this.stamp }),
		);
	}

	private async write(record: string): Promise<void> {
		if (await this.store.write(this.stamp.run_key, this.attempt, record)) return;
		throw new CheckpointError(
			`run key "${this.stamp.run_key}" was taken over by another attempt of this run (a retry, or a job ` +
				`picked up again while this one still ran), or its checkpoint expired: this attempt stops here so ` +
				`that no step runs twice`,
			'Nothing to fix when a retry took over: the other attempt goes on with the run. Otherwise give checkpoints a longer TTL than a run takes.',
		);
	}
}

/** Which run a key is kept for, as the store compares it: its key, config and request, under the state secret (an HMAC, so it tells nothing of them). */
function fingerprint(stamp: CheckpointStamp, secret: string, config: AgentConfig): string {
	return createHmac('sha256', derivedKey(secret, 'run fingerprint'))
		.update(canonicalJson([stamp.run_key, stateConfigHash(config), stamp.input_hash]))
		.digest('hex');
}

/** A key for `use`, derived from the state secret (HKDF-SHA256) as the signing and sealing keys are, and apart from them. */
function derivedKey(secret: string, use: string): Buffer {
	return Buffer.from(
		hkdfSync('sha256', secret, 'agent-core run_state v2', `agent-core ${use}`, 32),
	);
}

/** What a stored record holds, once it checks out: a finished run's result, or progress to go on from. */
function openCheckpoint(
	record: string,
	stamp: CheckpointStamp,
	secret: string,
	config: AgentConfig,
): DurableRun['found'] {
	const runKey = stamp.run_key;
	const claimed = parseRecord(record);
	// The signature is checked against the hash the record names; whether that is this config's comes after.
	const claimedHash =
		typeof claimed?.payload?.config_hash === 'string' ? claimed.payload.config_hash : '';
	const age = { maxAgeDays: USED_STATE_MEMORY_DAYS };
	let opened: {
		checkpoint?: Partial<CheckpointStamp>;
		result?: AgentResult;
		progress?: RunProgress;
	};
	try {
		if (claimed?.payload && 'result' in claimed.payload)
			opened = openRunState<{ checkpoint?: CheckpointStamp; result: AgentResult }>(
				claimed,
				secret,
				claimedHash,
				age,
			);
		else {
			const { progress, payload } = openProgress(claimed, secret, claimedHash, age);
			opened = { checkpoint: payload.checkpoint as CheckpointStamp | undefined, progress };
		}
	} catch (error) {
		if (!(error instanceof RunStateError)) throw error;
		const why = error.message.replace(/^run_state /, '').split(/[:;]/)[0];
		throw new CheckpointError(
			`run key "${runKey}" has a checkpoint that does not check out: it ${why}`,
			'Give every process that runs with this run key the same state secret; or give this run a new run key.',
		);
	}
	if (opened.checkpoint?.run_key !== runKey)
		throw new CheckpointError(
			`run key "${runKey}" holds a record that is not this run key's checkpoint: it was moved there from another key`,
			NEW_KEY_FIX,
		);
	if (claimedHash !== stateConfigHash(config)) {
		throw new CheckpointError(
			`run key "${runKey}" has a checkpoint of a run with another configuration: a run goes on only with the configuration it started with (the model may differ)`,
			NEW_KEY_FIX,
		);
	}
	if (opened.checkpoint.input_hash !== stamp.input_hash) {
		throw new CheckpointError(
			`run key "${runKey}" has a checkpoint of a run that answered another request (the prompt, or the ` +
				`last user message): a run goes on only with the request it started with`,
			NEW_KEY_FIX,
		);
	}
	if (opened.result) return { finished: opened.result };
	// Calls part way through go on at their step: one that started and never ended runs again only when it may (run-calls.ts).
	const { pending, ...progress } = opened.progress!;
	return { resumed: { paused: progress } };
}

function parseRecord(record: string): { payload?: Record<string, unknown> } | undefined {
	try {
		const value: unknown = JSON.parse(record);
		return typeof value === 'object' && value !== null
			? (value as { payload?: Record<string, unknown> })
			: undefined;
	} catch {
		return undefined;
	}
}
