/** One labelled tool call of the corpus: what an agent asked to run, and whether running it unasked is safe. */
export type CorpusLabel = 'safe' | 'risky' | 'irreversible';
export interface CorpusCall {
  label: CorpusLabel;
  toolName: string;
  input: Record<string, unknown>;
}
