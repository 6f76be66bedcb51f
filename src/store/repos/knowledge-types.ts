// The knowledge repository's records, shared by its reads, its writes and the CLI.

export interface KnowledgePageFields {
  slug: string;
  title: string;
  summary: string;
  content: string;
  tags: string[];
  references: string[];
}

export interface KnowledgePageRecord extends KnowledgePageFields {
  id: string;
  source: string;
  revision: number;
  hash: string;
  createdAt: Date;
  updatedAt: Date;
}

export type KnowledgePageListing = Omit<KnowledgePageRecord, 'content' | 'references'>;

export interface KnowledgeRevisionRecord extends Omit<KnowledgePageFields, 'slug'> {
  revision: number;
  source: string;
  author?: string;
  note?: string;
  hash: string;
  createdAt: Date;
}

export interface KnowledgeSaveOptions {
  /** cli | import | bot */
  source: string;
  author?: string;
  note?: string;
  /** Refuse (status `conflict`) unless the page is still at this revision (0: must not exist). */
  expectedRevision?: number;
  /** Work out the outcome without writing. */
  dryRun?: boolean;
}

export type KnowledgeSaveResult =
  | { status: 'created' | 'updated' | 'unchanged'; page: KnowledgePageRecord }
  | { status: 'conflict'; page: KnowledgePageRecord | undefined };
