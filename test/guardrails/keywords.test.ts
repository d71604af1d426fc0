// The keywords check: whole words and phrases, case-insensitive, Unicode word boundaries.
import { checkGuardrails, findMatches } from '../../src/guardrails';

const [words] = checkGuardrails([
	{
		name: 'words',
		check: 'keywords',
		keywords: ['secret', 'Project Falcon', 'Straße', 'a.b'],
		on: ['answer'],
		action: 'block',
	},
]);
const hits = (text: string) =>
	findMatches(words, text).map(({ start, end }) => text.slice(start, end));

describe('the keywords check', () => {
	test('whole words in any case, phrases across up to 16 characters of space and punctuation', () => {
		expect(hits('A SECRET, the project   falcon and PROJECT-Falcon.')).toEqual([
			'SECRET',
			'project   falcon',
			'PROJECT-Falcon',
		]);
		expect(hits(`project${' '.repeat(17)}falcon`)).toEqual([]);
	});

	test('a keyword inside another word is not a match', () => {
		expect(hits('secretive secrets topsecret secret_key project falconry')).toEqual([]);
	});

	test('word boundaries of other scripts', () => {
		expect(hits('die STRASSE, die straße und Straßenbahn')).toEqual(['straße']);
		expect(hits('секрет secret秘密')).toEqual([]);
	});

	test('punctuation in a keyword separates its words', () => {
		expect(hits('a b and a.b')).toEqual(['a b', 'a.b']);
	});
});
