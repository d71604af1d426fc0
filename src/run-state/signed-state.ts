import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../validation/canonical-json';

/**
 * A paused run's state, signed so that nobody can change it on its way through a workflow (issue #18):
 * `{ v: 1, payload, signature }`, the signature HMAC-SHA256 over the payload's canonical JSON, hex. The
 * payload says which config it was made for (`config_hash`) and carries a one-time `id`.
 */
export interface SignedRunState<Payload> {
  v: 1;
  payload: Payload & { id: string; config_hash: string; created_at: string };
  signature: string;
}

/** A run state that cannot be used, and why; `field` is always `run_state`. */
export class RunStateError extends Error {
  override readonly name = 'RunStateError';
  readonly field = 'run_state';
}

/** Shorter than this, a signing key is refused: it could be guessed. */
export const MIN_SECRET_LENGTH = 16;

/** What is wrong with a signing key, or undefined when it is a real secret. */
export function stateSecretProblem(secret: string | undefined): string | undefined {
  if (typeof secret === 'string' && secret.length >= MIN_SECRET_LENGTH) return undefined;
  return (
    `pausing for approval needs a signing key of at least ${MIN_SECRET_LENGTH} characters, so that nobody can alter the paused run: ` +
    'set AGENT_CORE_STATE_SECRET for the CLI, select an "Agent Core: Run State API" credential on the node, or pass stateSecret to the library'
  );
}

/** The hash a config is known by in a run state: its canonical JSON without `model`, so a run may resume on another model. */
export function configHash(config: Record<string, unknown>): string {
  const { model: _model, ...rest } = config;
  return createHash('sha256').update(canonicalJson(rest)).digest('hex');
}

function signatureOf(payload: unknown, secret: string): string {
  return createHmac('sha256', secret).update(canonicalJson(payload)).digest('hex');
}

/** Signs a payload as a one-time run state for the config of `hash`. */
export function signRunState<Payload extends object>(payload: Payload, secret: string, hash: string, now = new Date()): SignedRunState<Payload> {
  const full = { ...payload, id: randomUUID(), config_hash: hash, created_at: now.toISOString() };
  return { v: 1, payload: full, signature: signatureOf(full, secret) };
}

/**
 * The payload of a run state, once its signature, version and config check out; RunStateError names
 * what is wrong otherwise. (One-time use is the registry's check: see UsedStates.)
 */
export function openRunState<Payload>(state: unknown, secret: string, hash: string): SignedRunState<Payload>['payload'] {
  const candidate = typeof state === 'string' ? parseJson(state) : state;
  const { v, payload, signature } = (candidate ?? {}) as Partial<SignedRunState<Payload>>;
  if (v !== 1 || typeof payload !== 'object' || payload === null || typeof signature !== 'string') {
    throw new RunStateError('run_state is not a paused run\'s state: pass the run_state value of the output that ended awaiting_approval, unchanged');
  }
  const expected = Buffer.from(signatureOf(payload, secret), 'hex');
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new RunStateError('run_state was altered, or signed with another key: its signature does not match; resume with the state exactly as the paused run gave it, and the same signing key');
  }
  if (payload.config_hash !== hash) throw new RunStateError('run_state was made for another config: resume with the configuration the run was paused with (the model may differ)');
  // A copy: the resumed run grows its conversation and trace, and the caller's state must stay as signed.
  return structuredClone(payload);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
