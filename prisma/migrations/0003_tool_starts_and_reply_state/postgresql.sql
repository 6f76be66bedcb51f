-- AlterTable
ALTER TABLE "Turn" ADD COLUMN     "replyState" TEXT;

-- CreateTable
CREATE TABLE "ToolCallStart" (
    "id" SERIAL NOT NULL,
    "turnId" TEXT NOT NULL,
    "toolCallId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ToolCallStart_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ToolCallStart_turnId_toolCallId_key" ON "ToolCallStart"("turnId", "toolCallId");

-- AddForeignKey
ALTER TABLE "ToolCallStart" ADD CONSTRAINT "ToolCallStart_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "Turn"("id") ON DELETE CASCADE ON UPDATE CASCADE;

