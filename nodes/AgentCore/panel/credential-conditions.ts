// When a credential picker shows, written so that n8n 1.x's editor keeps the switches it depends on visible.
import type { ICredentialsDisplayOptions } from 'n8n-workflow';

/**
 * Shown while every one of these boolean fields is on, as `hide` on `false`. n8n 1.x's editor reads a
 * credential's `show` to find the node's "main authentication field": a boolean named there becomes it,
 * and the editor then hides it from the panel together with every field its own `show` names
 * (getMainAuthField and isAuthRelatedParameter in editor-ui's utils/nodeTypesUtils.ts, n8n 1.123). Written
 * with `show`, Require Approval's picker took Governance and Require Approval off version 2's panel. n8n's
 * displayParameter means the same by `hide` (each hide key hides on its own, and a run fills in defaults
 * first), and that editor code does not read `hide`.
 */
export function whileOn(...fields: string[]): ICredentialsDisplayOptions {
	return { hide: Object.fromEntries(fields.map((field) => [field, [false]])) };
}
