/**
 * Admission of queries to an engine that runs them side by side (RemoteIndex): at most `max` at
 * once and at most `perHolder` of one agent's, so one agent's runaway queries leave room for the
 * others and for its own cheap ones. A query that gives up while it waits (its time is up) leaves
 * the queue: it is never admitted afterwards, where it would hold a place no one releases.
 */
export class Admission {
  private readonly inFlight = new Map<string, number>();
  private readonly waiting: Array<{ holder: string; go: () => void }> = [];
  private total = 0;

  constructor(
    private readonly max: number,
    private readonly perHolder: number,
  ) {}

  /** Resolves when `holder` may run one more query (the caller then releases it); rejects with the signal's reason if it aborts first. */
  acquire(holder: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      const giveUp = () => {
        const at = this.waiting.indexOf(waiter);
        if (at < 0) return; // admitted already: the caller releases it
        this.waiting.splice(at, 1);
        reject(signal.reason as Error);
      };
      const waiter = {
        holder,
        go: () => {
          signal.removeEventListener('abort', giveUp);
          resolve();
        },
      };
      signal.addEventListener('abort', giveUp, { once: true });
      this.waiting.push(waiter);
      this.admit();
    });
  }

  release(holder: string): void {
    const left = (this.inFlight.get(holder) ?? 1) - 1;
    if (left) this.inFlight.set(holder, left);
    else this.inFlight.delete(holder);
    this.total--;
    this.admit();
  }

  private admit(): void {
    for (let i = 0; i < this.waiting.length && this.total < this.max; ) {
      const { holder, go } = this.waiting[i]!;
      if ((this.inFlight.get(holder) ?? 0) >= this.perHolder) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.inFlight.set(holder, (this.inFlight.get(holder) ?? 0) + 1);
      this.total++;
      go();
    }
  }
}
