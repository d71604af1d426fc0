// Card numbers are Luhn-checked and IBANs mod-97-checked: a number failing its checksum is no match.
import {
	findCardNumbers,
	findIbans,
	passesLuhn,
	passesMod97,
} from '../../src/guardrails/account-numbers';

const found = (finder: (text: string) => { start: number; end: number }[], text: string) =>
	finder(text).map(({ start, end }) => text.slice(start, end));

describe('card numbers', () => {
	test('Luhn-valid numbers of 13 to 19 digits, plain, spaced or dashed', () => {
		expect(passesLuhn('4111111111111111')).toBe(true);
		expect(passesLuhn('4111111111111112')).toBe(false);
		expect(found(findCardNumbers, 'card 4111 1111 1111 1111, exp 12/27')).toEqual([
			'4111 1111 1111 1111',
		]);
		expect(found(findCardNumbers, 'amex 3782-822463-10005.')).toEqual(['3782-822463-10005']);
		expect(found(findCardNumbers, '"5555555555554444"')).toEqual(['5555555555554444']);
	});

	test('a number failing Luhn is not a card', () => {
		expect(found(findCardNumbers, 'card 4111 1111 1111 1112')).toEqual([]);
		expect(found(findCardNumbers, '5555555555554445')).toEqual([]);
	});

	test('not inside a longer number, word or decimal; not with doubled separators', () => {
		expect(found(findCardNumbers, 'x4111111111111111')).toEqual([]);
		expect(found(findCardNumbers, '3.4111111111111111')).toEqual([]);
		expect(found(findCardNumbers, '41111111111111110000')).toEqual([]);
		expect(found(findCardNumbers, '4111  1111  1111  1111')).toEqual([]);
		expect(found(findCardNumbers, 'order 2024 12 31 0000 total')).toEqual([]);
	});

	test('a card followed by another number in the same run is still found', () => {
		expect(found(findCardNumbers, '4111 1111 1111 1111 2025')).toEqual(['4111 1111 1111 1111']);
	});
});

describe('IBANs', () => {
	test('mod-97-valid IBANs, grouped or compact, either case', () => {
		expect(passesMod97('GB82WEST12345698765432')).toBe(true);
		expect(found(findIbans, 'pay GB82 WEST 1234 5698 7654 32 today')).toEqual([
			'GB82 WEST 1234 5698 7654 32',
		]);
		expect(found(findIbans, 'iban=gb82west12345698765432;')).toEqual(['gb82west12345698765432']);
		expect(found(findIbans, 'DE89 3704 0044 0532 0130 00 then')).toEqual([
			'DE89 3704 0044 0532 0130 00',
		]);
	});

	test('one digit changed fails mod 97 and is not an IBAN', () => {
		expect(passesMod97('GB82WEST12345698765433')).toBe(false);
		expect(found(findIbans, 'pay GB82 WEST 1234 5698 7654 33 today')).toEqual([]);
		expect(found(findIbans, 'GB83WEST12345698765432')).toEqual([]);
	});

	test('a grouped IBAN followed by a word of four letters is read without it', () => {
		expect(found(findIbans, 'DE89 3704 0044 0532 0130 0000 next')).toEqual([]);
		expect(found(findIbans, 'NL91 ABNA 0417 1643 00 here, and NL91 ABNA 0417 1643 00')).toEqual([
			'NL91 ABNA 0417 1643 00',
			'NL91 ABNA 0417 1643 00',
		]);
	});

	test('not inside a longer word', () => {
		expect(found(findIbans, 'XGB82WEST12345698765432')).toEqual([]);
	});
});
