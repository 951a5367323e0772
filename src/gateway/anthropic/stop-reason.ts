// Why an answer ended, in each protocol's words.

/** Anthropic's stop_reason as chat's finish_reason. */
export function finishReasonOf(stopReason: unknown): string | null {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return null;
  }
}

/** Chat's finish_reason as Anthropic's stop_reason (a stop sequence cannot be told from a natural end). */
export function stopReasonOf(finishReason: unknown): string | null {
  switch (finishReason) {
    case 'stop':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return finishReason == null ? null : 'end_turn';
  }
}
