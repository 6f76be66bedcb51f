-- The receiver's resumable state (the Discord gateway session: id, sequence, resume URL), written by
-- the holder at most once per beat and read by the process that takes the lease over.
ALTER TABLE "ReceiverLease" ADD COLUMN "state" TEXT;
