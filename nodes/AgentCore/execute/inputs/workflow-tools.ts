import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	RelatedExecution,
} from 'n8n-workflow';
import { SchemaError, validateAgainst, type JsonSchema, type Tool } from '../../../../src/run-path';
import { nodeError } from '../../../shared/node-errors';
import { withItemBinaries } from './tool-binary';
import { DEFAULT_WORKFLOW_ARGS_SCHEMA } from '../../panel/workflow-tool-schema';

/** One row of the panel's "Workflow Tools": an n8n workflow offered to the agent as a tool. */
export interface WorkflowToolRow {
	name?: string;
	description?: string;
	workflowId?: string | { value?: string; cachedResultName?: string };
	argsSchema?: string | IDataObject;
}

/**
 * Builds the workflow tools of one item. Validated args become the sub-workflow's single input item;
 * the sub-workflow's last node output becomes the observation, its image and PDF binaries files with it. Runs under the same whitelist, schema
 * check and limits as every other tool. Each execution a tool starts is added to `subExecutions`, so the
 * editor can link the run to it as it does for n8n's own Workflow Tool.
 */
export function readWorkflowTools(
	context: IExecuteFunctions,
	itemIndex: number,
	rows: readonly WorkflowToolRow[],
	subExecutions: RelatedExecution[],
	readOnly: ReadonlySet<string>,
): Tool[] {
	return rows.map((row, rowIndex) => {
		const label = `Workflow Tools → tool ${rowIndex + 1}`;
		const name = (row.name ?? '').trim();
		if (!name)
			throw nodeError(
				context,
				`${label}: Name is empty`,
				itemIndex,
				'Give the tool a name the model will call, e.g. lookup_customer.',
			);
		const workflowId = typeof row.workflowId === 'object' ? row.workflowId?.value : row.workflowId;
		if (!workflowId)
			throw nodeError(
				context,
				`${label} (${name}): no workflow selected`,
				itemIndex,
				'Pick the workflow this tool runs.',
			);
		return {
			name,
			description:
				(row.description ?? '').trim() ||
				`Runs the n8n workflow "${typeof row.workflowId === 'object' ? (row.workflowId?.cachedResultName ?? workflowId) : workflowId}".`,
			parameters: parseSchema(
				context,
				row.argsSchema,
				`${label} (${name}): Arguments Schema`,
				itemIndex,
			),
			// Options → Read-Only Tools; any other workflow may change something, so a repeat never runs twice.
			sideEffects: !readOnly.has(name),
			execute: async (args: IDataObject) =>
				runSubWorkflow(context, name, workflowId, args, subExecutions),
		} satisfies Tool;
	});
}

function parseSchema(
	context: IExecuteFunctions,
	raw: WorkflowToolRow['argsSchema'],
	label: string,
	itemIndex: number,
): JsonSchema {
	let schema: unknown = raw ?? DEFAULT_WORKFLOW_ARGS_SCHEMA;
	if (typeof schema === 'string') {
		try {
			schema = JSON.parse(schema);
		} catch (error) {
			throw nodeError(
				context,
				`${label} is not valid JSON: ${(error as Error).message}`,
				itemIndex,
				'Write a JSON Schema object, e.g. {"type":"object","properties":{...}}.',
			);
		}
	}
	if (
		typeof schema !== 'object' ||
		schema === null ||
		Array.isArray(schema) ||
		(schema as IDataObject).type !== 'object'
	) {
		throw nodeError(
			context,
			`${label} must be a JSON Schema with "type": "object"`,
			itemIndex,
			'The arguments are one JSON object: describe its properties.',
		);
	}
	try {
		// A first check compiles the schema through the engine's checks (limits, $refs, patterns RE2 can run):
		// a refusal (SchemaError) is reported against the panel row, with its fix.
		validateAgainst(schema as JsonSchema, {});
	} catch (error) {
		if (error instanceof SchemaError)
			throw nodeError(context, `${label} ${error.problem}`, itemIndex, error.fix);
		throw nodeError(
			context,
			`${label} could not be checked: ${(error as Error).message}`,
			itemIndex,
			'Write a JSON Schema object, e.g. {"type":"object","properties":{...}}.',
		);
	}
	return schema as JsonSchema;
}

async function runSubWorkflow(
	context: IExecuteFunctions,
	name: string,
	workflowId: string,
	args: IDataObject,
	subExecutions: RelatedExecution[],
): Promise<unknown> {
	const input: INodeExecutionData[] = [{ json: args }];
	const result = await context.executeWorkflow({ id: workflowId }, input, undefined, {
		parentExecution: {
			executionId: context.getExecutionId(),
			workflowId: context.getWorkflow().id ?? '',
		},
	});
	if (result.executionId) subExecutions.push({ executionId: result.executionId, workflowId });
	const items = (result.data?.[0] ?? []) as INodeExecutionData[];
	if (items.length === 0) return '(the workflow returned no items)';
	// Images and PDFs among the items' binary data go to the model as files (issue #40), each named in the observation.
	return withItemBinaries(
		context,
		items,
		items.length === 1 ? items[0].json : items.map((item) => item.json),
		name,
	);
}
