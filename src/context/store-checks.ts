// The checks both conversation stores apply to what they are given: session keys, and persist's and the archive's bounds.
import { InvalidContextInputError } from '../redis/errors';
import type { ValidationResult } from '../validation/validate';
import {
	DEFAULT_ARCHIVE_TTL_SECONDS,
	DEFAULT_MAX_ARCHIVED_TURNS,
	MAX_SESSION_KEY_LENGTH,
	type PersistOptions,
} from './store';

/** Session keys must be non-empty and at most `MAX_SESSION_KEY_LENGTH` characters. */
export function validateSessionKey(sessionKey: unknown): ValidationResult<string> {
	if (typeof sessionKey !== 'string')
		return { ok: false, issues: ['session key: must be a string'] };
	if (sessionKey.trim() === '') return { ok: false, issues: ['session key: must not be empty'] };
	if (sessionKey.length > MAX_SESSION_KEY_LENGTH) {
		return {
			ok: false,
			issues: [
				`session key: is ${sessionKey.length} characters, at most ${MAX_SESSION_KEY_LENGTH} are allowed`,
			],
		};
	}
	return { ok: true, value: sessionKey };
}

/** Checks persist's bounds; both stores apply the same rules. */
export function validatePersistOptions(options: PersistOptions): ValidationResult<PersistOptions> {
	const issues: string[] = [];
	if (!Number.isInteger(options.maxStoredTurns) || options.maxStoredTurns < 1) {
		issues.push(
			`maxStoredTurns: must be a positive integer, got ${String(options.maxStoredTurns)}`,
		);
	}
	for (const field of ['ttlSeconds', 'archiveTtlSeconds'] as const) {
		const value = options[field];
		if (value === undefined && field === 'archiveTtlSeconds') continue;
		if (!Number.isInteger(value) || (value as number) < 0)
			issues.push(
				`${field}: must be 0 (never expires) or a positive integer, got ${String(value)}`,
			);
	}
	if (
		options.maxArchivedTurns !== undefined &&
		(!Number.isInteger(options.maxArchivedTurns) || options.maxArchivedTurns < 1)
	) {
		issues.push(
			`maxArchivedTurns: must be a positive integer, got ${String(options.maxArchivedTurns)}`,
		);
	}
	if (options.systemMessage !== undefined && typeof options.systemMessage !== 'string') {
		issues.push('systemMessage: must be a string');
	}
	return issues.length === 0 ? { ok: true, value: options } : { ok: false, issues };
}

/** Throws `InvalidContextInputError` for bad persist options; returns the archive's bounds with defaults filled in. */
export function assertPersistOptions(options: PersistOptions): {
	archiveTtlSeconds: number;
	maxArchivedTurns: number;
} {
	const checked = validatePersistOptions(options);
	if (!checked.ok) throw new InvalidContextInputError('persist options', checked.issues);
	return archiveBounds(options);
}

/** The archive's TTL and size with their defaults. */
export function archiveBounds(options: { archiveTtlSeconds?: number; maxArchivedTurns?: number }): {
	archiveTtlSeconds: number;
	maxArchivedTurns: number;
} {
	return {
		archiveTtlSeconds: options.archiveTtlSeconds ?? DEFAULT_ARCHIVE_TTL_SECONDS,
		maxArchivedTurns: options.maxArchivedTurns ?? DEFAULT_MAX_ARCHIVED_TURNS,
	};
}

/** Throws `InvalidContextInputError` for a bad session key; returns it otherwise. */
export function assertSessionKey(sessionKey: string): string {
	const result = validateSessionKey(sessionKey);
	if (!result.ok) throw new InvalidContextInputError('session key', result.issues);
	return result.value;
}
