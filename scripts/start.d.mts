/** The server's node flags (scripts/start.mjs), for scripts that start it as a child of their own. */
export declare const SERVER_NODE_FLAGS: readonly string[];

/** Builds the client (dist/client) when it is missing or older than its sources, as `npm start` does. */
export declare function buildClientIfStale(): Promise<void>;
