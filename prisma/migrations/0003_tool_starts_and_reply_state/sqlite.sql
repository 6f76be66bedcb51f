-- AlterTable
ALTER TABLE "Turn" ADD COLUMN "replyState" TEXT;

-- CreateTable
CREATE TABLE "ToolCallStart" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "turnId" TEXT NOT NULL,
    "toolCallId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ToolCallStart_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "Turn" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "ToolCallStart_turnId_toolCallId_key" ON "ToolCallStart"("turnId", "toolCallId");

