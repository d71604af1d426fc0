import { createHmac, hkdfSync, randomUUID, timingSafeEqual } from 'node:crypto';
import { AgentCoreError } from '../core/agent-core-error';
import { canonicalJson } from '../validation/canonical-json';
import { stateSizeProblem, MAX_STATE_CHARACTERS } from './state-size';

/**
 * A paused run's state, signed so that nobody can change it on its way through a workflow (issue #18):
 * `{ v: 2, payload, signature }`, the signature HMAC-SHA256 over the payload's canonical JSON, hex, under a
 * key derived from the state secret. The payload says which config it was made for (`config_hash`), when
 * (`created_at`, checked against a maximum age) and carries a one-time `id`.
 */
export interface SignedRunState<Payload> {
	v: 2;
	payload: Payload & RunStateStamp;
	signature: string;
}

/** What every state carries besides its payload. */
export interface RunStateStamp {
	id: string;
	config_hash: string;
	created_at: string;
}

/**
 * A run state that cannot be used, and why; `field` is always `run_state`. Its messages say what to do, as
 * `fix` does for the usual case (or `options.fix`, given for another).
 */
export class RunStateError extends AgentCoreError {
	override readonly name = 'RunStateError';
	declare readonly field: 'run_state';
	constructor(message: string, options: { fix?: string; cause?: unknown } = {}) {
		super(message, {
			field: 'run_state',
			...(options.fix === undefined
				? {
						fix: "Pass run_state exactly as the paused run's output gave it, with the settings the run paused with.",
						fixInMessage: true,
					}
				: { fix: options.fix }),
			...('cause' in options ? { cause: options.cause } : {}),
		});
	}
}

/** Shorter than this, a signing key is refused: it could be guessed. */
export const MIN_SECRET_LENGTH = 16;
/** With fewer different characters than this (16 spaces, "abababab…"), a signing key is refused too. */
export const MIN_SECRET_DISTINCT_CHARACTERS = 8;

/** How long a used state is remembered (see UsedStates): a state may not live longer, or it could be replayed. */
export const USED_STATE_MEMORY_DAYS = 30;

/** A state made this far in the future is refused: more than the clocks of two machines may disagree. */
export const CLOCK_SKEW_MS = 5 * 60_000;

const DAY_MS = 86_400_000;

/** What is wrong with a signing key, or undefined when it is a real secret. Never quotes the key. */
export function stateSecretProblem(secret: string | undefined): string | undefined {
	const length = typeof secret === 'string' ? [...secret].length : 0;
	const distinct = typeof secret === 'string' ? new Set(secret).size : 0;
	if (length >= MIN_SECRET_LENGTH && distinct >= MIN_SECRET_DISTINCT_CHARACTERS) return undefined;
	const found =
		length === 0
			? 'none is set'
			: `this one has ${length} characters, ${distinct} of them different`;
	return (
		`pausing for approval needs a signing key of at least ${MIN_SECRET_LENGTH} characters, ` +
		`${MIN_SECRET_DISTINCT_CHARACTERS} of them different, so that nobody can guess it and alter the ` +
		`paused run (${found}): ` +
		'generate one with `openssl rand -hex 32` and set it as AGENT_CORE_STATE_SECRET for the CLI, in an ' +
		'"Agent Core: Run State API" credential on the node, or as stateSecret for the library'
	);
}

/**
 * One key per use, derived from the state secret (HKDF-SHA256): the signing key never encrypts, and the
 * sealing key never signs, so a weakness found in one use cannot be turned against the other.
 */
export function stateKey(secret: string, use: 'signing' | 'sealing'): Buffer {
	return Buffer.from(
		hkdfSync('sha256', secret, 'agent-core run_state v2', `agent-core run_state ${use}`, 32),
	);
}

function signatureOf(payload: unknown, secret: string): string {
	return createHmac('sha256', stateKey(secret, 'signing'))
		.update(canonicalJson(payload))
		.digest('hex');
}

/** A new state's one-time id: chosen before signing, so that sealed parts can be bound to it. */
export const newRunStateId = (): string => randomUUID();

