/** An input value and where it came from (`file:line`, or an export shard and row), or one that could not be read as a value. */
export type InputItem = { where: string; value: unknown } | { where: string; problem: SkipProblem };

/** Why a record was skipped: the field (a dotted path, `[]` for any index; "" for the whole record) and the rule. */
export interface SkipProblem {
  field: string;
  rule: string;
}
