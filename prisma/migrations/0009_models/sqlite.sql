-- AlterTable
ALTER TABLE "Turn" ADD COLUMN "model" TEXT;

-- CreateTable
CREATE TABLE "ChatModel" (
    "channel" TEXT NOT NULL,
    "chatId" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "setBy" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("channel", "chatId")
);

