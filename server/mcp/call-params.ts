/**
 * The shape of a tools/call request's `params`, checked before the SDK sees
 * it: the SDK parses `params` with its own schema and answers a mismatch as
 * an internal error (-32603) whose message is the validator's issue list.
 * A client that sent `"arguments": [1]` made a mistake it can fix, so it
 * gets JSON-RPC's invalid params (-32602) and a sentence saying what to send.
 * The arguments' contents are the tool's to validate (an `invalid_parameter`
 * tool error naming each).
 */
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** JSON-RPC's invalid-params answer to a tools/call request whose params have the wrong shape; undefined for any other message. */
export function malformedCallAnswer(message: JSONRPCMessage): JSONRPCMessage | undefined {
  if (!("method" in message) || message.method !== "tools/call" || !("id" in message) || message.id === undefined) return undefined;
  const problem = callParamsProblem(message.params);
  return problem === undefined ? undefined : { jsonrpc: "2.0", id: message.id, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${problem}` } };
}

/** What is wrong with tools/call params, as a sentence; undefined when they are well-formed. */
function callParamsProblem(params: unknown): string | undefined {
  if (!isObject(params)) return "params must be an object: {name, arguments}.";
  if (typeof params.name !== "string") return "name must be a string: the name of a tool, as tools/list gives it.";
  if ("arguments" in params && params.arguments !== undefined && !isObject(params.arguments)) {
    return 'arguments must be an object of named arguments (e.g. {"q": "river"}), or left out.';
  }
  // The SDK copies the arguments into a new object, where a "__proto__" key would vanish (it sets the copy's prototype) instead of being refused as unknown.
  if (isObject(params.arguments) && Object.hasOwn(params.arguments, "__proto__")) return '"__proto__" is not an argument of any tool.';
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
