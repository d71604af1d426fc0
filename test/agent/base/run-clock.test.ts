import { callLimit, runLimit } from '../../../src/agent/base/run-clock';

/**
 * Timers the run clock holds now: each setTimeout made from src/agent/base/run-clock and not yet fired or cleared.
 * Counted by the clock's own timers, not the process's, so another test file's leftover timer in the same worker
 * (a busy machine shifts when they fire) cannot change the count.
 */
const clockTimers = new Set<unknown>();
const realSetTimeout = global.setTimeout;
const realClearTimeout = global.clearTimeout;
beforeAll(() => {
	jest.spyOn(global, 'setTimeout').mockImplementation(((
		callback: (...args: unknown[]) => void,
		delay?: number,
		...args: unknown[]
	) => {
		const fromClock = /src[\\/]agent[\\/]base[\\/]run-clock/.test(new Error().stack ?? '');
		const handle: unknown = realSetTimeout(() => {
			clockTimers.delete(handle);
			callback(...args);
		}, delay);
		if (fromClock) clockTimers.add(handle);
		return handle;
	}) as typeof setTimeout);
	jest.spyOn(global, 'clearTimeout').mockImplementation(((
		handle?: Parameters<typeof clearTimeout>[0],
	) => {
		clockTimers.delete(handle);
		realClearTimeout(handle);
	}) as typeof clearTimeout);
});
afterAll(() => jest.restoreAllMocks());
const timers = () => clockTimers.size;
const never = () => new Promise<never>(() => undefined);
const settled = <T>(promise: Promise<T>) =>
	promise.then(
		(value) => ({ value }),
		(error: unknown) => ({ error }),
	);

describe('call limits: a run and its calls on one timer', () => {
	it('gives a call started after an earlier one its own full single_call_timeout', async () => {
		const controller = new AbortController();
		const run = runLimit(controller, 60);
		try {
			const first = callLimit(controller.signal, 0.2);
			first.dispose(); // ends at once; the run's timer now waits for the first call's deadline
			await new Promise((resolve) => setTimeout(resolve, 100));
			const second = callLimit(controller.signal, 0.2);
			const started = performance.now();
			const outcome = await settled(second.race(never()));
			const waited = performance.now() - started;
			second.dispose();

			expect(outcome).toEqual({
				error: expect.objectContaining({
					name: 'TimeLimitError',
					message: 'no answer within single_call_timeout (0.2 s)',
				}),
			});
			expect(second.timedOut()).toBe(true);
			expect(second.signal.aborted).toBe(true);
			// Not cut short by the first call's deadline, 100 ms earlier.
			expect(waited).toBeGreaterThanOrEqual(195);
			expect(controller.signal.aborted).toBe(false);
		} finally {
			run.dispose();
		}
	});

	it('aborts the calls running with the run when the run is cancelled, with the run reason, not as a call timeout', async () => {
		const controller = new AbortController();
		const external = new AbortController();
		const run = runLimit(controller, 60, external.signal);
		const call = callLimit(controller.signal, 60);
		const signal = call.signal;
		const raced = settled(call.race(never()));
		external.abort();
		const outcome = await raced;
		call.dispose();
		run.dispose();

		expect(outcome).toEqual({
			error: expect.objectContaining({ message: 'the run was cancelled' }),
		});
		expect(signal.aborted).toBe(true);
		expect(signal.reason).toBe(controller.signal.reason);
		expect(call.timedOut()).toBe(false);
	});

	it('ends the run at its timeout, and the call running with it', async () => {
		const controller = new AbortController();
		const run = runLimit(controller, 0.05);
		const call = callLimit(controller.signal, 60);
		const outcome = await settled(call.race(never()));
		call.dispose();
		run.dispose();

		expect(controller.signal.reason).toMatchObject({
			name: 'TimeLimitError',
			scope: 'run',
			message: 'the run did not finish within timeout (0.05 s)',
		});
		expect(outcome).toEqual({ error: controller.signal.reason });
		expect(call.timedOut()).toBe(false);
	});

	it('hands a call made after the run stopped an aborted signal, and rejects its race at once', async () => {
		const controller = new AbortController();
		const external = new AbortController();
		external.abort();
		const run = runLimit(controller, 60, external.signal);
		const call = callLimit(controller.signal, 60);
		let workRejected = false;
		const work = Promise.reject(new Error('the tool failed too')).catch((error: unknown) => {
			workRejected = true;
			throw error;
		});

		await expect(call.race(work)).rejects.toMatchObject({ message: 'the run was cancelled' });
		expect(call.signal.aborted).toBe(true);
		call.dispose();
		run.dispose();
		await new Promise((resolve) => setImmediate(resolve));
		expect(workRejected).toBe(true);
	});

	it('leaves a finished call alone when the run is stopped later', async () => {
		const controller = new AbortController();
		const external = new AbortController();
		const run = runLimit(controller, 60, external.signal);
		const call = callLimit(controller.signal, 60);
		const signal = call.signal;
		await expect(call.race(Promise.resolve('done'))).resolves.toBe('done');
		call.dispose();
		external.abort();
		run.dispose();

		expect(controller.signal.aborted).toBe(true);
		expect(signal.aborted).toBe(false);
	});

	it('leaves no timer behind once the run is over, however many calls it made', () => {
		const before = timers();
		const controller = new AbortController();
		const run = runLimit(controller, 60);
		for (let index = 0; index < 5; index++) callLimit(controller.signal, 30 - index).dispose();
		expect(timers()).toBe(before + 1);
		run.dispose();
		expect(timers()).toBe(before);
	});

	it('times out a call under a signal no run keeps, on a timer of its own that goes with the call', async () => {
		const before = timers();
		const controller = new AbortController();
		const call = callLimit(controller.signal, 0.05);
		expect(timers()).toBe(before + 1);
		const outcome = await settled(call.race(never()));
		call.dispose();

		expect(outcome).toEqual({
			error: expect.objectContaining({ message: 'no answer within single_call_timeout (0.05 s)' }),
		});
		expect(call.timedOut()).toBe(true);
		expect(timers()).toBe(before);

		const cancelled = callLimit(controller.signal, 60);
		const raced = settled(cancelled.race(never()));
		controller.abort(new Error('stopped by the caller'));
		expect(await raced).toEqual({ error: new Error('stopped by the caller') });
		cancelled.dispose();
		expect(timers()).toBe(before);
	});
});
