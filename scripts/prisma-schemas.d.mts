export declare const root: string;
export declare const sqliteSchemaPath: string;
export declare function derivePostgresSchema(sqliteSchema: string): string;
export declare function writePostgresSchema(sqliteSchema?: string, target?: string): string;
export declare function migrationSql(fromSchema: string | undefined, toSchema: string, cliDatabase?: string): string;
