/** The server's node flags (scripts/start.mjs), for scripts that start it as a child of their own. */
export declare const SERVER_NODE_FLAGS: readonly string[];
