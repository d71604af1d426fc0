/**
 * The `guardrails` setting checked: a list of entries `{name, check, kinds?, allowed_hosts?, pattern?, keywords?,
 * on, action}`, each problem a ConfigError naming the entry and field (`guardrails[2].kinds[0]`) and the fix.
 */
import { ConfigError } from '../core/config-error';
import { nearMiss } from '../core/known-options';
import { patternProblem, quotePattern, patternMatchesEmpty } from '../validation/linear-regexp';
import { normalHost } from './hosts';
import { keywordWords } from './keywords';
import {
	ACTIONS,
	CHECKS,
	PII_KINDS,
	POINTS,
	type Guardrail,
	type GuardrailAction,
	type GuardrailPoint,
	type PiiKind,
} from './types';

export const MAX_GUARDRAILS = 100;
export const MAX_NAME_LENGTH = 64;
export const MAX_LIST_ENTRIES = 1_000;
export const MAX_KEYWORD_LENGTH = 200;
export const MAX_KEYWORD_WORDS = 16;

/** The key each check needs besides the common ones, and which checks take which key. */
const OWN_KEY: Record<string, string | undefined> = {
	pii: 'kinds',
	secrets: undefined,
	urls: 'allowed_hosts',
	pattern: 'pattern',
	keywords: 'keywords',
};
const KEYS = ['name', 'check', 'kinds', 'allowed_hosts', 'pattern', 'keywords', 'on', 'action'];

/**
 * A problem as the CLI and the node show it, the message as it is: it starts with the entry and field
 * (`guardrails[0].kinds[0]: unknown kind …`), as the settings' other nested problems do.
 */
function refused(field: string, problem: string, fix?: string): ConfigError {
	return new ConfigError(field, `${field}: ${problem}`, fix);
}

