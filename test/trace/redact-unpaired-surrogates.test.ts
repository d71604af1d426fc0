import { REDACTED, Redactor } from '../../src/trace/redact';

describe('Redactor with a known secret that holds an unpaired surrogate', () => {
	// A header value or secret setting read from JSON can hold "\ud800"; encodeURIComponent throws on it.
	const secret = 'tok\ud800en-123456';

	it('is made without throwing and redacts the secret raw and JSON-escaped', () => {
		const redactor = new Redactor([secret]);
		expect(redactor.text(`a ${secret} b`)).toBe(`a ${REDACTED} b`);
		expect(redactor.text(`{"h":${JSON.stringify(secret)}}`)).toBe(`{"h":"${REDACTED}"}`);
	});

	it('redacts the URL-encoded spelling, which writes the surrogate as U+FFFD', () => {
		expect(new Redactor([secret]).text(`?q=${encodeURIComponent('tok\ufffden-123456')}&x=1`)).toBe(
			`?q=${REDACTED}&x=1`,
		);
	});
});
