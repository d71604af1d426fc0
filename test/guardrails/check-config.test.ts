// The guardrails setting checked: each problem a ConfigError naming the entry and field, and the fix.
import { ConfigError } from '../../src/core/config-error';
import { checkGuardrails } from '../../src/guardrails';

/** The ConfigError checkGuardrails throws for `value`. */
function refusal(value: unknown): ConfigError {
	try {
		checkGuardrails(value);
	} catch (error) {
		expect(error).toBeInstanceOf(ConfigError);
		return error as ConfigError;
	}
	throw new Error('accepted');
}

const entry = (fields: Record<string, unknown>) => ({
	name: 'g',
	check: 'pii',
	on: ['answer'],
	action: 'block',
	...fields,
});

describe('checkGuardrails', () => {
	test("accepts the issue's example and fills in defaults and normal hosts", () => {
		const checked = checkGuardrails([
			{
				name: 'no-cards',
				check: 'pii',
				kinds: ['credit_card'],
				on: ['tool_call', 'answer'],
				action: 'block',
			},
			{
				name: 'own-api-only',
				check: 'urls',
				allowed_hosts: ['API.Example.com', '*.bücher.de'],
				on: ['tool_call'],
				action: 'deny_call',
			},
			{ name: 'hide-emails', check: 'pii', on: ['observation', 'answer'], action: 'redact' },
			{
				name: 'internal',
				check: 'pattern',
				pattern: 'internal only',
				on: ['answer'],
				action: 'block',
			},
		]);
		expect(checked[1]).toMatchObject({ allowed_hosts: ['api.example.com', '*.xn--bcher-kva.de'] });
		expect(checked[2]).toMatchObject({
			kinds: ['email', 'phone', 'credit_card', 'iban', 'ip_address'],
		});
		expect(checkGuardrails(undefined)).toEqual([]);
	});

	test('an unknown kind names its place and the kinds there are', () => {
		const error = refusal([entry({}), entry({ name: 'h' }), entry({ name: 'k', kinds: ['ssn'] })]);
		expect(error.field).toBe('guardrails[2].kinds[0]');
		expect(error.message).toBe(
			'guardrails[2].kinds[0]: unknown kind "ssn": use email, phone, credit_card, iban or ip_address',
		);
	});

	test.each([
		[[entry({ check: 'pci' })], 'guardrails[0].check', /unknown check "pci"/],
		[[entry({ on: ['output'] })], 'guardrails[0].on[0]', /unknown point "output": use input/],
		[[entry({ on: [] })], 'guardrails[0].on', /non-empty list of points/],
		[[entry({ action: 'deny' })], 'guardrails[0].action', /unknown action "deny"/],
		[
			[entry({ action: 'deny_call', on: ['tool_call', 'answer'] })],
			'guardrails[0].action',
			/only fits/,
		],
		[[entry({ kindz: ['email'] })], 'guardrails[0].kindz', /did you mean "kinds"/],
		[[entry({ pattern: 'x' })], 'guardrails[0].pattern', /belongs to check "pattern", not "pii"/],
		[[entry({}), entry({})], 'guardrails[1].name', /names two guardrails/],
		[[entry({ name: '' })], 'guardrails[0].name', /1 to 64 printable/],
		[[entry({ name: 'x'.repeat(65) })], 'guardrails[0].name', /1 to 64/],
		[[entry({ name: 'a]b' })], 'guardrails[0].name', /no brackets/],
		[[entry({ name: 'tab\there' })], 'guardrails[0].name', /printable/],
		[[entry({ kinds: [] })], 'guardrails[0].kinds', /non-empty list/],
		[[entry({ check: 'urls' })], 'guardrails[0].allowed_hosts', /non-empty list of hosts/],
		[
			[entry({ check: 'urls', allowed_hosts: ['https://a.com/x'] })],
			'guardrails[0].allowed_hosts[0]',
			/is not a host/,
		],
		[
			[entry({ check: 'urls', allowed_hosts: ['a.com:443'] })],
			'guardrails[0].allowed_hosts[0]',
			/is not a host/,
		],
		[
			[entry({ check: 'urls', allowed_hosts: ['*'] })],
			'guardrails[0].allowed_hosts[0]',
			/is not a host/,
		],
		[[entry({ check: 'pattern', pattern: '(a)\\1' })], 'guardrails[0].pattern', /back-reference/],
		[[entry({ check: 'pattern', pattern: '(?=a)' })], 'guardrails[0].pattern', /lookahead/],
		[
			[entry({ check: 'pattern', pattern: 'a{0,5000}b' })],
			'guardrails[0].pattern',
			/1,000 times|instructions/,
		],
		[
			[entry({ check: 'pattern', pattern: 'x*' })],
			'guardrails[0].pattern',
			/matches the empty text/,
		],
		[
			[entry({ check: 'pattern', pattern: '[' })],
			'guardrails[0].pattern',
			/not a valid regular expression/,
		],
		[
			[entry({ check: 'keywords', keywords: ['ok', '!!!'] })],
			'guardrails[0].keywords[1]',
			/1 to 16 words/,
		],
		[
			[entry({ check: 'keywords', keywords: 'secret' })],
			'guardrails[0].keywords',
			/non-empty list/,
		],
		[['pii'], 'guardrails[0]', /must be an object/],
		[{ name: 'g' }, 'guardrails', /must be a list/],
		[
			Array.from({ length: 101 }, (_, index) => entry({ name: `g${index}` })),
			'guardrails',
			/more than 100/,
		],
	])('refuses %j at its field', (value, field, message) => {
		const error = refusal(value);
		expect(error.field).toBe(field);
		expect(error.message).toMatch(message);
		expect(error.fix).toContain(field.split('[')[0]);
	});

	test('a near miss of an action or a point is named in the fix', () => {
		expect(refusal([entry({ action: 'redcat' })]).fix).toBe(
			'Write "redact" in guardrails[0].action.',
		);
	});

	test('a hostile value in a message is cut and escaped', () => {
		const error = refusal([entry({ check: `\u202e${'x'.repeat(500)}` })]);
		expect(error.message.length).toBeLessThan(200);
		expect(error.message).not.toMatch(/[^\x20-\x7e]/);
	});
});
