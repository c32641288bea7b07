/**
 * @internal The answers of `lookup` for the last two keys asked, in front of it: a key asked
 * again is answered by string comparisons, with no hash lookup. The dispatch path asks about each
 * envelope's event type; a stream of events of one type, or an event and its follow-up, then
 * make no lookup. `clear()` when an answer may have changed.
 */
export class RecentAnswers<TAnswer> {
  private lastKey: string | undefined = undefined;
  private lastAnswer: TAnswer | undefined = undefined;
  private priorKey: string | undefined = undefined;
  private priorAnswer: TAnswer | undefined = undefined;

  constructor(private readonly lookup: (key: string) => TAnswer) {}

  /** `lookup(key)`, remembered. */
  get(key: string): TAnswer {
    if (key === this.lastKey) return this.lastAnswer as TAnswer;
    if (key === this.priorKey) return this.priorAnswer as TAnswer;
    const answer = this.lookup(key);
    this.priorKey = this.lastKey;
    this.priorAnswer = this.lastAnswer;
    this.lastKey = key;
    this.lastAnswer = answer;
    return answer;
  }

  /** Forgets every answer. */
  clear(): void {
    this.lastKey = this.priorKey = undefined;
    this.lastAnswer = this.priorAnswer = undefined;
  }
}
