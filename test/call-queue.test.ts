import { CallQueue } from '../src/providers/call-queue';

/** A call that settles when the test says so. */
function held<T>() {
  let settle!: { resolve: (value: T) => void; reject: (error: unknown) => void };
  const promise = new Promise<T>((resolve, reject) => (settle = { resolve, reject }));
  return { promise, ...settle };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('CallQueue: the per-credential cap on model calls', () => {
  it('runs at most size calls at once and starts the waiting ones in arrival order as slots free', async () => {
    const queue = new CallQueue(2);
    const calls = Array.from({ length: 5 }, () => held<number>());
    const started: number[] = [];
    const results = calls.map((call, index) =>
      queue.run(() => {
        started.push(index);
        return call.promise;
      }),
    );
    expect(started).toEqual([0, 1]);

    calls[1].resolve(1);
    await turn();
    expect(started).toEqual([0, 1, 2]);
    calls[0].reject(new Error('call 0 failed'));
    await turn();
    expect(started).toEqual([0, 1, 2, 3]);
    calls[3].resolve(3);
    calls[2].resolve(2);
    await turn();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    calls[4].resolve(4);

    await expect(results[0]).rejects.toThrow('call 0 failed');
    await expect(Promise.all(results.slice(1))).resolves.toEqual([1, 2, 3, 4]);
  });

  it('frees the slot of a call that throws before returning a promise, and rejects with its error', async () => {
    const queue = new CallQueue(1);
    const failed = queue.run<number>(() => {
      throw new Error('thrown at once');
    });
    const next = queue.run(() => Promise.resolve(7));
    await expect(failed).rejects.toThrow('thrown at once');
    await expect(next).resolves.toBe(7);
  });

  it('starts a call at once when a slot is free', () => {
    const queue = new CallQueue(1);
    let started = false;
    void queue.run(() => {
      started = true;
      return Promise.resolve();
    });
    expect(started).toBe(true);
  });
});
