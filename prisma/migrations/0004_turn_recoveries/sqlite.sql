-- AlterTable
-- (Written by hand: Prisma's diff rebuilds the table, and the rebuild's DROP TABLE would cascade
-- to approvals and tool starts inside the migrator's transaction, where foreign keys stay on.
-- SQLite adds a NOT NULL column with a constant default in place.)
ALTER TABLE "Turn" ADD COLUMN "recoveries" INTEGER NOT NULL DEFAULT 0;
