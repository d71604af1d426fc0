// The one check that an entry point's options object holds only options it knows: a typo is refused, never ignored.
import { InputError } from './input-error';

/** Every key of an options type, unions included (a Redis source is one of three shapes). */
type AllKeys<Options> = Options extends unknown ? keyof Options : never;

/**
 * An entry point's option names, written once beside its options type: `satisfies OptionNames<Options>` makes
 * an option added to the type without its name here (or a name here the type lacks) fail to compile.
 */
export type OptionNames<Options> = Record<AllKeys<Options> & string, true>;

/** The most unknown names one message lists; a longer name is cut (the message is not a place for a whole payload). */
const MAX_NAMES_SHOWN = 5;
const MAX_NAME_CHARACTERS = 60;

/**
 * Refuses an options object with a key `known` lacks, as an InputError naming it (and the known option it
 * was probably meant to be: `baseURL` → `baseUrl`, `promt` → `prompt`), before the entry point does anything.
 * Own string keys only; a key counts even when its value is undefined (a typo is a typo). Not an object at
 * all is refused too. `elsewhere` may say where an unknown name belongs instead (a config key, say).
 */
export function checkKnownOptions(
	where: string,
	given: unknown,
	known: Readonly<Record<string, true>>,
	elsewhere?: (name: string) => string | undefined,
): void {
	const names = Object.keys(known);
	if (typeof given !== 'object' || given === null || Array.isArray(given))
		throw new InputError(
			'options',
			`${where} takes one options object, not ${given === null ? 'null' : Array.isArray(given) ? 'an array' : typeof given}`,
			`Call ${where} with an object of its options: ${names.join(', ')}.`,
		);
	const unknown = Object.keys(given).filter(
		(name) => !Object.prototype.hasOwnProperty.call(known, name),
	);
	if (unknown.length === 0) return;
	const first = shown(unknown[0]);
	const hints = unknown.slice(0, MAX_NAMES_SHOWN).map((name) => {
		const near = nearMiss(name, names);
		const other = near === undefined ? elsewhere?.(name) : undefined;
		return (
			`"${shown(name)}"` +
			(near !== undefined ? ` (did you mean "${near}"?)` : other ? ` (${other})` : '')
		);
	});
	const more =
		unknown.length > MAX_NAMES_SHOWN ? ` and ${unknown.length - MAX_NAMES_SHOWN} more` : '';
	const near = nearMiss(unknown[0], names);
	throw new InputError(
		first,
		`${where}: unknown option${unknown.length > 1 ? 's' : ''} ${hints.join(', ')}${more}; ` +
			`known options: ${names.join(', ')}`,
		near !== undefined
			? `Rename ${first} to ${near}.`
			: `Remove ${first}, or use one of ${where}'s options: ${names.join(', ')}.`,
	);
}

/** A name as the message shows it: cut, anything not printable ASCII escaped (no control or bidi character reaches a terminal). */
function shown(name: string): string {
	const cut = name.length > MAX_NAME_CHARACTERS ? `${name.slice(0, MAX_NAME_CHARACTERS)}…` : name;
	return JSON.stringify(cut)
		.slice(1, -1)
		.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The known name `name` was probably meant to be: equal but for case, `_` and `-` (`baseURL`, `base_url`), or
 * within an edit distance (a swap of two neighbours counts as one edit) of 1 for short names, 2 from 5 letters.
 */
export function nearMiss(name: string, known: readonly string[]): string | undefined {
	const plain = (text: string) => text.toLowerCase().replace(/[_-]/g, '');
	const wanted = plain(name);
	let best: { name: string; distance: number } | undefined;
	for (const candidate of known) {
		const distance = editDistance(wanted, plain(candidate));
		const limit = Math.min(wanted.length, candidate.length) <= 4 ? 1 : 2;
		if (distance <= limit && (best === undefined || distance < best.distance))
			best = { name: candidate, distance };
	}
	return best?.name;
}

/** Optimal string alignment distance; more than 2 apart in length is answered at once (no near miss there). */
function editDistance(a: string, b: string): number {
	if (Math.abs(a.length - b.length) > 2) return Infinity;
	const d = Array.from({ length: a.length + 1 }, (_, i) =>
		Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
	);
	for (let i = 1; i <= a.length; i++)
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
				d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
		}
	return d[a.length][b.length];
}
