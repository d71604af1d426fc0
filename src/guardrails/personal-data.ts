/**
 * E-mail addresses, phone numbers and IP addresses, each found by one pass over the text with a bounded look at
 * each candidate (no pattern that could backtrack over a long run). The phone rule keeps false positives low:
 * see findPhoneNumbers.
 */
import type { Span } from '../core/spans';
import { isDigit, isWordCharacter } from './characters';

/** Local parts as addresses are written (RFC 5322 allows more, `/` and `=` among them, which URLs hold). */
const LOCAL_PART = /[A-Za-z0-9._%+'-]/;
const DOMAIN_PART = /[A-Za-z0-9.-]|[^\x00-\x7f]/;

/**
 * E-mail addresses: around each `@`, the longest local part before it and domain after it; the domain has a dot,
 * no empty label, and ends in a label of two or more letters. Linear: an `@` is in neither part, so each character
 * is read from at most the `@` before it and the one after it.
 */
export function findEmails(text: string): Span[] {
	const found: Span[] = [];
	for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
		let start = at;
		while (start > 0 && LOCAL_PART.test(text[start - 1])) start -= 1;
		while (start < at && text[start] === '.') start += 1;
		let end = at + 1;
		while (end < text.length && DOMAIN_PART.test(text[end])) end += 1;
		while (end > at + 1 && (text[end - 1] === '.' || text[end - 1] === '-')) end -= 1;
		if (start === at || text[at - 1] === '.') continue;
		const labels = text.slice(at + 1, end).split('.');
		if (labels.length < 2 || labels.some((label) => label === '')) continue;
		if (!/^\p{L}{2,}$/u.test(labels[labels.length - 1])) continue;
		found.push({ start, end });
	}
	return found;
}

/**
 * Phone numbers, E.164 and national forms: 7 to 15 digits, in groups apart by one space, dash or dot, the first
 * perhaps in parentheses. A number written with `+` (`+44 20 7946 0000`, `+14155552671`) is one. Without `+` it
 * must have at most 12 digits and be grouped as phone numbers are (`020 7946 0000`, `(555) 123-4567`,
 * `06 12 34 56 78`): at least three groups (or a parenthesised area code), no group over 4 digits. Never one:
 * a plain run of digits (an id), a date (`2024-01-15`, `15.01.2024`), thousands (`1 000 000`, `12.345.678`),
 * a dotted quad (`192.168.1.10`), the digits of a card number or IBAN (dropped by the pii check).
 */
export function findPhoneNumbers(text: string): Span[] {
	const found: Span[] = [];
	const starts = /[+(]?\d/g;
	for (let next = starts.exec(text); next; next = starts.exec(text)) {
		const index = next.index;
		if (isWordCharacter(text[index - 1]) || '+.,/-'.includes(text[index - 1] ?? 'x')) continue;
		const end = phoneRunEnd(text, index);
		if (end - index < 7) {
			starts.lastIndex = Math.max(end, index + 1);
			continue;
		}
		const candidate = text.slice(index, end);
		if (end > index && !isWordCharacter(text[end]) && isPhone(candidate))
			found.push({ start: index, end });
		starts.lastIndex = Math.max(end, index + 1);
	}
	return found;
}

/** The end of a run of digits, `+` first, parentheses, and single separators between digits. */
function phoneRunEnd(text: string, start: number): number {
	let end = start;
	if (text[end] === '+') end += 1;
	for (;;) {
		if (text[end] === '(' && isDigit(text[end + 1])) end += 1;
		const digitsFrom = end;
		while (isDigit(text[end])) end += 1;
		if (end === digitsFrom) return digitsFrom > start && text[digitsFrom - 1] === '(' ? start : end;
		if (text[end] === ')') end += 1;
		const next = text[end];
		if (
			(next === ' ' || next === '-' || next === '.') &&
			(isDigit(text[end + 1]) || text[end + 1] === '(')
		)
			end += 1;
		else if (text[end - 1] === ')' && isDigit(text[end])) continue;
		else return end;
	}
}

function isPhone(candidate: string): boolean {
	const digits = candidate.replace(/\D/g, '');
	if (digits.length > 15) return false;
	if (digits.length < 7 || digits.length > 15) return false;
	if (candidate.startsWith('+')) return true;
	if (digits.length > 12) return false;
	const groups = candidate.split(/[ .()-]+/).filter((group) => group !== '');
	const parenthesised = /^\(\d{2,5}\)/.test(candidate);
	if (groups.some((group) => group.length > 4)) return false;
	if (groups.length < 3 && !parenthesised) return false;
	const separators = new Set(candidate.replace(/[\d()]/g, ''));
	const lengths = groups.map((group) => group.length).join(',');
	if (groups.length === 3 && /^(4,2,2|2,2,4|1,2,4|2,1,4)$/.test(lengths) && separators.size === 1)
		return false;
	if (groups.slice(1).every((group) => group.length === 3) && groups[0].length <= 3) return false;
	if (
		groups.length === 4 &&
		separators.size === 1 &&
		separators.has('.') &&
		groups.every((group) => group.length <= 3 && Number(group) <= 255)
	)
		return false;
	return true;
}

/** 0–9, a–f, A–F, `:` and `.`. */
function isAddressCharacter(character: string | undefined): boolean {
	if (character === undefined) return false;
	const code = character.charCodeAt(0);
	const lower = code | 0x20;
	return (code >= 0x2e && code <= 0x3a && code !== 0x2f) || (lower >= 0x61 && lower <= 0x66);
}

/** An IPv4 address with a port (`10.0.0.1:8080`): the address. */
const WITH_PORT = /^([\d.]+):\d{1,5}$/;

/**
 * IPv4 (four numbers of at most 3 digits, each ≤ 255) and IPv6 (full, compressed `::`, or ending in an IPv4),
 * not inside a longer word, number or address. Every address holds a dot or a colon: from each, the run of
 * address characters around it is read once (at most 45 characters are an address), then passed over.
 */
export function findIpAddresses(text: string): Span[] {
	const found: Span[] = [];
	const marks = /[.:]/g;
	for (let mark = marks.exec(text); mark; mark = marks.exec(text)) {
		let start = mark.index;
		while (start > 0 && isAddressCharacter(text[start - 1])) start -= 1;
		let end = mark.index + 1;
		while (end < text.length && isAddressCharacter(text[end])) end += 1;
		marks.lastIndex = end;
		while (start < end && text[start] === '.') start += 1;
		let last = end;
		while (last > start && text[last - 1] === '.') last -= 1;
		if (last - start > 45 || isWordCharacter(text[start - 1]) || isWordCharacter(text[end]))
			continue;
		const candidate = text.slice(start, last);
		if (isIpv4(candidate) || isIpv6(candidate)) found.push({ start, end: last });
		else {
			const address = WITH_PORT.exec(candidate)?.[1];
			if (address !== undefined && isIpv4(address))
				found.push({ start, end: start + address.length });
		}
	}
	return found;
}

function isIpv4(candidate: string): boolean {
	const parts = candidate.split('.');
	return parts.length === 4 && parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
}

function isIpv6(candidate: string): boolean {
	const halves = candidate.split('::');
	if (halves.length > 2) return false;
	const groups = halves.flatMap((half) => (half === '' ? [] : half.split(':')));
	if (groups.length === 0) return false;
	let count = groups.length;
	if (groups[groups.length - 1].includes('.')) {
		if (!isIpv4(groups.pop() as string)) return false;
		count += 1;
	}
	if (!groups.every((group) => /^[0-9A-Fa-f]{1,4}$/.test(group))) return false;
	return halves.length === 2 ? count <= 7 : count === 8;
}
