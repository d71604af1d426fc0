/** ECMAScript's Unicode property names (`\p{…}` with the `u` flag) as RE2 (re2js) names them, or why RE2 has none. */
import type { PatternProblem } from './pattern-problem';

/**
 * General_Category values: RE2's short name, then the long names and aliases ECMAScript also takes. From
 * Unicode's PropertyValueAliases.txt (`gc ; …` lines), which ECMA-262 §22.2.2.9 (UnicodeMatchPropertyValue,
 * table "Value aliases and canonical values for the Unicode property General_Category") adopts.
 */
const GENERAL_CATEGORIES: Readonly<Record<string, readonly string[]>> = {
	C: ['Other'],
	Cc: ['Control', 'cntrl'],
	Cf: ['Format'],
	Cn: ['Unassigned'],
	Co: ['Private_Use'],
	Cs: ['Surrogate'],
	L: ['Letter'],
	LC: ['Cased_Letter'],
	Ll: ['Lowercase_Letter'],
	Lm: ['Modifier_Letter'],
	Lo: ['Other_Letter'],
	Lt: ['Titlecase_Letter'],
	Lu: ['Uppercase_Letter'],
	M: ['Mark', 'Combining_Mark'],
	Mc: ['Spacing_Mark'],
	Me: ['Enclosing_Mark'],
	Mn: ['Nonspacing_Mark'],
	N: ['Number'],
	Nd: ['Decimal_Number', 'digit'],
	Nl: ['Letter_Number'],
	No: ['Other_Number'],
	P: ['Punctuation', 'punct'],
	Pc: ['Connector_Punctuation'],
	Pd: ['Dash_Punctuation'],
	Pe: ['Close_Punctuation'],
	Pf: ['Final_Punctuation'],
	Pi: ['Initial_Punctuation'],
	Po: ['Other_Punctuation'],
	Ps: ['Open_Punctuation'],
	S: ['Symbol'],
	Sc: ['Currency_Symbol'],
	Sk: ['Modifier_Symbol'],
	Sm: ['Math_Symbol'],
	So: ['Other_Symbol'],
	Z: ['Separator'],
	Zl: ['Line_Separator'],
	Zp: ['Paragraph_Separator'],
	Zs: ['Space_Separator'],
};

/**
 * The binary properties RE2 (re2js 2.10, Unicode 17, like Node's ICU) has tables for: ECMAScript's name, its
 * aliases (ECMA-262 §22.2.2.9, table "Binary Unicode property aliases"), then RE2's name where it differs.
 * ECMAScript's other binary properties (ID_Start, Ideographic, …) have no RE2 table.
 */
const BINARY_PROPERTIES: ReadonlyArray<{ name: string; aliases: readonly string[]; re2?: string }> =
	[
		{ name: 'Any', aliases: [] },
		{ name: 'ASCII', aliases: [], re2: 'Ascii' },
		{ name: 'Assigned', aliases: [] },
		{ name: 'Alphabetic', aliases: ['Alpha'] },
		{ name: 'ASCII_Hex_Digit', aliases: ['AHex'] },
		{ name: 'Dash', aliases: [] },
		{ name: 'Emoji', aliases: [] },
		{ name: 'Emoji_Component', aliases: ['EComp'] },
		{ name: 'Emoji_Modifier', aliases: ['EMod'] },
		{ name: 'Emoji_Modifier_Base', aliases: ['EBase'] },
		{ name: 'Emoji_Presentation', aliases: ['EPres'] },
		{ name: 'Extended_Pictographic', aliases: ['ExtPict'] },
		{ name: 'Hex_Digit', aliases: ['Hex'] },
		{ name: 'Lowercase', aliases: ['Lower'] },
		{ name: 'Math', aliases: [] },
		{ name: 'Quotation_Mark', aliases: ['QMark'] },
		{ name: 'Terminal_Punctuation', aliases: ['Term'] },
		{ name: 'Uppercase', aliases: ['Upper'] },
		{ name: 'White_Space', aliases: ['space'] },
	];

