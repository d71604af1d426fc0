// Deferred loading of heavy modules (model SDKs, ioredis, ajv, re2js, OpenTelemetry), shared by every layer that needs one.
/**
 * A module loaded on first use instead of when this package is loaded. n8n loads every community package
 * in every process (main and each worker) at start, and most never call a given SDK: eagerly, the SDKs
 * alone cost each process about half a second and 35 MB (issue #20).
 */
export function loadOnce<T>(load: () => T): () => T {
	let loaded: { value: T } | undefined;
	return () => (loaded ??= { value: load() }).value;
}
