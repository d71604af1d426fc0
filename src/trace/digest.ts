import { createHash, hash } from 'node:crypto';
import type { Tool } from '../tools/tool';
import { canonicalJson } from '../validation/canonical-json';
import type { TraceStep } from './types';

import type { JsonSchema } from '../validation/validate';

/**
 * Hex SHA-256 of `text` as UTF-8. The one-shot `crypto.hash` (Node 20.12+, the package needs 20.15) makes the
 * same digest as a Hash object at about a third of the cost; the chain takes one per step of every run.
 */
export const sha256: (text: string) => string =
	typeof hash === 'function'
		? (text) => hash('sha256', text, 'hex')
		: (text) => createHash('sha256').update(text).digest('hex');

/**
 * The hash a config is known by in a run's chain base, its paused state and its audit record: its canonical JSON
 * without `model`, so a run may resume on another model.
 */
export function configHash(config: Record<string, unknown>): string {
	const { model: _model, ...rest } = config;
	return sha256(canonicalJson(rest));
}

/** A tool's argument schema as the chain base takes it: the hash of its canonical JSON. */
export const schemaHash = (schema: JsonSchema): string => sha256(canonicalJson(schema));

/**
 * A run's tools' schema hashes, kept by schema object: the built-in tools' schemas are the same objects in every
 * run, and each run's chain base hashed them again (issue #49). Keyed by object, as the run's validators are
 * (validation/validate.ts): a tool's schema is not changed once the tool is registered. The audit verifier
 * hashes with schemaHash itself, every time: the record it checks may have been changed in place.
 */
const runSchemaHashes = new WeakMap<JsonSchema, string>();

function runSchemaHash(schema: JsonSchema): string {
	let hashed = runSchemaHashes.get(schema);
	if (hashed === undefined) {
		hashed = schemaHash(schema);
		runSchemaHashes.set(schema, hashed);
	}
	return hashed;
}

/** What a run's chain starts from: the config's hash and each allowed tool's argument-schema hash. */
export interface ChainBase {
	configHash: string;
	toolSchemaHashes: Record<string, string>;
}

/** The chain base of a run with this config hash and these allowed tools. */
export function chainBase(configHash: string, tools: Iterable<Tool>): ChainBase {
	const toolSchemaHashes: Record<string, string> = {};
	for (const tool of tools) toolSchemaHashes[tool.name] = runSchemaHash(tool.parameters);
	return { configHash, toolSchemaHashes };
}

/**
 * The SHA-256 hash chain over a run (issue #19): the first link hashes the base, each next link hashes the
 * previous link with one step's canonical JSON, in order. One link per step after the base's; a change to
 * any step changes its link and every later one, so the last link — the run's `trace_digest` — proves the
 * whole trace, and the links name the first step that differs.
 */
export function traceChain(base: ChainBase, steps: readonly TraceStep[]): string[] {
	const links = [baseLink(base)];
	for (const step of steps) links.push(nextLink(links[links.length - 1], step));
	return links;
}

/** The chain's first link: the config hash and the tool schema hashes. */
export function baseLink(base: ChainBase): string {
	return sha256(`agent-core-trace-v1\n${base.configHash}\n${canonicalJson(base.toolSchemaHashes)}`);
}

/** The link after one step, from the link before it. */
export function nextLink(previous: string, step: TraceStep): string {
	return sha256(`${previous}\n${canonicalJson(step)}`);
}

/** The chain's head: what the output calls `trace_digest`. */
export function traceDigest(base: ChainBase, steps: readonly TraceStep[]): string {
	const links = traceChain(base, steps);
	return links[links.length - 1];
}
