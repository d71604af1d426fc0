import { CIRCULAR, REDACTED, Redactor } from '../../src/trace/redact';

// The redactor passes over text that holds no trigger of any shape, texts shorter than every spelling of a
// known secret, and copies keys by assignment where that is safe. These prove the shortcuts drop nothing.
describe('Redactor shortcuts', () => {
	const apiKey = 'sk-live-0123456789abcdefghijklmnopqrstuvwxyzABCDEF';
	const redactor = new Redactor([apiKey, 'short-secret']);

	it('scrubs every shape of one text in one call, each shape applied after the ones before', () => {
		const text = [
			'Bearer abcdefghijkl',
			'sk-ABCDEFGHIJKLMNOPQRSTUV',
			'AIzaSyA1234567890abcdefghijklmnopqrstuv',
			'ghs_abcdefghijklmnopqrstuvwxyz0123456789',
			'github_pat_abcdefghijklmnopqrstuvwxyz0123',
			'xoxs-1234567890abc',
			'AKIAABCDEFGHIJKLMNOP',
			'eyJhbGciOi.eyJzdWIiOiIx.c2lnbmF0dXJl',
			'https://x.test/?sig=abc123',
			'password=hunter2',
			'{"api_key":"k-123"}',
		].join(' ');
		expect(redactor.text(text)).toBe(
			[
				`Bearer ${REDACTED}`,
				REDACTED,
				REDACTED,
				REDACTED,
				REDACTED,
				REDACTED,
				REDACTED,
				REDACTED,
				`https://x.test/?sig=${REDACTED}`,
				`password=${REDACTED}`,
				`{"api_key":"${REDACTED}"}`,
			].join(' '),
		);
	});

	it('scrubs shapes in texts shorter than any spelling of the known secrets', () => {
		expect(redactor.text('token=x')).toBe(`token=${REDACTED}`);
		expect(redactor.text('{"token":1}')).toBe(`{"token":${REDACTED}}`);
	});

	it('reads an escaped JSON key as JSON does, and an unescaped one as written', () => {
		expect(redactor.text('{"\\u0070assword":"a","pass\tword":"b","password":"c"}')).toBe(
			`{"\\u0070assword":"${REDACTED}","pass\tword":"b","password":"${REDACTED}"}`,
		);
	});

	it('keeps a key that Object.prototype holds as an accessor as an own property of the copy, without calling the setter', () => {
		const setter = jest.fn();
		Object.defineProperty(Object.prototype, 'injected', {
			set: setter,
			get: () => 'inherited',
			configurable: true,
		});
		try {
			const input = JSON.parse('{"injected":"value","nested":{"injected":"short-secret"}}');
			const output = redactor.value(input) as Record<string, Record<string, unknown>>;
			expect(Object.getOwnPropertyDescriptor(output, 'injected')).toEqual({
				value: 'value',
				enumerable: true,
				writable: true,
				configurable: true,
			});
			expect(Object.getOwnPropertyDescriptor(output.nested, 'injected')?.value).toBe(REDACTED);
			expect(setter).not.toHaveBeenCalled();
		} finally {
			delete (Object.prototype as Record<string, unknown>).injected;
		}
	});

	it('still numbers keys that redaction made equal, and still breaks cycles', () => {
		const input: Record<string, unknown> = { [`x ${apiKey}`]: 1, 'x [REDACTED]': 2 };
		input.self = input;
		expect(redactor.value(input)).toEqual({
			'x [REDACTED]': 1,
			'x [REDACTED] #2': 2,
			self: CIRCULAR,
		});
	});
});
