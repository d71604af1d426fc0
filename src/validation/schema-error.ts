/** A JSON Schema the engine refuses to use, naming whose schema it is (`owner`) and how to fix it. */
export class SchemaError extends Error {
  override readonly name = 'SchemaError';
  constructor(
    /** Whose schema: `output_schema`, `tool "lookup"`, … */
    readonly field: string,
    /** What is wrong, as a predicate with the path inside the schema ("has $ref \"#\" at / that …"). */
    readonly problem: string,
    /** What to change. */
    readonly fix: string,
  ) {
    super(`${field} ${problem}. ${fix}`);
  }
}