/** Signs a payload as a one-time run state for the config of `hash`. */
export function signRunState<Payload extends object>(
	payload: Payload,
	secret: string,
	hash: string,
	stamp: { id?: string; now?: Date } = {},
): SignedRunState<Payload> {
	const full = {
		...payload,
		id: stamp.id ?? newRunStateId(),
		config_hash: hash,
		created_at: (stamp.now ?? new Date()).toISOString(),
	};
	return { v: 2, payload: full, signature: signatureOf(full, secret) };
}

/** How old a state may be when it is opened; `now` for tests. */
export interface StateAge {
	maxAgeDays: number;
	now?: number;
}

/**
 * The payload of a run state, once its size, signature, version, age and config check out; RunStateError
 * names what is wrong otherwise. (One-time use is the registry's check: see UsedStates.)
 */
export function openRunState<Payload>(
	state: unknown,
	secret: string,
	hash: string,
	age: StateAge,
): SignedRunState<Payload>['payload'] {
	if (typeof state === 'string' && state.length > MAX_STATE_CHARACTERS)
		throw new RunStateError(
			`run_state is larger than ${MAX_STATE_CHARACTERS} characters, more than a paused run's state can be: ` +
				`pass the run_state of the paused run's output, unchanged`,
		);
	const candidate = typeof state === 'string' ? parseJson(state) : state;
	// Before anything walks it: the signature's canonical JSON and the copy below recurse.
	const sizeProblem = stateSizeProblem(candidate);
	if (sizeProblem)
		throw new RunStateError(
			`run_state ${sizeProblem}, more than a paused run's state can be: pass the run_state of the paused run's output, unchanged`,
		);
	const { v, payload, signature } = (candidate ?? {}) as Partial<SignedRunState<Payload>>;
	if ((v as number) === 1)
		throw new RunStateError(
			'run_state was made by Agent Core 0.1, whose states kept only the redacted call: run the task again to pause it anew',
		);
	if (
		v !== 2 ||
		typeof payload !== 'object' ||
		payload === null ||
		Array.isArray(payload) ||
		typeof signature !== 'string'
	) {
		throw new RunStateError(
			"run_state is not a paused run's state: pass the run_state value of the output that ended awaiting_approval, unchanged",
		);
	}
	const expected = Buffer.from(signatureOf(payload, secret), 'hex');
	const given = Buffer.from(signature, 'hex');
	if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
		throw new RunStateError(
			'run_state was altered, or signed with another key: its signature does not match; resume with the ' +
				'state exactly as the paused run gave it, and the same signing key',
		);
	}
	checkAge(payload.created_at, age);
	if (payload.config_hash !== hash)
		throw new RunStateError(
			'run_state was made for another config: resume with the configuration the run was paused with (the model may differ)',
		);
	// A copy: the resumed run grows its trace, and the caller's state must stay as signed.
	return structuredClone(payload);
}

/** A signed state older than the maximum age could outlive the used-state memory and be replayed: refused. */
function checkAge(createdAt: unknown, { maxAgeDays, now = Date.now() }: StateAge): void {
	const created = typeof createdAt === 'string' ? Date.parse(createdAt) : Number.NaN;
	if (Number.isNaN(created))
		throw new RunStateError(
			"run_state has no valid created_at: pass the run_state of the paused run's output, unchanged",
		);
	if (created - now > CLOCK_SKEW_MS) {
		throw new RunStateError(
			`run_state was made in the future (${createdAt}): the clock of the machine that paused the run is ` +
				`ahead by more than ${CLOCK_SKEW_MS / 60_000} minutes; set it right and pause the run again`,
		);
	}
	if (now - created > maxAgeDays * DAY_MS) {
		throw new RunStateError(
			`run_state is older than run_state_max_age_days (${maxAgeDays} days): it was made at ${createdAt}; ` +
				`run the task again to pause it anew, or raise run_state_max_age_days (at most ` +
				`${USED_STATE_MEMORY_DAYS})`,
		);
	}
}

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}
