// The error of bad run input (prompt, messages): its `field` names what to fix; thrown by the engine and the context store alike.
/** Bad run input (prompt / messages); `field` names it and the message says how to fix it. */
export class InputError extends Error {
  override readonly name = 'InputError';
  constructor(
    /** `prompt`, `messages_json`, or another input field such as the persisted `messages`. */
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}
