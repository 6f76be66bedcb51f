-- AlterTable
ALTER TABLE "Turn" ADD COLUMN     "cachedTokens" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "RateCount" (
    "key" TEXT NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "RateCount_pkey" PRIMARY KEY ("key","windowStart")
);

-- CreateIndex
CREATE INDEX "RateCount_windowStart_idx" ON "RateCount"("windowStart");

-- CreateIndex
CREATE INDEX "Turn_startedAt_idx" ON "Turn"("startedAt");