const RE2_NAME_OF = new Map<string, string>([
	...Object.entries(GENERAL_CATEGORIES).flatMap(([short, longNames]) =>
		[short, ...longNames].map((name) => [name, short] as const),
	),
	...BINARY_PROPERTIES.flatMap(({ name, aliases, re2 }) =>
		[name, ...aliases].map((alias) => [alias, re2 ?? name] as const),
	),
]);
const CATEGORY_NAMES = new Set(Object.entries(GENERAL_CATEGORIES).flat(2));

/** The property names the engine takes, for messages. */
export const ACCEPTED_PROPERTY_NAMES =
	'a General_Category (L or Letter, Lu or Uppercase_Letter, Ll, Nd or digit, P or punct, …, alone or as gc=… or ' +
	'General_Category=…), Script=<the full script name> or sc=<…> (e.g. Script=Greek, Script=Latin), or one of the ' +
	`binary properties ${BINARY_PROPERTIES.map(({ name, aliases }) => [name, ...aliases].join('/')).join(', ')}`;

const refusal = (problem: string, fix: string): PatternProblem => ({
	problem,
	fix: `${fix} The engine takes ${ACCEPTED_PROPERTY_NAMES}.`,
});

/**
 * The name RE2 knows for the property inside `\p{…}` (ECMAScript's spelling, already known to be valid there),
 * or why RE2 has no table for it. `Script=` values are handed on as written: RE2 has the full script names only,
 * so `runsName` (whether RE2 compiles `\p{name}`) decides whether a short code such as Grek is refused.
 */
export function re2PropertyName(
	property: string,
	runsName: (name: string) => boolean,
): string | PatternProblem {
	const [key, value] = property.includes('=') ? property.split('=') : [undefined, property];
	if (key === 'Script_Extensions' || key === 'scx') {
		const problem = `uses \\p{${property}}: the pattern engine (RE2) has no Script_Extensions tables`;
		return refusal(problem, `Write \\p{Script=${value}} (the characters of that script only).`);
	}
	if (key === 'Script' || key === 'sc') {
		if (runsName(value) && !RE2_NAME_OF.has(value)) return value;
		const problem = `uses \\p{${property}}, a script name the pattern engine (RE2) does not know`;
		return refusal(
			problem,
			"Write the script's full name as Unicode spells it (Script=Greek, not Script=Grek).",
		);
	}
	const re2 = RE2_NAME_OF.get(value);
	if (re2 === undefined || (key !== undefined && !CATEGORY_NAMES.has(value)) || !runsName(re2)) {
		const problem = `uses \\p{${property}}, a property the pattern engine (RE2) has no table for`;
		return refusal(
			problem,
			'Use a property it has, or list the characters in a class such as [a-z0-9].',
		);
	}
	return re2;
}

/**
 * The fix for a `\p{…}` JavaScript refuses: `\p{Greek}` (RE2's and Perl's spelling of a script RE2 knows) becomes
 * `\p{Script=Greek}`; any other name gets the list of the names the engine takes.
 */
export function propertyNameFix(pattern: string, runsName: (name: string) => boolean): string {
	for (const [, property] of pattern.matchAll(/\\[pP]\{([^}=]*)\}/g)) {
		if (isScriptName(property) && runsName(property)) {
			return (
				`Write \\p{Script=${property}}: with the u flag a lone name is a General_Category or a binary property, ` +
				'and a script is named as Script=….'
			);
		}
	}
	return (
		'Name the property as JavaScript does (e.g. \\p{Letter}, \\p{Script=Greek}). ' +
		`The engine takes ${ACCEPTED_PROPERTY_NAMES}.`
	);
}

function isScriptName(name: string): boolean {
	try {
		new RegExp(`\\p{Script=${name}}`, 'u');
		return true;
	} catch {
		return false;
	}
}
