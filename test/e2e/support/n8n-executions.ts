// n8n's executions as its PostgreSQL database keeps them (queue mode): status, retries, and the run data, parsed.
import type { Client as PgClient } from 'pg';
import type { WorkflowJson } from '../../../scripts/n8n-local';

/** One row of execution_entity with its execution_data, as n8n 1.123 and 2.41 store them. */
export interface StoredExecution {
	id: string;
	/** new, running, success, error, crashed, canceled, waiting (n8n's ExecutionStatus). */
	status: string;
	finished: boolean;
	/** webhook, retry, … (n8n's WorkflowExecuteMode). */
	mode: string;
	retryOf: string | null;
	startedAt: Date | null;
	stoppedAt: Date | null;
	/** The IRun's `data` (resultData.runData per node, resultData.error, executionData), parsed from n8n's `flatted` form. */
	data: any;
}

/** The execution's row and data, or undefined while n8n has not created it. */
export async function readStoredExecution(
	client: PgClient,
	executionId: string,
): Promise<StoredExecution | undefined> {
	const { rows } = await client.query(
		`SELECT e.id, e.status, e.finished, e.mode, e."retryOf", e."startedAt", e."stoppedAt", d.data
       FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id
      WHERE e.id = $1`,
		[executionId],
	);
	if (rows.length === 0) return undefined;
	const [row] = rows;
	return {
		...row,
		id: String(row.id),
		retryOf: row.retryOf === null ? null : String(row.retryOf),
		data: row.data ? unflatten(row.data) : undefined,
	};
}

/** The executions n8n created as retries of `executionId`, oldest first. */
export async function retriesOf(client: PgClient, executionId: string): Promise<string[]> {
	const { rows } = await client.query(
		'SELECT id FROM execution_entity WHERE "retryOf" = $1 ORDER BY id',
		[executionId],
	);
	return rows.map((row) => String(row.id));
}

/** The newest execution of a workflow that is not a retry, or undefined while there is none. */
export async function latestExecutionOf(
	client: PgClient,
	workflowId: string,
): Promise<string | undefined> {
	const { rows } = await client.query(
		'SELECT id FROM execution_entity WHERE "workflowId" = $1 AND "retryOf" IS NULL ORDER BY id DESC LIMIT 1',
		[workflowId],
	);
	return rows.length ? String(rows[0].id) : undefined;
}

/** The first output item of a node's last run in an execution's data (`runData[node][-1].data.main[0][0].json`). */
export function nodeOutputOf(execution: StoredExecution | undefined, nodeName: string): any {
	const runs = execution?.data?.resultData?.runData?.[nodeName];
	return runs?.[runs.length - 1]?.data?.main?.[0]?.[0]?.json;
}

/**
 * n8n stores execution data with `flatted` (JSON that can hold cycles): a table of values, the first the
 * root, in which every object and array is its own entry and every string inside one is the index of the
 * entry holding its value. This reads that form (what flatted.parse does, without its reviver).
 */
export function unflatten(text: string): unknown {
	const table: unknown[] = JSON.parse(text);
	const built = new Map<number, unknown>();
	const valueAt = (index: number): unknown => {
		const entry = table[index];
		if (entry === null || typeof entry !== 'object') return entry;
		if (built.has(index)) return built.get(index);
		const copy: Record<string, unknown> | unknown[] = Array.isArray(entry) ? [] : {};
		built.set(index, copy);
		for (const [key, value] of Object.entries(entry))
			(copy as Record<string, unknown>)[key] =
				typeof value === 'string' ? valueAt(Number(value)) : value;
		return copy;
	};
	return valueAt(0);
}

/** The production webhook paths of a workflow's Webhook nodes. */
export function webhookPathsOf(workflow: WorkflowJson): string[] {
	return workflow.nodes
		.filter((node) => node.type === 'n8n-nodes-base.webhook')
		.map((node) => String(node.parameters.path));
}
