/** A counting semaphore for chat turns: `take` waits for a free slot, `give` hands it to the next waiter. */
export class TurnSlots {
  private used = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly max: number) {}

  take(): Promise<void> {
    if (this.used < this.max) {
      this.used++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.used--;
  }

  /** A planned stop: every waiter goes on (and finds the bridge no longer accepting). */
  releaseAll(): void {
    for (const next of this.waiting.splice(0)) {
      this.used++;
      next();
    }
  }
}
