import { REDACTED, SECRET_KEY, redactShapes } from './secret-shapes';
import { secretSpellings } from './secret-spellings';

export { REDACTED };

/**
 * Keeps secrets out of everything a run writes (trace, messages, error texts), while the real values are
 * still used for the calls themselves. Two layers: exact known secrets (API keys, fixed headers from tool
 * settings) in every spelling a server may echo them in, and shapes that look like credentials (well-known
 * key formats, bearer tokens, JWTs, secret-named fields and query parameters).
 *
 * The text it reads may be written by a hostile model or server, so every step is linear in the length of
 * the text and needs no stack that grows with it: strings of any length are redacted whole (a 16 MB string
 * is tested), values of any depth are walked with an explicit stack, and cycles end as `[Circular]`.
 */

/** What a value that contains itself shows where it reappears. */
export const CIRCULAR = '[Circular]';

/** Secrets shorter than this are not replaced by value: too likely to match ordinary text. */
const MIN_KNOWN_SECRET_LENGTH = 6;

/** Marks a container in Redactor.value's map while it is being copied. */
const OPEN = Symbol('open');

/** How many keys, of at most how many characters, a redactor remembers redacted (see keyText). */
const MAX_REMEMBERED_KEYS = 512;
const MAX_REMEMBERED_KEY_LENGTH = 128;

/** A container being copied: its keys (indices for arrays) are visited one by one from an explicit stack. */
interface CopyFrame {
	source: object;
	copy: unknown[] | Record<string, unknown>;
	keys: string[] | undefined;
	length: number;
	next: number;
	/** Set once a key of this object was renamed by redaction: the last number given to each renamed key. */
	renamedKeys?: Map<string, number>;
}

/** Redacts strings and values with a fixed set of known secrets plus the built-in secret shapes. */
export class Redactor {
	private readonly spellings: string[];
	/** The shortest spelling's length: a shorter text cannot hold any spelling. */
	private readonly shortestSpelling: number;
	private readonly keyTexts = new Map<string, string>();

	/** `knownSecrets`: exact values (API keys, settings secrets) to redact in every spelling; short or missing ones are ignored. */
	constructor(knownSecrets: Iterable<string | undefined> = []) {
		const unique = new Set<string>();
		for (const secret of knownSecrets) {
			if (typeof secret === 'string' && secret.length >= MIN_KNOWN_SECRET_LENGTH) {
				for (const spelling of secretSpellings(secret)) unique.add(spelling);
			}
		}
		// Longest first across all secrets, so a secret containing another is replaced whole.
		this.spellings = [...unique].sort((left, right) => right.length - left.length);
		this.shortestSpelling =
			this.spellings.length > 0 ? this.spellings[this.spellings.length - 1].length : Infinity;
	}

	/** `key` redacted; the same keys recur in every step of a trace, so short ones are remembered for this redactor's run. */
	private keyText(key: string): string {
		let redacted = this.keyTexts.get(key);
		if (redacted === undefined) {
			redacted = this.text(key);
			if (key.length <= MAX_REMEMBERED_KEY_LENGTH && this.keyTexts.size < MAX_REMEMBERED_KEYS)
				this.keyTexts.set(key, redacted);
		}
		return redacted;
	}

	/** `value` with known secrets and secret shapes replaced by `[REDACTED]`; linear in its length. */
	text(value: string): string {
		let result = value;
		// split/join is a linear substring search per spelling; one alternation of all of them could backtrack.
		if (result.length >= this.shortestSpelling) {
			for (const spelling of this.spellings) {
				if (result.includes(spelling)) result = result.split(spelling).join(REDACTED);
			}
		}
		return redactShapes(result);
	}

	/**
	 * `text` redacted, for text whose end was cut through: also drops the longest end that begins a known
	 * secret's spelling, which redaction cannot recognise. Any length counts, down to one character: the
	 * text is cut anyway, so a few characters less cost nothing, while a minimum of N would let the first
	 * N-1 characters of a secret through.
	 */
	textCutAtEnd(value: string): string {
		const redacted = this.text(value);
		let longest = 0;
		for (const spelling of this.spellings) {
			for (
				let length = Math.min(spelling.length - 1, redacted.length);
				length > longest;
				length -= 1
			) {
				if (redacted.endsWith(spelling.slice(0, length))) {
					longest = length;
					break;
				}
			}
		}
		return redacted.slice(0, redacted.length - longest);
	}

