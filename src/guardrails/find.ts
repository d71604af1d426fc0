/**
 * What a guardrail finds in a text or in a value (a tool call's args: every key and every string, numbers read as
 * their text), and the same with each find replaced by `[redacted:<name>]`. Pure and linear: values of any depth
 * are walked with an explicit stack, never recursion.
 */
import { mergeSpans, replaceSpans } from '../core/spans';
import { SECRET_KEY, findShapes } from '../trace/secret-shapes';
import { findPatternSpans, patternFindsIn } from '../validation/linear-regexp';
import { findCardNumbers, findIbans } from './account-numbers';
import { findHosts, isAllowed, type AllowedHosts } from './hosts';
import { findKeywords, keywordTree } from './keywords';
import { findEmails, findIpAddresses, findPhoneNumbers } from './personal-data';
import type { Guardrail, Match, PiiKind, ValueMatch } from './types';

const PII_FINDERS: Record<PiiKind, (text: string) => { start: number; end: number }[]> = {
	email: findEmails,
	phone: findPhoneNumbers,
	credit_card: findCardNumbers,
	iban: findIbans,
	ip_address: findIpAddresses,
};

/** What a guardrail's check needs built once (the keywords' tree, the allowed hosts), kept beside it. */
const prepared = new WeakMap<Guardrail, (text: string) => Match[]>();

function finderOf(guardrail: Guardrail): (text: string) => Match[] {
	let finder = prepared.get(guardrail);
	if (finder !== undefined) return finder;
	switch (guardrail.check) {
		case 'pii': {
			const kinds = guardrail.kinds;
			finder = (text) => {
				const found = kinds.flatMap((kind) =>
					PII_FINDERS[kind](text).map((span): Match => ({ ...span, kind })),
				);
				return kinds.includes('phone') ? withoutPhonesInAccounts(text, found) : found;
			};
			break;
		}
		case 'secrets':
			finder = (text) => findShapes(text).map((span) => ({ ...span, kind: 'secret' as const }));
			break;
		case 'urls': {
			const allowed: AllowedHosts = {
				exact: new Set(guardrail.allowed_hosts.filter((host) => !host.startsWith('*.'))),
				suffixes: guardrail.allowed_hosts
					.filter((host) => host.startsWith('*.'))
					.map((host) => host.slice(1)),
			};
			finder = (text) =>
				findHosts(text)
					.filter((found) => !isAllowed(found.host, allowed))
					.map(({ start, end }) => ({ start, end, kind: 'host' as const }));
			break;
		}
		case 'pattern': {
			const pattern = guardrail.pattern;
			finder = (text) => {
				const { spans, stoppedAt } = findPatternSpans(pattern, text);
				const found: Match[] = spans.map((span) => ({ ...span, kind: 'pattern' }));
				if (stoppedAt !== undefined)
					found.push({ start: stoppedAt, end: text.length, kind: 'unchecked' });
				return found;
			};
			break;
		}
		case 'keywords': {
			const tree = keywordTree(guardrail.keywords);
			finder = (text) =>
				findKeywords(text, tree).map((span) => ({ ...span, kind: 'keyword' as const }));
			break;
		}
	}
	prepared.set(guardrail, finder);
	return finder;
}

/** Phone finds inside a card number or an IBAN are the account number's digits, not a phone number: dropped. */
function withoutPhonesInAccounts(text: string, found: Match[]): Match[] {
	if (!found.some((match) => match.kind === 'phone')) return found;
	const accounts = mergeSpans([...findCardNumbers(text), ...findIbans(text)]);
	if (accounts.length === 0) return found;
	// The account spans are sorted and apart: the last that starts before a find's end is the only one it can touch.
	const inAccount = (match: Match) => {
		let low = 0;
		let high = accounts.length - 1;
		while (low < high) {
			const middle = (low + high + 1) >> 1;
			if (accounts[middle].start < match.end) low = middle;
			else high = middle - 1;
		}
		return accounts[low].start < match.end && match.start < accounts[low].end;
	};
	return found.filter((match) => match.kind !== 'phone' || !inAccount(match));
}

