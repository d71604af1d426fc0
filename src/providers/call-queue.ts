/**
 * At most `size` model calls at once; the others wait their turn in arrival order. A call that finds a free
 * slot starts at once: p-limit, used before, made six promises and two microtask turns for every call, free
 * slot or not (issue #29's profile of the engine on the openai SDK).
 */
export class CallQueue {
  private active = 0;
  private first?: Waiting;
  private last?: Waiting;

  constructor(readonly size: number) {}

  /** `work()` once a slot is free; its result, whatever it is. */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active < this.size) return this.start(work);
    return new Promise<T>((resolve) => {
      const waiting: Waiting = { start: () => resolve(this.start(work)) };
      if (this.last) this.last.next = waiting;
      else this.first = waiting;
      this.last = waiting;
    });
  }

  private start<T>(work: () => Promise<T>): Promise<T> {
    this.active++;
    let result: Promise<T>;
    try {
      result = work();
    } catch (error) {
      result = Promise.reject(error);
    }
    // The slot is free once the call has settled either way; the caller handles the result itself.
    result.then(this.finished, this.finished);
    return result;
  }

  private readonly finished = (): void => {
    this.active--;
    const next = this.first;
    if (!next) return;
    this.first = next.next;
    if (!this.first) this.last = undefined;
    next.start();
  };
}

/** A call waiting for a slot (a linked list: a burst of thousands is dequeued in constant time per call). */
interface Waiting {
  start: () => void;
  next?: Waiting;
}
