-- CreateTable
CREATE TABLE "ParleyProcess" (
    "owner" TEXT NOT NULL PRIMARY KEY,
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "startedAt" DATETIME NOT NULL,
    "heartbeatAt" DATETIME NOT NULL,
    "channels" TEXT NOT NULL DEFAULT '[]'
);

-- CreateTable
CREATE TABLE "ReceiverLease" (
    "receiver" TEXT NOT NULL PRIMARY KEY,
    "owner" TEXT,
    "token" INTEGER NOT NULL DEFAULT 0,
    "leaseUntil" DATETIME,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "ParleyProcess_heartbeatAt_idx" ON "ParleyProcess"("heartbeatAt");

