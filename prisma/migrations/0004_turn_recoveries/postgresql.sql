-- AlterTable
ALTER TABLE "Turn" ADD COLUMN     "recoveries" INTEGER NOT NULL DEFAULT 0;

