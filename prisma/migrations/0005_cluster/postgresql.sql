-- CreateTable
CREATE TABLE "ParleyProcess" (
    "owner" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "heartbeatAt" TIMESTAMP(3) NOT NULL,
    "channels" TEXT NOT NULL DEFAULT '[]',

    CONSTRAINT "ParleyProcess_pkey" PRIMARY KEY ("owner")
);

-- CreateTable
CREATE TABLE "ReceiverLease" (
    "receiver" TEXT NOT NULL,
    "owner" TEXT,
    "token" INTEGER NOT NULL DEFAULT 0,
    "leaseUntil" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ReceiverLease_pkey" PRIMARY KEY ("receiver")
);

-- CreateIndex
CREATE INDEX "ParleyProcess_heartbeatAt_idx" ON "ParleyProcess"("heartbeatAt");

