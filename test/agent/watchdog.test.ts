import {
	MAX_STALL_RATIO,
	measureBaselineMs,
	STALL_FLOOR_MS,
	stallVerdict,
} from '../support/watchdog';

/**
 * The hostile suites' event-loop watchdog decides by a ratio to a reference work timed at the same moment
 * (issue #39): a busy machine slows both alike and must not fail a suite, a real block must still fail it.
 */
describe('event-loop watchdog decision', () => {
	it('passes the stall a busy machine made of a benign case: 3.5 s when the reference work took 5 times its quiet 4 ms', () => {
		expect(stallVerdict(3_500, 20).fails).toBe(false);
	});

	it('fails a 5 s block on a quiet machine (reference work 4 ms)', () => {
		expect(stallVerdict(5_000, 4)).toEqual({ ratio: 1_250, fails: true });
	});

	it('fails the 5 s block measured on a busy shared machine: 5,012 ms against a reference work of 7.83 ms', () => {
		expect(stallVerdict(5_012, 7.83).fails).toBe(true);
	});

	it('fails a block that stays many times the reference work on a busy machine too: 20 s against 20 ms', () => {
		expect(stallVerdict(20_000, 20).fails).toBe(true);
	});

	it('never fails a stall under the floor, however fast the reference work ran', () => {
		expect(stallVerdict(STALL_FLOOR_MS - 1, 0.01).fails).toBe(false);
		expect(stallVerdict(STALL_FLOOR_MS, STALL_FLOOR_MS / MAX_STALL_RATIO).fails).toBe(true);
	});

	it('reads a zero or absent baseline as tiny instead of dividing by zero', () => {
		expect(stallVerdict(5_000, 0).fails).toBe(true);
		expect(Number.isFinite(stallVerdict(5_000, 0).ratio)).toBe(true);
	});

	it('times the reference work as a positive finite number of milliseconds', () => {
		const baseline = measureBaselineMs();
		expect(baseline).toBeGreaterThan(0);
		expect(Number.isFinite(baseline)).toBe(true);
	});
});