/** "a, b or c" */
const choices = (names: readonly string[]) =>
	`${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;

/** A value as a message shows it: JSON, cut, printable ASCII only. */
function shown(value: unknown): string {
	const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
	const cut = text.length > 40 ? `${text.slice(0, 40)}…` : text;
	return JSON.stringify(cut).replace(
		/[^\x20-\x7e]/g,
		(c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
	);
}

function oneOf<T extends string>(
	field: string,
	value: unknown,
	known: readonly T[],
	what: string,
): T {
	if (typeof value === 'string' && (known as readonly string[]).includes(value)) return value as T;
	const near = typeof value === 'string' ? nearMiss(value, known) : undefined;
	throw refused(
		field,
		`unknown ${what} ${shown(value)}: use ${choices(known)}`,
		near !== undefined ? `Write "${near}" in ${field}.` : undefined,
	);
}

function stringList(field: string, value: unknown, what: string): string[] {
	if (!Array.isArray(value) || value.length === 0)
		throw refused(field, `must be a non-empty list of ${what}`);
	if (value.length > MAX_LIST_ENTRIES)
		throw refused(field, `holds ${value.length} entries, more than ${MAX_LIST_ENTRIES}`);
	value.forEach((item, index) => {
		if (typeof item !== 'string' || item.trim() === '')
			throw refused(`${field}[${index}]`, `must be a non-empty string (one of the ${what})`);
	});
	return value as string[];
}

/** `api.example.com` or `*.example.com`, compared as normalHost writes hosts. */
function allowedHost(field: string, written: string): string {
	const wildcard = written.startsWith('*.');
	const host = wildcard ? written.slice(2) : written;
	const normal =
		/^[^\s/?#@\\*]+$/.test(host) && !/^[^[]*:/.test(host) ? normalHost(host) : undefined;
	if (normal === undefined || (!normal.includes('.') && !normal.startsWith('[')))
		throw refused(
			field,
			`${shown(written)} is not a host: write a host name such as "api.example.com", ` +
				'or "*.example.com" for its subdomains',
		);
	return wildcard ? `*.${normal}` : normal;
}

function checkEntry(entry: unknown, index: number, names: Set<string>): Guardrail {
	const at = `guardrails[${index}]`;
	if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
		throw refused(at, 'must be an object {name, check, on, action, …}');
	const fields = entry as Record<string, unknown>;
	for (const key of Object.keys(fields))
		if (!KEYS.includes(key)) {
			const near = nearMiss(key, KEYS);
			throw refused(
				`${at}.${key}`,
				`unknown key ${shown(key)}${near ? ` (did you mean "${near}"?)` : ''}: a guardrail takes ${choices(KEYS)}`,
				near ? `Rename ${at}.${key} to ${near}.` : `Remove ${at}.${key}.`,
			);
		}
	const name = fields.name;
	if (
		typeof name !== 'string' ||
		!/^[\x21-\x5a\x5c\x5e-\x7e]([\x20-\x5a\x5c\x5e-\x7e]*[\x21-\x5a\x5c\x5e-\x7e])?$/.test(name) ||
		name.length > MAX_NAME_LENGTH
	)
		throw refused(
			`${at}.name`,
			`must be a name of 1 to ${MAX_NAME_LENGTH} printable characters (no brackets, no space at either end)`,
		);
	if (names.has(name))
		throw refused(`${at}.name`, `${shown(name)} names two guardrails: give each its own name`);
	names.add(name);
	const check = oneOf(`${at}.check`, fields.check, CHECKS, 'check');
	for (const key of Object.values(OWN_KEY))
		if (key !== undefined && key !== OWN_KEY[check] && key in fields)
			throw refused(
				`${at}.${key}`,
				`belongs to check "${Object.keys(OWN_KEY).find((name) => OWN_KEY[name] === key)}", not "${check}"`,
				`Remove ${at}.${key}.`,
			);
	const on = checkPoints(`${at}.on`, fields.on);
	const action: GuardrailAction = oneOf(`${at}.action`, fields.action, ACTIONS, 'action');
	if (action === 'deny_call' && on.some((point) => point !== 'tool_call'))
		throw refused(
			`${at}.action`,
			`"deny_call" only fits "on": ["tool_call"], not ${shown(on)}: a denied call is a tool call`,
			`Set ${at}.on to ["tool_call"], and give the other points an entry of their own with "block" or "redact".`,
		);
	const base = { name, on, action };
	switch (check) {
		case 'secrets':
			return { ...base, check };
		case 'pii': {
			const kinds: PiiKind[] =
				fields.kinds === undefined
					? [...PII_KINDS]
					: stringList(`${at}.kinds`, fields.kinds, 'kinds').map((kind, item) =>
							oneOf(`${at}.kinds[${item}]`, kind, PII_KINDS, 'kind'),
						);
			return { ...base, check, kinds: [...new Set(kinds)] };
		}
		case 'urls': {
			const hosts = stringList(`${at}.allowed_hosts`, fields.allowed_hosts, 'hosts').map(
				(host, item) => allowedHost(`${at}.allowed_hosts[${item}]`, host),
			);
			return { ...base, check, allowed_hosts: hosts };
		}
		case 'pattern':
			return { ...base, check, pattern: checkPattern(`${at}.pattern`, fields.pattern) };
		case 'keywords': {
			const keywords = stringList(`${at}.keywords`, fields.keywords, 'keywords');
			keywords.forEach((keyword, item) => {
				const words = keywordWords(keyword).length;
				if (keyword.length > MAX_KEYWORD_LENGTH || words === 0 || words > MAX_KEYWORD_WORDS)
					throw refused(
						`${at}.keywords[${item}]`,
						`must hold 1 to ${MAX_KEYWORD_WORDS} words, at most ${MAX_KEYWORD_LENGTH} characters`,
					);
			});
			return { ...base, check, keywords };
		}
	}
}

function checkPoints(field: string, value: unknown): GuardrailPoint[] {
	if (!Array.isArray(value) || value.length === 0)
		throw refused(field, `must be a non-empty list of points: ${choices(POINTS)}`);
	const points = value.map((point, item) => oneOf(`${field}[${item}]`, point, POINTS, 'point'));
	return [...new Set(points)];
}

function checkPattern(field: string, value: unknown): string {
	if (typeof value !== 'string' || value === '')
		throw refused(field, 'must be a non-empty pattern (JavaScript syntax, run in linear time)');
	const problem = patternProblem(value);
	if (problem !== undefined)
		// The engine's own fixes speak of schemas (maxLength, allOf): a guardrail's pattern is simply rewritten.
		throw refused(
			field,
			`pattern ${quotePattern(value)} ${problem.problem}`,
			`Rewrite ${field} in JavaScript's syntax without lookahead, lookbehind or back-references, ` +
				'with repeats of at most 1,000 (or use a "keywords" check for words).',
		);
	if (patternMatchesEmpty(value))
		throw refused(
			field,
			`pattern ${quotePattern(value)} matches the empty text, so it would match every text`,
			`Make ${field} need at least one character (e.g. "x+" rather than "x*").`,
		);
	return value;
}

/**
 * The `guardrails` setting as the loop uses it, or a ConfigError naming the entry and field. Undefined and an
 * empty list mean none. Hosts come back normalised (lower case, punycode), kinds default to all.
 */
export function checkGuardrails(value: unknown): Guardrail[] {
	if (value === undefined) return [];
	if (!Array.isArray(value))
		throw refused('guardrails', 'must be a list of guardrails {name, check, on, action, …}');
	if (value.length > MAX_GUARDRAILS)
		throw refused('guardrails', `holds ${value.length} guardrails, more than ${MAX_GUARDRAILS}`);
	const names = new Set<string>();
	return value.map((entry, index) => checkEntry(entry, index, names));
}
