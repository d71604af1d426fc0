// The one bounded read (issue #48): a source is read one byte past its limit at most, whatever it claims.
import { Readable } from 'node:stream';
import { readStreamBounded } from '../../src/files';

/** A stream that never ends, counting the bytes it was asked for. */
function endless(chunk: number): { stream: Readable; given: () => number } {
	let given = 0;
	const stream = new Readable({
		read() {
			given += chunk;
			this.push(Buffer.alloc(chunk, 0x61));
		},
	});
	return { stream, given: () => given };
}

describe('readStreamBounded', () => {
	it('stops an endless stream one chunk past the limit and destroys it', async () => {
		const { stream, given } = endless(64 * 1024);
		expect(await readStreamBounded(stream, 1024 * 1024)).toEqual({ ok: false, over: true });
		expect(stream.destroyed).toBe(true);
		// What was read is the limit and what the stream had buffered ahead (its highWaterMark), not more.
		expect(given()).toBeLessThanOrEqual(1024 * 1024 + 64 * 1024 + stream.readableHighWaterMark);
	});

	it('takes a stream of exactly the limit, and refuses one byte more', async () => {
		const bytes = Buffer.alloc(1000, 1);
		expect(await readStreamBounded(Readable.from([bytes]), 1000)).toEqual({ ok: true, bytes });
		const more = Readable.from([bytes, Buffer.from([2])]);
		expect(await readStreamBounded(more, 1000)).toEqual({ ok: false, over: true });
	});
});
