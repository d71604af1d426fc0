import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { RunStateError, stateKey } from './signed-state';

/**
 * Part of a run state that must come back exactly but that nobody may read on the way: the call as the
 * model asked for it, secrets included (issue #26). AES-256-GCM under the state secret's sealing key, a
 * random 96-bit IV per seal, the full 128-bit tag, and the state's id as additional data, so a sealed part
 * opens only in the state it was made for. Base64url text, so it travels as JSON.
 */
export interface SealedValue {
	alg: 'A256GCM';
	iv: string;
	tag: string;
	data: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

const binding = (stateId: string) => Buffer.from(`agent-core run_state v2 sealed ${stateId}`);

/** `value` as JSON, encrypted and authenticated for the state `stateId`. */
export function sealValue(value: unknown, secret: string, stateId: string): SealedValue {
	const iv = randomBytes(IV_BYTES);
	const cipher = createCipheriv('aes-256-gcm', stateKey(secret, 'sealing'), iv, {
		authTagLength: TAG_BYTES,
	});
	cipher.setAAD(binding(stateId));
	const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
	return {
		alg: 'A256GCM',
		iv: iv.toString('base64url'),
		tag: cipher.getAuthTag().toString('base64url'),
		data: data.toString('base64url'),
	};
}

const REFUSED =
	"run_state's sealed part does not open: it was altered, taken from another state, or sealed with " +
	'another key; resume with the state exactly as the paused run gave it, and the same signing key';

/** The value sealed for the state `stateId`; RunStateError when anything in it was changed or moved. */
export function openSealedValue(sealed: unknown, secret: string, stateId: string): unknown {
	const { alg, iv, tag, data } = (
		typeof sealed === 'object' && sealed !== null ? sealed : {}
	) as Partial<SealedValue>;
	if (
		alg !== 'A256GCM' ||
		typeof iv !== 'string' ||
		typeof tag !== 'string' ||
		typeof data !== 'string'
	)
		throw new RunStateError(REFUSED);
	const [ivBytes, tagBytes, dataBytes] = [iv, tag, data].map(strictBase64url);
	// Node accepts a shortened tag unless told its length: a 4-byte tag could be guessed. Exact lengths only.
	if (ivBytes?.length !== IV_BYTES || tagBytes?.length !== TAG_BYTES || !dataBytes)
		throw new RunStateError(REFUSED);
	let text: string;
	try {
		const decipher = createDecipheriv('aes-256-gcm', stateKey(secret, 'sealing'), ivBytes, {
			authTagLength: TAG_BYTES,
		});
		decipher.setAAD(binding(stateId));
		decipher.setAuthTag(tagBytes);
		text = Buffer.concat([decipher.update(dataBytes), decipher.final()]).toString('utf8');
	} catch {
		throw new RunStateError(REFUSED);
	}
	return JSON.parse(text);
}

/** The bytes of base64url text, or undefined for text Buffer would read leniently (stray characters, padding). */
function strictBase64url(text: string): Buffer | undefined {
	const bytes = Buffer.from(text, 'base64url');
	return bytes.toString('base64url') === text ? bytes : undefined;
}