	/**
	 * A redacted deep copy: secret-named fields are blanked, every string and key is scrubbed, every own
	 * enumerable key is kept (`__proto__` too), a value met again inside itself becomes `[Circular]`, and an
	 * object referenced twice is copied once and shared, as it was in the input.
	 */
	value<T>(input: T): T {
		// Each container met: OPEN while it is on the path from the root (meeting it again is a cycle), then its copy.
		const seen = new Map<object, unknown>();
		const stack: CopyFrame[] = [];
		const copyOf = (item: unknown, key: string | undefined): unknown => {
			if (typeof item === 'string')
				return key !== undefined && SECRET_KEY.test(key) ? REDACTED : this.text(item);
			if (typeof item === 'number')
				return key !== undefined && SECRET_KEY.test(key) ? REDACTED : item;
			if (typeof item !== 'object' || item === null) return item;
			const met = seen.get(item);
			if (met !== undefined) return met === OPEN ? CIRCULAR : met;
			const keys = Array.isArray(item) ? undefined : Object.keys(item);
			const copy = Array.isArray(item) ? [] : {};
			seen.set(item, OPEN);
			stack.push({
				source: item,
				copy,
				keys,
				length: keys ? keys.length : (item as unknown[]).length,
				next: 0,
			});
			return copy;
		};
		const root = copyOf(input, undefined);
		while (stack.length > 0) {
			const frame = stack[stack.length - 1];
			if (frame.next >= frame.length) {
				stack.pop();
				seen.set(frame.source, frame.copy);
				continue;
			}
			const index = frame.next;
			frame.next += 1;
			if (!frame.keys) {
				(frame.copy as unknown[]).push(copyOf((frame.source as unknown[])[index], undefined));
				continue;
			}
			const key = frame.keys[index];
			const item = copyOf((frame.source as Record<string, unknown>)[key], key);
			const name = this.outputKey(frame, key);
			// A name the copy neither has nor inherits becomes an own data property by assignment, which is ~6× faster;
			// any other (`__proto__`, `constructor`, a polluted prototype's) by defineProperty, since assigning could
			// set the prototype, call a setter or be refused, and drop the key.
			if (name in frame.copy)
				Object.defineProperty(frame.copy, name, {
					value: item,
					enumerable: true,
					writable: true,
					configurable: true,
				});
			else (frame.copy as Record<string, unknown>)[name] = item;
		}
		return root as T;
	}

	/** The key redacted; when that made two keys of the object equal, the later one is numbered so both stay. */
	private outputKey(frame: CopyFrame, key: string): string {
		const redacted = this.keyText(key);
		// Until a key is renamed, the source's own keys are distinct and cannot collide.
		if (redacted === key && !frame.renamedKeys) return key;
		frame.renamedKeys ??= new Map();
		let suffix = frame.renamedKeys.get(redacted) ?? 1;
		let candidate = redacted;
		while (Object.prototype.hasOwnProperty.call(frame.copy, candidate)) {
			suffix += 1;
			candidate = `${redacted} #${suffix}`;
		}
		frame.renamedKeys.set(redacted, suffix);
		return candidate;
	}
}

/** Settings that hold secrets although their names are not secret-shaped: URLs carrying tokens or passwords. */
const SETTINGS_SECRET_KEY = /secret|password|webhook_url|redis_url/i;

/** Fixed headers that carry no secret; every other fixed header value is treated as one. */
const HARMLESS_HEADERS = new Set([
	'accept',
	'accept-language',
	'content-type',
	'user-agent',
	'cache-control',
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null;

/**
 * The secret strings in tool settings: values of fixed headers (but plainly harmless ones) and of
 * secret-named fields such as `signing_secret` or `api_key`, down to 8 levels, own properties only.
 * They are used for calls, never shown.
 */
export function secretsInSettings(settings: Record<string, Record<string, unknown>>): string[] {
	const found: string[] = [];
	// An object is searched once in each mode: shared or cyclic settings cannot multiply the work.
	const searched = { plain: new Set<object>(), underSecret: new Set<object>() };
	const visit = (value: unknown, underSecret: boolean, depth: number) => {
		if (depth > 8) return;
		if (typeof value === 'string') {
			if (underSecret) found.push(value);
			return;
		}
		if (!isObject(value)) return;
		const seen = underSecret ? searched.underSecret : searched.plain;
		if (seen.has(value)) return;
		seen.add(value);
		for (const [key, item] of Object.entries(value)) {
			visit(item, underSecret || SECRET_KEY.test(key) || SETTINGS_SECRET_KEY.test(key), depth + 1);
		}
	};
	for (const toolSettings of isObject(settings) ? Object.values(settings) : []) {
		if (!isObject(toolSettings)) continue;
		const headers = Object.hasOwn(toolSettings, 'headers') ? toolSettings.headers : undefined;
		if (isObject(headers)) {
			for (const [name, value] of Object.entries(headers)) {
				if (typeof value === 'string' && !HARMLESS_HEADERS.has(name.toLowerCase()))
					found.push(value);
			}
		}
		visit(toolSettings, false, 0);
	}
	return found;
}
