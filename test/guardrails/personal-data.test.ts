// E-mail addresses, phone numbers and IP addresses: true finds, and the look-alikes that are not.
import { findEmails, findIpAddresses, findPhoneNumbers } from '../../src/guardrails/personal-data';

const found = (finder: (text: string) => { start: number; end: number }[], text: string) =>
	finder(text).map(({ start, end }) => text.slice(start, end));

describe('e-mail addresses', () => {
	test('addresses in prose and JSON', () => {
		expect(found(findEmails, 'Write to jane.doe+x@mail.example.co.uk.')).toEqual([
			'jane.doe+x@mail.example.co.uk',
		]);
		expect(found(findEmails, '{"to":"bob@example.com"}')).toEqual(['bob@example.com']);
	});

	test('not an address: a handle, a domain without a dot, a numeric ending', () => {
		expect(found(findEmails, '@channel ping @bob and a@localhost or x@1.2')).toEqual([]);
	});
});

describe('phone numbers', () => {
	test.each([
		'+44 20 7946 0000',
		'+14155552671',
		'(555) 123-4567',
		'555-123-4567',
		'020 7946 0000',
		'06 12 34 56 78',
		'06.12.34.56.78',
	])('finds %s', (number) => {
		expect(found(findPhoneNumbers, `call ${number} now`)).toEqual([number]);
	});

	test.each([
		['a year', 'in 2024 we'],
		['a price', 'costs 1 299 999 EUR'],
		['thousands with dots', 'paid 12.345.678 total'],
		['a date', 'on 2024-01-15 and 15.01.2024'],
		['a plain id', 'order 48213990 shipped'],
		['a dotted quad', 'host 192.168.100.200 up'],
		['a decimal', 'pi is 3.14159265358'],
		['a card number', '4111 1111 1111 1111'],
		['a number inside a word', 'ref A555-123-4567'],
	])('does not take %s for a phone number', (_, text) => {
		expect(found(findPhoneNumbers, text)).toEqual([]);
	});
});

describe('IP addresses', () => {
	test('IPv4 with each number at most 255, with a port, and IPv6 full and compressed', () => {
		expect(
			found(
				findIpAddresses,
				'from 192.168.1.10, 10.0.0.1:8080, 2001:0db8:0000:0000:0000:ff00:0042:8329, fe80::1, ::1 and ::ffff:10.0.0.1.',
			),
		).toEqual([
			'192.168.1.10',
			'10.0.0.1',
			'2001:0db8:0000:0000:0000:ff00:0042:8329',
			'fe80::1',
			'::1',
			'::ffff:10.0.0.1',
		]);
	});

	test('not an address: octets over 255, five numbers, times, C++ scopes, version strings with letters', () => {
		expect(
			found(findIpAddresses, '256.1.1.1 1.2.3.4.5 at 12:30:45 std::vector v1.2.3.4b a:b 1:2:3'),
		).toEqual([]);
	});
});
