/** Makes worker threads started from now on answer heap requests (call before creating the Temporal worker). */
export declare function instrumentWorkerThreads(): void;
/** The process's CPU time and memory (see worker-stats.mjs). */
export declare function processStats(options?: { gc?: boolean }): Promise<Record<string, number>>;
/** Writes heap snapshots of every thread into `dir`. */
export declare function writeHeapSnapshots(dir: string): Promise<string[]>;
/** Answers the parent's requests on stdin; `onClose` when stdin ends. */
export declare function serveStats(onClose: () => void): void;