/** Everything `guardrail` finds in `text`, sorted by start (finds of different kinds may overlap). */
export function findMatches(guardrail: Guardrail, text: string): Match[] {
	return finderOf(guardrail)(text).sort((left, right) => left.start - right.start);
}

/**
 * Whether `guardrail` finds anything in `text`: what `block` and `deny_call` need. The same answer as
 * `findMatches(…).length > 0`, faster for a pattern (no positions); text the budget cannot check counts as found.
 */
export function hasMatch(guardrail: Guardrail, text: string): boolean {
	if (guardrail.check === 'pattern') return patternFindsIn(guardrail.pattern, text) ?? true;
	return findMatches(guardrail, text).length > 0;
}

/** `text` with each match (overlapping ones joined) replaced by `[redacted:<name>]`. */
export function redactMatches(text: string, matches: readonly Match[], name: string): string {
	return replaceSpans(text, mergeSpans(matches), `[redacted:${name}]`);
}

/** A string met in a value: its path, and whether it is a key's name or a value (a number is read as its text). */
export interface Visit {
	at: Place;
	in: 'key' | 'value';
	text: string;
	/** The value sits under a secret-named key (`password`, `api_key`): to the `secrets` check, all of it is one. */
	secretField: boolean;
}

/** Where a string sits, as a chain to the root (a path is only spelled out for a find: depth costs nothing). */
export interface Place {
	parent: Place | undefined;
	step: string | number;
}

export function pathOf(place: Place | undefined): (string | number)[] {
	const path: (string | number)[] = [];
	for (let at = place; at !== undefined; at = at.parent) path.push(at.step);
	return path.reverse();
}

/**
 * Each key and each string or number in `value`, depth first, from an explicit stack; a container met again is
 * skipped.
 */
function* visits(value: unknown): Generator<Visit> {
	const seen = new Set<object>();
	const stack: { item: unknown; at: Place | undefined; secretField: boolean }[] = [
		{ item: value, at: undefined, secretField: false },
	];
	while (stack.length > 0) {
		const { item, at, secretField } = stack.pop() as (typeof stack)[number];
		if (typeof item === 'string' || typeof item === 'number') {
			yield { at: at as Place, in: 'value', text: String(item), secretField };
			continue;
		}
		if (typeof item !== 'object' || item === null || seen.has(item)) continue;
		seen.add(item);
		if (Array.isArray(item)) {
			for (let index = item.length - 1; index >= 0; index -= 1)
				stack.push({ item: item[index], at: { parent: at, step: index }, secretField: false });
			continue;
		}
		const keys = Object.keys(item);
		for (let index = keys.length - 1; index >= 0; index -= 1) {
			const key = keys[index];
			stack.push({
				item: (item as Record<string, unknown>)[key],
				at: { parent: at, step: key },
				secretField: SECRET_KEY.test(key),
			});
		}
		for (const key of keys)
			yield { at: { parent: at, step: key }, in: 'key', text: key, secretField: false };
	}
}

/** What `guardrail` finds in one string of a value. */
export function valueFinds(guardrail: Guardrail, visit: Visit): Match[] {
	if (guardrail.check === 'secrets' && visit.secretField && visit.text !== '')
		return [{ start: 0, end: visit.text.length, kind: 'secret' }];
	return findMatches(guardrail, visit.text);
}

/** Everything `guardrail` finds in a value's keys and strings (a tool call's args), each with its path. */
export function findInValue(guardrail: Guardrail, value: unknown): ValueMatch[] {
	const found: ValueMatch[] = [];
	for (const visit of visits(value))
		for (const match of valueFinds(guardrail, visit))
			found.push({ ...match, path: pathOf(visit.at), in: visit.in });
	return found;
}
