/** Types of test/tiers.mjs (plain JavaScript, so that scripts can read the tiers without a build). */
export declare const UNIT_TESTS: readonly string[];
export declare const PROCESS_TESTS: readonly string[];
export declare function matchesEntry(file: string, entry: string): boolean;
export declare function tierOf(file: string): 'unit' | 'browser' | 'process' | 'e2e';
export declare const LONGEST_FIRST: readonly string[];
