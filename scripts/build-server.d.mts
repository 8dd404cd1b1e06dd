/** The production bundle's path, and its build (scripts/build-server.mjs), for scripts that bundle a server of their own. */
export declare const serverBundle: string;
export declare function buildServer(outfile?: string, entryPoint?: string): Promise<void>;
