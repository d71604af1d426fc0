/**
 * The spellings a known secret can take in text a server or tool sends back, so that the redactor finds it
 * however it was encoded on the way.
 */

/** A partial base64 spelling shorter than this could match ordinary text, and reveals little. */
const MIN_PARTIAL_BASE64_LENGTH = 8;

/** A surrogate without its pair (String.prototype.toWellFormed, which the ES2022 library here does not declare). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const urlSafe = (base64: string) => base64.replaceAll('+', '-').replaceAll('/', '_');

/**
 * The base64 spellings of `bytes`: whole (padded and not), and as a part of longer data such as the
 * "user:password" of Basic auth. There the secret starts at any byte offset; for each offset modulo 3,
 * the characters that depend on the secret's bits alone are the same whatever surrounds it.
 */
function base64Spellings(bytes: Buffer): string[] {
	const whole = bytes.toString('base64');
	const spellings = [whole, whole.replace(/=+$/, '')];
	// The secret behind two zero bytes, once: offset k encodes from byte 2-k, as if k zero bytes came first.
	const padded = Buffer.alloc(bytes.length + 2);
	bytes.copy(padded, 2);
	for (let offset = 0; offset < 3; offset += 1) {
		const encoded = offset === 0 ? whole : padded.toString('base64', 2 - offset);
		// Character k holds bits 6k..6k+5 of the data; the secret holds bits 8·offset..8·(offset+length)-1.
		const stable = encoded.slice(
			Math.ceil((8 * offset) / 6),
			Math.floor((8 * (offset + bytes.length)) / 6),
		);
		if (stable.length >= MIN_PARTIAL_BASE64_LENGTH) spellings.push(stable);
	}
	return spellings.flatMap((spelling) => [spelling, urlSafe(spelling)]);
}

/**
 * Every spelling in which a secret may appear in text a server or tool sent back: raw; JSON-escaped (also
 * with `\/` and/or `\uXXXX` for non-ASCII, as PHP and Python write them); URL-encoded (upper- and
 * lower-case escapes, and form-encoded); hex (lower and upper case); base64 (standard and URL-safe, padded
 * or not, whole or embedded at any offset). Longest first, so that no spelling is replaced inside a longer one.
 */
export function secretSpellings(secret: string): readonly string[] {
	const known = rememberedSpellings.get(secret);
	if (known) {
		// Most recently used last, so the oldest is the first to go.
		rememberedSpellings.delete(secret);
		rememberedSpellings.set(secret, known);
		return known;
	}
	const spellings = Object.freeze(spellingsOf(secret));
	if (rememberedSpellings.size >= MAX_REMEMBERED_SECRETS)
		rememberedSpellings.delete(rememberedSpellings.keys().next().value as string);
	rememberedSpellings.set(secret, spellings);
	return spellings;
}

/**
 * The spellings of the secrets of the last runs. Every run makes a redactor, and spelling its API key out
 * again (22 spellings) was 5 % of the engine's own CPU per run, and a worker runs the same few keys over and
 * over. The spellings are pure functions of the secret, so this is a cache; it does keep the last
 * MAX_REMEMBERED_SECRETS secrets in memory after their runs (in the process that held them for the runs).
 */
const rememberedSpellings = new Map<string, readonly string[]>();
const MAX_REMEMBERED_SECRETS = 16;

function spellingsOf(secret: string): string[] {
	const jsonEscaped = JSON.stringify(secret).slice(1, -1);
	const asciiOnly = (json: string) =>
		json.replace(
			/[\u0080-\uffff]/g,
			(character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
		);
	const slashEscaped = jsonEscaped.replaceAll('/', '\\/');
	// encodeURIComponent throws on a lone surrogate; URL encoders write it as U+FFFD, and so does this.
	const urlEncoded = encodeURIComponent(secret.replace(LONE_SURROGATE, '\ufffd'));
	const bytes = Buffer.from(secret, 'utf8');
	const hex = bytes.toString('hex');
	const spellings = [
		secret,
		jsonEscaped,
		slashEscaped,
		asciiOnly(jsonEscaped),
		asciiOnly(slashEscaped),
		urlEncoded,
		urlEncoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
		new URLSearchParams({ value: secret }).toString().slice('value='.length),
		hex,
		hex.toUpperCase(),
		...base64Spellings(bytes),
	];
	return [...new Set(spellings)].sort((left, right) => right.length - left.length);
}
