// Agent Core's execute path, in the order it runs; both node versions share it, each with its panel reader.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { mapItems } from '../../shared/items';
import { routeByApproval } from './governance/approval';
import { ExecutionRedis } from './governance/execution-redis';
import type { PanelVersion } from '../panel/version';
import { type ExecutionState, runItem } from './run-item';

/**
 * One output item per input item, each paired with its input; continueOnFail() turns errors into items.
 * With Require Approval, a run that waits for a person leaves by the Needs Approval output. `panel` is the
 * node version's reader (V1/panel.ts or V2/panel.ts), chosen once by the node class.
 *
 * 1. The execution's shared state: the panel reader (../panel/version.ts), one Redis owner
 *    (governance/execution-redis.ts, made for the first item that uses Redis), the sub-executions started.
 * 2. Per item (run-item.ts): its panel read once into the run's options, with the model, tools, MCP servers,
 *    memory and files it connects (inputs/read-run.ts ItemRun, and the rest of inputs/),
 * 3. the agent run or resumed, under approval, audit and durable runs (governance/), streaming as it goes (output/),
 * 4. the output item shaped (output/: intermediate steps, AI events, a limit's words), or the failure as the
 *    node's error or an item.
 * 5. The items routed to Done or Needs Approval (governance/approval.ts), and the last sub-execution linked.
 *
 * A feature's files are entered only when the node or item uses it: each step asks what it already read (the
 * panel's values, the item's binary keys, the connected inputs) before calling into governance/, inputs/ or output/.
 */
export async function agentCoreExecute(
	this: IExecuteFunctions,
	panel: PanelVersion,
): Promise<INodeExecutionData[][]> {
	let redis: ExecutionRedis | undefined;
	const openRedis = () => (redis ??= new ExecutionRedis(this, panel));
	const state: ExecutionState = { panel, started: [], redis: openRedis };
	const batching = panel.readBatching(this);
	const runEach = (itemIndex: number) => runItem(this, itemIndex, state);
	const items = await mapItems(this, runEach, batching, panel.fieldNames).finally(() =>
		redis?.close(),
	);
	const { started } = state;
	if (started.length > 0)
		this.setMetadata({
			subExecution: started[started.length - 1],
			subExecutionsCount: started.length,
		});
	// Without the Needs Approval output every item leaves by the one output.
	return panel.hasApprovalOutput(this) ? routeByApproval(items, true) : [items];
}
