// What every pattern check answers when a pattern cannot be used: shared by the syntax reader, the property names and RE2's compile.
/** Why a pattern cannot be used (a predicate: "uses a back-reference, …"), and what to write instead. */
export interface PatternProblem {
	problem: string;
	fix: string;
}
