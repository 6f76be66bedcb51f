-- AlterTable
ALTER TABLE "KnowledgeRevision" ADD COLUMN     "note" TEXT;

