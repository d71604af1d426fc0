// The audit writes a process keeps for a later try: bounded in rows and bytes, and which failures deserve one.
import type { PreparedWrite } from './postgres-tables';

/** Pending writes kept per process for a later try, at most this many rows … */
export const MAX_PENDING = 1_000;
/** … and at most this many bytes of statement parameters (64 MiB); beyond either the oldest is given up. */
export const MAX_PENDING_BYTES = 64 * 1024 * 1024;
/** Runs set aside (refused for their content) remembered per process, by id and reason. */
export const MAX_SET_ASIDE = 100;

/**
 * Whether the database refused this write for what it holds, so that trying it again can never succeed:
 * SQLSTATE class 22 (data exception: a value the column cannot take), 23 (integrity constraint) or 54
 * (program limit exceeded: a value too large). Everything else — a lost or refused connection (no
 * SQLSTATE, or class 08), a database shut down or missing (57P0x, 3D000), a timeout — is worth a retry.
 */
export function refusedForContent(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === 'string' && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
}

/** A failed write's reason in words; `withState` adds the SQLSTATE (e.g. for a refusal by content). */
export function describeError(error: unknown, withState = false): string {
	const message = error instanceof Error ? error.message : String(error);
	const code = (error as { code?: unknown } | null)?.code;
	// pg's AggregateError (every address refused) has an empty message; its code says what happened.
	if (!message) return String(code ?? 'connection failed');
	return withState && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)
		? `${message}, SQLSTATE ${code}`
		: message;
}

/** A first-in, first-out list of writes waiting for the database, within MAX_PENDING and MAX_PENDING_BYTES. */
export class PendingWrites {
	private readonly queue: PreparedWrite[] = [];
	private totalBytes = 0;

	get length(): number {
		return this.queue.length;
	}

	get bytes(): number {
		return this.totalBytes;
	}

	head(): PreparedWrite | undefined {
		return this.queue[0];
	}

	/** Takes the head off (stored, or set aside). */
	shift(): void {
		const write = this.queue.shift();
		if (write) this.totalBytes -= write.bytes;
	}

	/**
	 * Adds a write at the end, giving up the oldest ones that no longer fit (their ids are returned). A write
	 * larger than the whole byte bound is not kept at all.
	 */
	add(write: PreparedWrite): { kept: boolean; givenUp: string[] } {
		if (write.bytes > MAX_PENDING_BYTES) return { kept: false, givenUp: [] };
		const givenUp: string[] = [];
		while (
			this.queue.length > 0 &&
			(this.queue.length >= MAX_PENDING || this.totalBytes + write.bytes > MAX_PENDING_BYTES)
		) {
			givenUp.push(this.queue[0].runId);
			this.shift();
		}
		this.queue.push(write);
		this.totalBytes += write.bytes;
		return { kept: true, givenUp };
	}
}
