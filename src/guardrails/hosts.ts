/**
 * The `urls` check: every host in a text — of a URL (`scheme://…`, judged by the host a URL parser reads, so
 * `https://api.example.com@evil.com` is evil.com) or bare (`api.example.com`, a dotted quad) — must be allowed.
 * One pass over the text, no regular expression that could backtrack.
 */
import type { Span } from '../core/spans';
import { isWordCharacter } from './characters';

/**
 * A host as hosts are compared: lower case, IDN as punycode, IPv4 in dotted decimal, no trailing dot; undefined
 * if it is no host.
 */
export function normalHost(host: string): string | undefined {
	let parsed: string;
	try {
		parsed = new URL(`http://${host}/`).hostname;
	} catch {
		return undefined;
	}
	return parsed.replace(/\.$/, '') || undefined;
}

/** An allowed host as written in `allowed_hosts` (`api.example.com`, `*.example.com`), ready to compare. */
export interface AllowedHosts {
	exact: ReadonlySet<string>;
	/** `.example.com` for `*.example.com`: a host ending so, with at least one more label, is allowed. */
	suffixes: readonly string[];
}

export function isAllowed(host: string, allowed: AllowedHosts): boolean {
	return (
		allowed.exact.has(host) ||
		allowed.suffixes.some((suffix) => host.length > suffix.length && host.endsWith(suffix))
	);
}

/**
 * File names that a bare name ending so is (`report.pdf`, `index.ts`), not a host: endings that are no top-level
 * domain. Endings that are (`.md`, `.sh`, `.py`, `.zip`) stay hosts: a check that keeps hosts out must not miss one.
 */
const FILE_ENDINGS = new Set(
	(
		'txt pdf json csv tsv js mjs cjs ts tsx jsx html htm xml yaml yml png jpg jpeg gif svg webp bmp ico doc ' +
		'docx xls xlsx ppt pptx odt gz tgz tar bz2 xz rar log ini cfg conf toml lock exe dll so dylib mp3 mp4 wav ' +
		'avi mkv css scss less map java class jar cpp hpp cc rb php pl swift kt go rs sql db sqlite bak tmp bin dat ' +
		'env sum mod'
	).split(' '),
);

/** Dots URL parsers read as dots (ideographic and fullwidth full stops): `evil。com` is evil.com. */
const DOTS = /[.\u3002\uff0e\uff61]/g;
const isDot = (character: string) =>
	character === '.' || character === '\u3002' || character === '\uff0e' || character === '\uff61';

/** ASCII letters, digits and `-`, or a letter, mark or digit of another script. */
function isNameCharacter(character: string): boolean {
	const code = character.charCodeAt(0);
	if (code < 0x80) {
		const lower = code | 0x20;
		return (code >= 0x30 && code <= 0x39) || (lower >= 0x61 && lower <= 0x7a) || code === 0x2d;
	}
	return isWordCharacter(character) && character !== '_';
}

/** Characters that end a URL written in text: space, quotes, angle brackets, backticks. */
const URL_END = /[\s"'<>`]/;
const SCHEME_CHARACTER = /[A-Za-z0-9+.-]/;

/** A found host and where it stands in the text. */
export interface FoundHost extends Span {
	host: string;
}

/** Each URL's host (`scheme://` then what a URL parser reads as its host). */
function urlHosts(text: string, found: FoundHost[]): void {
	for (let at = text.indexOf('://'); at >= 0; at = text.indexOf('://', at + 3)) {
		let start = at;
		while (start > 0 && SCHEME_CHARACTER.test(text[start - 1])) start -= 1;
		while (start < at && !/[A-Za-z]/.test(text[start])) start += 1;
		if (start === at) continue;
		let end = at + 3;
		while (end < text.length && !URL_END.test(text[end])) end += 1;
		// Any scheme is read as http's, the strictest reading of an authority (userinfo, IPv4 forms, IDN).
		let host: string;
		try {
			host = new URL(`http://${text.slice(at + 3, end)}`).hostname.replace(/\.$/, '');
		} catch {
			continue;
		}
		if (host !== '') found.push({ start, end, host });
		at = Math.max(at, end - 3);
	}
}

/** Whether a dotted name is a host: the last label letters (or `xn--`), not a file ending; or four numbers ≤ 255. */
function looksLikeHost(labels: readonly string[]): boolean {
	if (labels.length < 2 || labels.some((label) => label === '')) return false;
	const last = labels[labels.length - 1].toLowerCase();
	if (
		labels.length === 4 &&
		labels.every((label) => /^\d{1,3}$/.test(label) && Number(label) <= 255)
	)
		return true;
	if (/^xn--/.test(last)) return true;
	return /^\p{L}{2,63}$/u.test(last) && !FILE_ENDINGS.has(last);
}

/**
 * Each bare dotted name that looks like a host. Every host holds a dot: from each, the run of name characters and
 * dots around it is read once, then passed over.
 */
function bareHosts(text: string, found: FoundHost[]): void {
	DOTS.lastIndex = 0;
	for (let dot = DOTS.exec(text); dot; dot = DOTS.exec(text)) {
		let start = dot.index;
		while (start > 0 && (isNameCharacter(text[start - 1]) || isDot(text[start - 1]))) start -= 1;
		let end = dot.index + 1;
		while (end < text.length && (isNameCharacter(text[end]) || isDot(text[end]))) end += 1;
		DOTS.lastIndex = end;
		while (start < end && (isDot(text[start]) || text[start] === '-')) start += 1;
		while (end > start && (isDot(text[end - 1]) || text[end - 1] === '-')) end -= 1;
		const name = text.slice(start, end);
		const labels = name.split(/[.\u3002\uff0e\uff61]/);
		// A name just before `@` is an address's local part (`bob.smith@`); the host after the `@` is judged.
		if (text[end] !== '@' && looksLikeHost(labels)) {
			const host =
				/^[A-Za-z0-9.-]+$/.test(name) && !/^[\d.]+$/.test(name)
					? name.toLowerCase()
					: normalHost(name);
			if (host !== undefined) found.push({ start, end, host });
		}
	}
}

/** Every host in `text`, URL hosts and bare ones (a URL's host is also met bare; both are judged). */
export function findHosts(text: string): FoundHost[] {
	const found: FoundHost[] = [];
	if (text.includes('://')) urlHosts(text, found);
	bareHosts(text, found);
	return found;
}
