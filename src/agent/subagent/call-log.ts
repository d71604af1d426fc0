// A sub-agent's call as its host logs it (SubAgentSpec.onCall): started and ended once, never in the call's way.
import type { SubAgentCallLog, SubAgentSpec } from './agent-tool';

/** The call's log (SubAgentSpec.onCall), started: a log that fails is dropped, never the call. */
export function startLog(
	spec: SubAgentSpec,
	task: string,
): { end: ReturnType<SubAgentCallLog>['end'] } {
	const quietly = (record: () => void) => {
		try {
			record();
		} catch {
			// Only a listener: the call's outcome stands whatever its log does.
		}
	};
	let logged: ReturnType<SubAgentCallLog> | undefined;
	if (spec.onCall) quietly(() => (logged = spec.onCall!(task)));
	return { end: (ending) => logged && quietly(() => logged!.end(ending)) };
}
