-- AlterTable
ALTER TABLE "Turn" ADD COLUMN     "model" TEXT;

-- CreateTable
CREATE TABLE "ChatModel" (
    "channel" TEXT NOT NULL,
    "chatId" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "setBy" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ChatModel_pkey" PRIMARY KEY ("channel","chatId")
);

