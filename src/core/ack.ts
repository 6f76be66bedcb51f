// The Action contract says a press is answered exactly once. Adapters wrap their platform's
// answer with this so a second ack (a retry, a catch-all in `finally`) is a no-op everywhere.

export interface AnswerOnce {
  ack(toast?: string): Promise<void>;
  readonly answered: boolean;
}

export function answerOnce(answer: (toast?: string) => Promise<void>): AnswerOnce {
  let answered = false;
  return {
    async ack(toast) {
      if (answered) return;
      answered = true;
      await answer(toast);
    },
    get answered() {
      return answered;
    },
  };
}
