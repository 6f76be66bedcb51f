export declare const REQUIRED_NODE: string;
export declare function nodeVersionProblem(version: string): string | undefined;
export declare function requireSupportedNode(): void;
