-- CreateTable
CREATE TABLE "RateCount" (
    "key" TEXT NOT NULL,
    "windowStart" DATETIME NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("key", "windowStart")
);

-- AlterTable
-- (Written by hand, as 0004: Prisma's diff rebuilds the table, and the rebuild's DROP TABLE would
-- cascade to approvals and tool starts inside the migrator's transaction, where foreign keys stay
-- on. SQLite adds a NOT NULL column with a constant default in place.)
ALTER TABLE "Turn" ADD COLUMN "cachedTokens" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "Turn_startedAt_idx" ON "Turn"("startedAt");

-- CreateIndex
CREATE INDEX "RateCount_windowStart_idx" ON "RateCount"("windowStart");
